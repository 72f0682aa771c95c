// Stub of thrust::device_vector with the real names; Thrust declares it in
// an inline namespace of thrust.
#pragma once
#include <cstddef>
#include <thrust/device_ptr.h>

namespace thrust {
inline namespace THRUST_STUB_NS {
// What device_vector's operator[] returns on the host: reading it copies
// the element to the host, assigning it copies a value to the device.
template <typename T> class device_reference {
public:
  operator T() const;
  device_reference &operator=(const T &Value);
};
template <typename T> class device_vector {
public:
  device_reference<T> operator[](std::size_t Index);
  device_vector();
  explicit device_vector(std::size_t Size);
  device_vector(std::size_t Size, const T &Value);
  ~device_vector();
  T *data();
  // Thrust's iterator wraps a device_ptr.
  device_ptr<T> begin();
  device_ptr<T> end();
  std::size_t size() const;
};
} // namespace THRUST_STUB_NS
} // namespace thrust
