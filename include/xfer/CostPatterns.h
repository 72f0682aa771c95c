//===--- CostPatterns.h - named cost-model pattern ids ----------*- C++ -*-===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// xfer::patterns::TorchItem is "torch.item", and so on for every row of
// CostPatterns.def. Plain C++17, shared by xfer-bench and the checks.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_COSTPATTERNS_H
#define XFER_COSTPATTERNS_H

namespace xfer::patterns {

#define XFER_LATENCY_PATTERN(Identifier, Id) constexpr char Identifier[] = Id;
#define XFER_OVERLAP_GRID(Identifier, Id) constexpr char Identifier[] = Id;
#include "xfer/CostPatterns.def"

} // namespace xfer::patterns

#endif // XFER_COSTPATTERNS_H
