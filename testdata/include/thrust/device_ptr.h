// Stub of thrust::device_ptr with the real names.
#pragma once
#include <cstddef>

namespace thrust {
inline namespace THRUST_STUB_NS {
template <typename T> class device_ptr {
public:
  explicit device_ptr(T *Pointer);
  device_ptr operator+(std::ptrdiff_t Offset) const;
  T *get() const;
};
} // namespace THRUST_STUB_NS
} // namespace thrust
