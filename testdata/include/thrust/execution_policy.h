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
} // namespace THRUST_STUB_NS
} // namespace thrust
