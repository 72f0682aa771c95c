//===- HostTiming.h - Host clocks and calibrated host work ------*- C++ -*-===//
//
// Part of xfer-tidy. Host-only.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_BENCHCORE_HOSTTIMING_H
#define XFER_BENCHCORE_HOSTTIMING_H

#include <chrono>

namespace xferbench {

/// Microseconds on the monotonic clock; only differences are meaningful.
inline double nowUs() {
  using namespace std::chrono;
  return duration<double, std::micro>(steady_clock::now().time_since_epoch())
      .count();
}

/// Busy-waits for \p Us microseconds: stands in for host work in a loop
/// (sleeping would let the scheduler add its own wake-up latency).
inline void spinHostUs(double Us) {
  if (Us <= 0)
    return;
  const double End = nowUs() + Us;
  while (nowUs() < End) {
  }
}

} // namespace xferbench

#endif // XFER_BENCHCORE_HOSTTIMING_H
