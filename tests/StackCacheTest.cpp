//===--- StackCacheTest.cpp - xfer-trace's stack cache, without a GPU -----===//
//
// The collector recognises a stack from the return addresses in the slots
// the first unwind found them in. Here two call sites reach one lookup at
// the same frame address, and one site is reached from two callers at the
// same depth: each path is unwound once, then recognised, and never taken
// for another.
//
//===----------------------------------------------------------------------===//

#include "trace/StackCache.h"

#include "gtest/gtest.h"

#include <vector>

namespace {

using xfertrace::StackCache;
using xfertrace::UnwoundStack;
using xfertrace::unwindStack;

/// What one traced call did.
struct Lookup {
  const void *Anchor = nullptr;
  uint32_t StackId = 0;
  bool Unwound = false;
};

/// Stands in for the CUPTI callback: the cached stack id, else an unwind
/// recorded as a new id.
struct Collector {
  StackCache Cache;
  std::vector<std::vector<void *>> Stacks;

  __attribute__((noinline)) Lookup onCall() {
    Lookup Result;
    Result.Anchor = __builtin_frame_address(0);
    uint64_t Key = StackCache::key(Result.Anchor, 42, false);
    if (std::optional<uint32_t> Cached = Cache.find(Key)) {
      Result.StackId = *Cached;
      return Result;
    }
    UnwoundStack Stack;
    unwindStack(Result.Anchor, Stack);
    EXPECT_TRUE(Stack.Verifiable);
    Result.StackId = uint32_t(Stacks.size());
    Stacks.emplace_back(Stack.Frames, Stack.Frames + Stack.Count);
    EXPECT_EQ(Cache.insert(Key, Stack, Result.StackId),
              StackCache::Outcome::Added);
    Result.Unwound = true;
    return Result;
  }
};

// Two sites with the same frame layout; the asm statements keep them apart
// (no identical code folding) and keep the calls out of tail position.
__attribute__((noinline)) Lookup firstSite(Collector &C) {
  Lookup Result = C.onCall();
  asm volatile("# first site" ::: "memory");
  return Result;
}

__attribute__((noinline)) Lookup secondSite(Collector &C) {
  Lookup Result = C.onCall();
  asm volatile("# second site" ::: "memory");
  return Result;
}

using Site = Lookup (*)(Collector &);

__attribute__((noinline)) Lookup firstCaller(Collector &C, Site S) {
  Lookup Result = S(C);
  asm volatile("# first caller" ::: "memory");
  return Result;
}

__attribute__((noinline)) Lookup secondCaller(Collector &C, Site S) {
  Lookup Result = S(C);
  asm volatile("# second caller" ::: "memory");
  return Result;
}

using Caller = Lookup (*)(Collector &, Site);

/// One frame for every path, so that they reach onCall at one depth.
__attribute__((noinline)) Lookup reach(Collector &C, Caller Via, Site S) {
  Lookup Result = Via(C, S);
  asm volatile("" ::: "memory");
  return Result;
}

TEST(StackCacheTest, EachPathIsUnwoundOnceThenRecognised) {
  Collector C;
  struct Path {
    Caller Via;
    Site S;
  };
  const Path Paths[] = {{firstCaller, firstSite},
                        {firstCaller, secondSite},
                        {secondCaller, firstSite},
                        {secondCaller, secondSite}};
  // One call instruction for every path and round: the paths differ only
  // in the frames between it and the lookup.
  std::vector<std::vector<Lookup>> Rounds(4);
  for (std::vector<Lookup> &Round : Rounds)
    for (const Path &P : Paths)
      Round.push_back(reach(C, P.Via, P.S));
  const std::vector<Lookup> &First = Rounds[0];
  // The premise: every path meets the lookup at one frame address, which
  // an API-and-depth key could not tell apart.
  for (const Lookup &L : First) {
    EXPECT_EQ(L.Anchor, First[0].Anchor);
    EXPECT_TRUE(L.Unwound);
  }
  ASSERT_EQ(C.Stacks.size(), 4u);
  for (size_t I = 0; I < C.Stacks.size(); ++I)
    for (size_t J = I + 1; J < C.Stacks.size(); ++J)
      EXPECT_NE(C.Stacks[I], C.Stacks[J]);

  for (size_t Round = 1; Round < Rounds.size(); ++Round)
    for (size_t I = 0; I < std::size(Paths); ++I) {
      EXPECT_FALSE(Rounds[Round][I].Unwound) << "path " << I;
      EXPECT_EQ(Rounds[Round][I].StackId, First[I].StackId) << "path " << I;
    }
  EXPECT_EQ(C.Stacks.size(), 4u);
}

TEST(StackCacheTest, UnwoundStackRecordsWhereEachReturnAddressLies) {
  UnwoundStack Stack;
  const void *Anchor = __builtin_frame_address(0);
  unwindStack(Anchor, Stack);
  ASSERT_TRUE(Stack.Verifiable);
  ASSERT_GT(Stack.Count, 2);
  // unwindStack's own frame is below the anchor; the test's callers are
  // above it.
  EXPECT_EQ(Stack.Slots[0], nullptr);
  int WithSlots = 0;
  for (int I = 0; I < Stack.Count; ++I) {
    if (!Stack.Slots[I])
      continue;
    ++WithSlots;
    EXPECT_GT(reinterpret_cast<uintptr_t>(Stack.Slots[I]),
              reinterpret_cast<uintptr_t>(Anchor));
    EXPECT_EQ(*Stack.Slots[I], Stack.Frames[I]);
  }
  EXPECT_GE(WithSlots, Stack.Count - 2);
}

UnwoundStack fakeStack(std::vector<void *> &Memory) {
  UnwoundStack Stack;
  Stack.Verifiable = true;
  Stack.Count = int(Memory.size());
  for (size_t I = 0; I < Memory.size(); ++I) {
    Stack.Frames[I] = Memory[I];
    Stack.Slots[I] = &Memory[I];
  }
  return Stack;
}

TEST(StackCacheTest, AChangedReturnAddressIsAMiss) {
  StackCache Cache;
  std::vector<void *> Memory = {reinterpret_cast<void *>(0x1000),
                                reinterpret_cast<void *>(0x2000)};
  UnwoundStack Stack = fakeStack(Memory);
  uint64_t Key = StackCache::key(Memory.data(), 1, false);
  EXPECT_EQ(Cache.insert(Key, Stack, 7), StackCache::Outcome::Added);
  EXPECT_EQ(Cache.find(Key), 7u);
  EXPECT_EQ(Cache.find(StackCache::key(Memory.data(), 1, true)), std::nullopt);
  EXPECT_EQ(Cache.find(StackCache::key(Memory.data(), 2, false)),
            std::nullopt);
  Memory[1] = reinterpret_cast<void *>(0x3000); // another caller
  EXPECT_EQ(Cache.find(Key), std::nullopt);
  EXPECT_EQ(Cache.insert(Key, fakeStack(Memory), 8),
            StackCache::Outcome::Added);
  EXPECT_EQ(Cache.find(Key), 8u);
  Memory[1] = reinterpret_cast<void *>(0x2000);
  EXPECT_EQ(Cache.find(Key), 7u);
}

TEST(StackCacheTest, InsertConfirmsContradictsAndStopsWhenFull) {
  StackCache Cache;
  std::vector<void *> Memory = {reinterpret_cast<void *>(0x1000)};
  uint64_t Key = StackCache::key(Memory.data(), 1, false);
  EXPECT_EQ(Cache.insert(Key, fakeStack(Memory), 1),
            StackCache::Outcome::Added);
  EXPECT_EQ(Cache.insert(Key, fakeStack(Memory), 1),
            StackCache::Outcome::Confirmed);
  EXPECT_EQ(Cache.insert(Key, fakeStack(Memory), 2),
            StackCache::Outcome::Contradicted);
  EXPECT_EQ(Cache.find(Key), 2u);

  UnwoundStack Unverifiable = fakeStack(Memory);
  Unverifiable.Verifiable = false;
  EXPECT_EQ(Cache.insert(Key, Unverifiable, 3),
            StackCache::Outcome::Unverifiable);

  for (size_t Caller = 1; Caller < StackCache::MaxStacksPerKey; ++Caller) {
    Memory[0] = reinterpret_cast<void *>(0x1000 + Caller);
    EXPECT_EQ(Cache.insert(Key, fakeStack(Memory), uint32_t(10 + Caller)),
              StackCache::Outcome::Added);
  }
  Memory[0] = reinterpret_cast<void *>(0x9000);
  EXPECT_EQ(Cache.insert(Key, fakeStack(Memory), 99),
            StackCache::Outcome::Full);
  EXPECT_EQ(Cache.find(Key), std::nullopt);
}

} // namespace
