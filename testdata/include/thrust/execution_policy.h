// Stub of Thrust's execution policies with the real names.
#pragma once

namespace thrust {
inline namespace THRUST_STUB_NS {
namespace detail {
struct device_t {};
struct host_t {};
} // namespace detail
extern const detail::device_t device;
extern const detail::host_t host;
// thrust::cuda::par.on(stream): a policy that runs on the given stream.
namespace cuda_cub {
struct execute_on_stream {};
struct par_t {
  execute_on_stream on(struct CUstream_st *Stream) const;
};
extern const par_t par;
} // namespace cuda_cub
namespace cuda = cuda_cub;
} // namespace THRUST_STUB_NS
} // namespace thrust
