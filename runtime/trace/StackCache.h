//===- StackCache.h - A stack seen before, without unwinding ---*- C++ -*-===//
//
// Part of xfer-tidy. Host-only.
//
//===----------------------------------------------------------------------===//
//
// Unwinding through LibTorch costs tens of microseconds per call, more than
// many of the waits it attributes. A loop reaches the same few call sites
// over and over, and the stack of a call is determined by the return
// addresses on it. So the first unwind at a site records, besides the
// return addresses, the stack slot each was read from; a later call whose
// anchor (the callback's frame) is at the same address reads those slots
// and, if every one still holds the same return address, has the same stack:
// no unwinding, and no guess, whichever caller reached it.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TRACE_STACKCACHE_H
#define XFER_TRACE_STACKCACHE_H

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace xfertrace {

/// A stack as unwound: return addresses, innermost first, and for each
/// frame outside the anchor's callees the slot it was read from.
struct UnwoundStack {
  static constexpr int MaxFrames = 64;
  void *Frames[MaxFrames];
  /// Slots[I]: where Frames[I] lies on the stack, or null for the frames
  /// below the anchor (the unwinder's own, whose slots are gone later).
  void *const *Slots[MaxFrames];
  int Count = 0;
  /// Whether every frame above the anchor has a slot: only such a stack
  /// can be recognised again.
  bool Verifiable = false;
};

/// Unwinds the calling thread's stack into \p Out (at most
/// UnwoundStack::MaxFrames frames). \p Anchor is a frame address of a
/// caller that stays live until the stack is looked up again (the CUPTI
/// callback's): slots at or below it are not recorded.
void unwindStack(const void *Anchor, UnwoundStack &Out);

/// Per-thread cache of stacks by anchor and API. Not thread-safe: one per
/// thread.
class StackCache {
public:
  /// Stacks one key may hold (one per caller reaching the key's anchor);
  /// past this, calls at the key are unwound every time.
  static constexpr size_t MaxStacksPerKey = 16;

  static uint64_t key(const void *Anchor, uint32_t ApiId, bool DriverDomain) {
    return (uint64_t(uintptr_t(Anchor)) << 16) ^ (uint64_t(ApiId) << 1) ^
           uint64_t(DriverDomain);
  }

  /// The stack id of a stack recorded at \p Key whose return addresses all
  /// still lie in their slots, or none (the caller unwinds).
  std::optional<uint32_t> find(uint64_t Key) const;

  /// What insert found.
  enum class Outcome { Added, Confirmed, Contradicted, Full, Unverifiable };

  /// Records \p Stack, unwound at \p Key, as \p StackId. A stack already
  /// recorded with the same slots and return addresses is confirmed, or
  /// contradicted when it was recorded under another id (then replaced).
  Outcome insert(uint64_t Key, const UnwoundStack &Stack, uint32_t StackId);

private:
  struct Entry {
    uint32_t StackId = 0;
    std::vector<std::pair<void *const *, void *>> SlotValues;
  };
  std::unordered_map<uint64_t, std::vector<Entry>> Entries;
};

} // namespace xfertrace

#endif // XFER_TRACE_STACKCACHE_H
