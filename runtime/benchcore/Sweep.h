//===- Sweep.h - Size sweeps and rotating buffer offsets --------*- C++ -*-===//
//
// Part of xfer-tidy. Host-only.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_BENCHCORE_SWEEP_H
#define XFER_BENCHCORE_SWEEP_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace xferbench {

/// Min, Min*Factor, ... up to and including Max (if reached exactly, else
/// Max is appended), e.g. 4 B .. 256 MiB in powers of 4.
inline std::vector<uint64_t> geometricSizes(uint64_t Min, uint64_t Max,
                                            uint64_t Factor) {
  std::vector<uint64_t> Sizes;
  if (Min == 0 || Factor < 2 || Min > Max)
    return Sizes;
  for (uint64_t Size = Min; Size <= Max; Size *= Factor) {
    Sizes.push_back(Size);
    if (Size > Max / Factor)
      break;
  }
  if (Sizes.back() != Max)
    Sizes.push_back(Max);
  return Sizes;
}

/// Where repetition \p Rep of a \p Bytes-sized transfer starts inside an
/// arena of \p ArenaBytes: successive repetitions walk through the arena in
/// page-aligned steps, so that no repetition finds its data still in a CPU
/// or GPU cache from the one before. 0 when the arena holds one copy only.
inline size_t rotatingOffset(size_t Rep, size_t Bytes, size_t ArenaBytes) {
  constexpr size_t Page = 4096;
  const size_t Stride =
      std::max<size_t>(Page, (Bytes + Page - 1) / Page * Page);
  if (ArenaBytes < Bytes + Stride)
    return 0;
  const size_t Slots = (ArenaBytes - Bytes) / Stride + 1;
  return (Rep % Slots) * Stride;
}

} // namespace xferbench

#endif // XFER_BENCHCORE_SWEEP_H
