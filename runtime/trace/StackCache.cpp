//===- StackCache.cpp - A stack seen before, without unwinding -----------===//
//
// Part of xfer-tidy. Host-only.
//
//===----------------------------------------------------------------------===//

#include "trace/StackCache.h"

#include <unwind.h>

#include <algorithm>

namespace xfertrace {

namespace {

struct UnwindProgress {
  uintptr_t Anchor = 0;
  UnwoundStack *Out = nullptr;
  /// The CFA the previous frame's context reported: the frame between it
  /// and the current one holds the current return address.
  uintptr_t PreviousCfa = 0;
};

/// Where \p ReturnAddress was stored by the callee whose frame ends at
/// \p CalleeCfa and starts above \p Floor, or null.
void *const *findSlot(void *ReturnAddress, uintptr_t CalleeCfa,
                      uintptr_t Floor) {
  if (CalleeCfa < Floor + sizeof(void *))
    return nullptr;
  // x86-64: the call pushed it just below the callee's CFA. Elsewhere
  // (AArch64) the callee saved the link register somewhere in its frame.
  for (uintptr_t Slot = CalleeCfa - sizeof(void *); Slot >= Floor;
       Slot -= sizeof(void *)) {
    auto *Word = reinterpret_cast<void *const *>(Slot);
    if (*Word == ReturnAddress)
      return Word;
  }
  return nullptr;
}

_Unwind_Reason_Code onFrame(_Unwind_Context *Context, void *Argument) {
  auto &Progress = *static_cast<UnwindProgress *>(Argument);
  UnwoundStack &Out = *Progress.Out;
  if (Out.Count == UnwoundStack::MaxFrames)
    return _URC_END_OF_STACK;
  auto *ReturnAddress = reinterpret_cast<void *>(_Unwind_GetIP(Context));
  if (!ReturnAddress)
    return _URC_END_OF_STACK;
  // The context's CFA is its callee's: the stack pointer of this frame
  // right after the call returned.
  uintptr_t CalleeCfa = _Unwind_GetCFA(Context);
  const void *const *Slot = nullptr;
  // The first frame is unwindStack's own: its address is in no slot.
  if (Out.Count > 0 && CalleeCfa > Progress.Anchor) {
    uintptr_t Floor = std::max(Progress.PreviousCfa, Progress.Anchor + 1);
    Slot = findSlot(ReturnAddress, CalleeCfa, Floor);
    if (!Slot)
      Out.Verifiable = false;
  }
  Out.Frames[Out.Count] = ReturnAddress;
  Out.Slots[Out.Count] = const_cast<void *const *>(Slot);
  ++Out.Count;
  Progress.PreviousCfa = CalleeCfa;
  return _URC_NO_REASON;
}

} // namespace

__attribute__((noinline)) void unwindStack(const void *Anchor,
                                           UnwoundStack &Out) {
  Out.Count = 0;
  Out.Verifiable = true;
  UnwindProgress Progress;
  Progress.Anchor = uintptr_t(Anchor);
  Progress.Out = &Out;
  _Unwind_Backtrace(onFrame, &Progress);
  if (Out.Count == 0)
    Out.Verifiable = false;
}

std::optional<uint32_t> StackCache::find(uint64_t Key) const {
  auto Bucket = Entries.find(Key);
  if (Bucket == Entries.end())
    return std::nullopt;
  // Every slot lies on this thread's stack between the live anchor (the key
  // fixes its address) and the stack's base, so it can be read.
  for (const Entry &Candidate : Bucket->second) {
    bool Same = true;
    for (const auto &[Slot, Value] : Candidate.SlotValues)
      if (*Slot != Value) {
        Same = false;
        break;
      }
    if (Same)
      return Candidate.StackId;
  }
  return std::nullopt;
}

StackCache::Outcome StackCache::insert(uint64_t Key, const UnwoundStack &Stack,
                                       uint32_t StackId) {
  if (!Stack.Verifiable)
    return Outcome::Unverifiable;
  Entry Recorded;
  Recorded.StackId = StackId;
  for (int I = 0; I < Stack.Count; ++I)
    if (Stack.Slots[I])
      Recorded.SlotValues.emplace_back(Stack.Slots[I], Stack.Frames[I]);
  std::vector<Entry> &Bucket = Entries[Key];
  for (Entry &Known : Bucket)
    if (Known.SlotValues == Recorded.SlotValues) {
      if (Known.StackId == StackId)
        return Outcome::Confirmed;
      Known.StackId = StackId;
      return Outcome::Contradicted;
    }
  if (Bucket.size() >= MaxStacksPerKey)
    return Outcome::Full;
  Bucket.push_back(std::move(Recorded));
  return Outcome::Added;
}

} // namespace xfertrace
