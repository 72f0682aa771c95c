//===- TraceModel.cpp - What the collector records and how it adds up -----===//
//
// Part of xfer-tidy. Host-only.
//
//===----------------------------------------------------------------------===//

#include "trace/TraceModel.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

namespace xfertrace {

namespace {

double toUs(uint64_t Ns) { return double(Ns) / 1000.0; }

/// Figures of one user call site.
struct SiteTotals {
  const ResolvedSite *Site = nullptr;
  uint64_t BlockedNs = 0;
  uint64_t IdleNs = 0;
  uint64_t CopyDeviceNs = 0;
  /// Host time while the device was idle or ran only the call's copies.
  uint64_t OwnNs = 0;
  /// GPU idle charged after the calls returned.
  uint64_t IdleAfterNs = 0;
  /// Device time of the calls' copies outside the calls.
  uint64_t CopyOutsideNs = 0;
  uint64_t Bytes = 0;
  uint64_t ApiCalls = 0;
  bool Pageable = false;
  bool Pinned = false;
  std::set<int64_t> Streams;
  /// Per API path: calls and host time blocked.
  std::map<std::string, std::pair<uint64_t, uint64_t>> Paths;
};

/// See summarize(): the own time is saved whatever bounds the loop; the
/// rest only as far as the device idled because of it.
uint64_t estimatedSavingNs(const SiteTotals &T) {
  return T.OwnNs +
         std::min(T.BlockedNs - T.OwnNs, T.IdleAfterNs + T.CopyOutsideNs);
}

std::vector<BusyInterval> mergeBusy(std::vector<BusyInterval> Busy) {
  std::sort(Busy.begin(), Busy.end(),
            [](const BusyInterval &A, const BusyInterval &B) {
              return A.StartNs < B.StartNs;
            });
  std::vector<BusyInterval> Merged;
  for (const BusyInterval &I : Busy) {
    if (I.EndNs <= I.StartNs)
      continue;
    if (!Merged.empty() && I.StartNs <= Merged.back().EndNs)
      Merged.back().EndNs = std::max(Merged.back().EndNs, I.EndNs);
    else
      Merged.push_back(I);
  }
  return Merged;
}

std::string siteKey(const ResolvedSite &Site) {
  if (Site.File.empty())
    return "\x01" + Site.CalledFunction; // unattributed, kept apart by path
  return Site.File + ":" + std::to_string(Site.Line);
}

/// Idle time inside [Start, End): the gaps between merged busy intervals
/// (not before the first nor after the last).
uint64_t idleWithin(const std::vector<BusyInterval> &Merged, uint64_t Start,
                    uint64_t End) {
  uint64_t Idle = 0;
  size_t I = size_t(std::upper_bound(Merged.begin(), Merged.end(), Start,
                                     [](uint64_t T, const BusyInterval &B) {
                                       return T < B.StartNs;
                                     }) -
                    Merged.begin());
  for (I = I > 0 ? I - 1 : 0; I + 1 < Merged.size() && Merged[I].EndNs < End;
       ++I) {
    uint64_t From = std::max(Merged[I].EndNs, Start);
    uint64_t To = std::min(Merged[I + 1].StartNs, End);
    if (To > From)
      Idle += To - From;
  }
  return Idle;
}

uint64_t overlapNs(uint64_t StartA, uint64_t EndA, uint64_t StartB,
                   uint64_t EndB) {
  uint64_t From = std::max(StartA, StartB), To = std::min(EndA, EndB);
  return To > From ? To - From : 0;
}

uint64_t busyWithin(const std::vector<BusyInterval> &Merged, uint64_t Start,
                    uint64_t End) {
  uint64_t Busy = 0;
  for (const BusyInterval &I : Merged) {
    uint64_t From = std::max(I.StartNs, Start);
    uint64_t To = std::min(I.EndNs, End);
    if (To > From)
      Busy += To - From;
  }
  return Busy;
}

} // namespace

xferbench::JsonValue summarize(const TraceInput &Input) {
  const TraceWindow &Window = Input.Window;
  const bool Sampled = !Input.Samples.empty();
  std::vector<BusyInterval> Merged = mergeBusy(Input.Busy);

  // The stretches the calls that count were entered in (the window, or the
  // sample's nominal windows inside it), and those where idle time is
  // charged (the window, or each window's whole recording).
  std::vector<TraceWindow> Counted, Charged;
  if (!Sampled) {
    Counted.push_back(Window);
    Charged.push_back(Window);
  } else {
    for (const SampleWindow &S : Input.Samples) {
      TraceWindow Nominal{std::max(S.StartNs, Window.StartNs),
                          std::min(S.EndNs, Window.EndNs)};
      if (Nominal.EndNs > Nominal.StartNs)
        Counted.push_back(Nominal);
      TraceWindow Recorded{std::max(S.RecordStartNs, Window.StartNs),
                           std::min(S.RecordEndNs, Window.EndNs)};
      if (Recorded.EndNs > Recorded.StartNs)
        Charged.push_back(Recorded);
    }
  }
  auto Counts = [&](const ApiCall &Call) {
    if (!Sampled)
      return Call.EnterNs >= Window.StartNs && Call.EnterNs <= Window.EndNs;
    auto After = std::upper_bound(
        Counted.begin(), Counted.end(), Call.EnterNs,
        [](uint64_t T, const TraceWindow &W) { return T < W.StartNs; });
    return After != Counted.begin() && Call.EnterNs <= (After - 1)->EndNs;
  };
  uint64_t CountedNs = 0;
  for (const TraceWindow &W : Counted)
    CountedNs += W.EndNs - W.StartNs;
  const uint64_t TracedNs =
      Window.EndNs > Window.StartNs ? Window.EndNs - Window.StartNs : 0;
  // Every figure is multiplied by this: 1 unless sampled.
  const double Scale =
      Sampled && CountedNs > 0 ? double(TracedNs) / double(CountedNs) : 1.0;
  auto ScaledUs = [&](uint64_t Ns) { return double(Ns) * Scale / 1000.0; };
  auto ScaledCount = [&](uint64_t N) -> unsigned long long {
    return Sampled ? (unsigned long long)std::llround(double(N) * Scale) : N;
  };

  // Calls in the window that may wait for the device and returned while it
  // was idle, by entry.
  std::vector<const ApiCall *> Blocking;
  for (const ApiCall &Call : Input.Calls) {
    if (Call.EnterNs < Window.StartNs || Call.EnterNs > Window.EndNs ||
        !Call.MayWaitForDevice)
      continue;
    auto After = std::upper_bound(
        Merged.begin(), Merged.end(), Call.ExitNs,
        [](uint64_t T, const BusyInterval &I) { return T < I.StartNs; });
    if (After != Merged.begin() && Call.ExitNs < (After - 1)->EndNs)
      continue; // returned while the device was still busy
    Blocking.push_back(&Call);
  }
  std::sort(Blocking.begin(), Blocking.end(),
            [](const ApiCall *A, const ApiCall *B) {
              return A->EnterNs < B->EnterNs;
            });
  // Each stretch of a gap goes to the blocking call entered last before it,
  // within the same recorded stretch.
  std::map<const ApiCall *, uint64_t> IdleByCall, IdleAfterByCall;
  auto Charge = [&](const ApiCall *Owner, uint64_t From, uint64_t To) {
    IdleByCall[Owner] += To - From;
    uint64_t Returned = std::clamp(Owner->ExitNs, From, To);
    IdleAfterByCall[Owner] += To - Returned;
  };
  for (const TraceWindow &Span : Charged) {
    size_t First = size_t(
        std::lower_bound(Blocking.begin(), Blocking.end(), Span.StartNs,
                         [](const ApiCall *C, uint64_t T) {
                           return C->EnterNs < T;
                         }) -
        Blocking.begin());
    size_t Next = First; // first blocking call entered after the current time
    size_t I = size_t(std::upper_bound(Merged.begin(), Merged.end(),
                                       Span.StartNs,
                                       [](uint64_t T, const BusyInterval &B) {
                                         return T < B.StartNs;
                                       }) -
                      Merged.begin());
    for (I = I > 0 ? I - 1 : 0;
         I + 1 < Merged.size() && Merged[I].EndNs < Span.EndNs; ++I) {
      uint64_t Start = std::max(Merged[I].EndNs, Span.StartNs);
      uint64_t End = std::min(Merged[I + 1].StartNs, Span.EndNs);
      if (End <= Start)
        continue;
      while (Next < Blocking.size() && Blocking[Next]->EnterNs <= Start)
        ++Next;
      uint64_t From = Start;
      const ApiCall *Owner = Next > First ? Blocking[Next - 1] : nullptr;
      while (Next < Blocking.size() && Blocking[Next]->EnterNs < End) {
        if (Owner)
          Charge(Owner, From, Blocking[Next]->EnterNs);
        From = Blocking[Next]->EnterNs;
        Owner = Blocking[Next++];
      }
      if (Owner)
        Charge(Owner, From, End);
    }
  }
  uint64_t WindowIdleNs = 0, WindowBusyNs = 0;
  for (const TraceWindow &W : Counted) {
    WindowIdleNs += idleWithin(Merged, W.StartNs, W.EndNs);
    WindowBusyNs += busyWithin(Merged, W.StartNs, W.EndNs);
  }

  std::map<std::string, SiteTotals> Sites;
  for (const ApiCall &Call : Input.Calls) {
    if (!Counts(Call))
      continue;
    const ResolvedSite &Site = Input.Stacks[Call.StackId];
    SiteTotals &Totals = Sites[siteKey(Site)];
    Totals.Site = &Site;
    uint64_t Blocked = Call.ExitNs > Call.EnterNs ? Call.ExitNs - Call.EnterNs : 0;
    Totals.BlockedNs += Blocked;
    ++Totals.ApiCalls;
    auto Idle = IdleByCall.find(&Call);
    if (Idle != IdleByCall.end())
      Totals.IdleNs += Idle->second;
    auto IdleAfter = IdleAfterByCall.find(&Call);
    if (IdleAfter != IdleAfterByCall.end())
      Totals.IdleAfterNs += IdleAfter->second;
    if (Call.StreamId >= 0)
      Totals.Streams.insert(Call.StreamId);
    // A copy may be filed under both the runtime call's id and its driver
    // call's: the same device interval is one copy.
    std::vector<const DeviceCopy *> Made;
    auto Collect = [&](const std::multimap<uint32_t, DeviceCopy> &Copies,
                       uint32_t Id) {
      auto Range = Copies.equal_range(Id);
      for (auto It = Range.first; It != Range.second; ++It) {
        const DeviceCopy &Copy = It->second;
        auto Same = [&](const DeviceCopy *Known) {
          return Known->StartNs == Copy.StartNs && Known->EndNs == Copy.EndNs &&
                 Known->StreamId == Copy.StreamId && Known->Bytes == Copy.Bytes;
        };
        if (std::none_of(Made.begin(), Made.end(), Same))
          Made.push_back(&Copy);
      }
    };
    Collect(Call.DriverDomain ? Input.DriverCopies : Input.RuntimeCopies,
            Call.CorrelationId);
    for (int I = 0; I < Call.DriverIdCount; ++I)
      Collect(Input.DriverCopies, Call.DriverIds[I]);
    uint64_t CopyInsideNs = 0;
    for (const DeviceCopy *CopyPtr : Made) {
      const DeviceCopy &Copy = *CopyPtr;
      uint64_t Inside =
          overlapNs(Copy.StartNs, Copy.EndNs, Call.EnterNs, Call.ExitNs);
      CopyInsideNs += Inside;
      Totals.CopyOutsideNs += (Copy.EndNs - Copy.StartNs) - Inside;
      Totals.Bytes += Copy.Bytes;
      Totals.CopyDeviceNs += Copy.EndNs - Copy.StartNs;
      Totals.Pageable |= Copy.HostPageable;
      Totals.Pinned |= Copy.HostPinned;
      Totals.Streams.insert(Copy.StreamId);
    }
    // Idle inside the call, within the stretch where idle time is seen (the
    // window, or the recording of the call's sample window).
    auto Span = std::upper_bound(
        Charged.begin(), Charged.end(), Call.EnterNs,
        [](uint64_t T, const TraceWindow &W) { return T < W.StartNs; });
    uint64_t IdleInsideNs =
        Span == Charged.begin()
            ? 0
            : idleWithin(Merged, Call.EnterNs,
                         std::min(Call.ExitNs, (Span - 1)->EndNs));
    Totals.OwnNs += std::min(Blocked, IdleInsideNs + CopyInsideNs);
    // A call that never waits is charged no idle; what it spent beside the
    // device's work delayed the host's next launch, so the first gap after
    // it returned is the idle its time caused.
    if (!Call.MayWaitForDevice && Span != Charged.begin()) {
      size_t Next =
          size_t(std::upper_bound(Merged.begin(), Merged.end(), Call.ExitNs,
                                  [](uint64_t T, const BusyInterval &B) {
                                    return T < B.StartNs;
                                  }) -
                 Merged.begin());
      if (Next > 0 && Next < Merged.size())
        Totals.IdleAfterNs +=
            overlapNs(std::max(Merged[Next - 1].EndNs, Call.ExitNs),
                      Merged[Next].StartNs, Call.ExitNs, (Span - 1)->EndNs);
    }
    std::string Path = Input.ApiNames[Call.ApiNameId];
    if (!Site.CalledFunction.empty())
      Path += " under " + Site.CalledFunction;
    auto &[PathCalls, PathBlocked] = Totals.Paths[Path];
    ++PathCalls;
    PathBlocked += Blocked;
  }

  std::vector<const SiteTotals *> Ordered;
  for (const auto &Entry : Sites)
    Ordered.push_back(&Entry.second);
  // Costliest first: the estimated saving, then what the host waited.
  std::stable_sort(Ordered.begin(), Ordered.end(),
                   [](const SiteTotals *A, const SiteTotals *B) {
                     return std::make_tuple(estimatedSavingNs(*A),
                                            A->BlockedNs) >
                            std::make_tuple(estimatedSavingNs(*B),
                                            B->BlockedNs);
                   });

  xferbench::JsonValue SiteArray = xferbench::JsonValue::array();
  for (const SiteTotals *Totals : Ordered) {
    const ResolvedSite &Site = *Totals->Site;
    xferbench::JsonValue Entry = xferbench::JsonValue::object();
    if (Site.File.empty()) {
      Entry.set("file", nullptr);
      Entry.set("line", nullptr);
    } else {
      Entry.set("file", Site.File);
      Entry.set("line", Site.Line);
    }
    Entry.set("function", Site.Function.empty() ? xferbench::JsonValue()
                                                 : Site.Function);
    // One user-level call issues several API calls (item(): a copy and a
    // stream synchronization); the busiest API path counts the user's calls.
    uint64_t UserCalls = 0;
    for (const auto &Path : Totals->Paths)
      UserCalls = std::max(UserCalls, Path.second.first);
    Entry.set("calls", ScaledCount(UserCalls));
    if (Sampled)
      Entry.set("sampledCalls", (unsigned long long)UserCalls);
    Entry.set("apiCalls", ScaledCount(Totals->ApiCalls));
    Entry.set("bytes", ScaledCount(Totals->Bytes));
    Entry.set("hostMemory", Totals->Pageable && Totals->Pinned ? "mixed"
                            : Totals->Pageable                ? "pageable"
                            : Totals->Pinned ? xferbench::JsonValue("pinned")
                                             : xferbench::JsonValue());
    xferbench::JsonValue Streams = xferbench::JsonValue::array();
    for (int64_t Stream : Totals->Streams)
      Streams.push((long long)Stream);
    Entry.set("streams", std::move(Streams));
    Entry.set("blockedMicroseconds", ScaledUs(Totals->BlockedNs));
    Entry.set("gpuIdleMicroseconds", ScaledUs(Totals->IdleNs));
    Entry.set("copyDeviceMicroseconds", ScaledUs(Totals->CopyDeviceNs));
    Entry.set("ownMicroseconds", ScaledUs(Totals->OwnNs));
    Entry.set("estimatedSavingMicroseconds",
              ScaledUs(estimatedSavingNs(*Totals)));
    xferbench::JsonValue Paths = xferbench::JsonValue::array();
    for (const auto &[Path, Figures] : Totals->Paths) {
      xferbench::JsonValue P = xferbench::JsonValue::object();
      P.set("path", Path);
      P.set("calls", ScaledCount(Figures.first));
      P.set("blockedMicroseconds", ScaledUs(Figures.second));
      Paths.push(std::move(P));
    }
    Entry.set("apiPaths", std::move(Paths));
    SiteArray.push(std::move(Entry));
  }

  xferbench::JsonValue Summary = xferbench::JsonValue::object();
  Summary.set("tracedMicroseconds", toUs(TracedNs));
  if (Sampled)
    Summary.set("sampledMicroseconds", toUs(CountedNs));
  Summary.set("gpuBusyMicroseconds", ScaledUs(WindowBusyNs));
  Summary.set("gpuIdleMicroseconds", ScaledUs(WindowIdleNs));
  Summary.set("sites", std::move(SiteArray));
  return Summary;
}

} // namespace xfertrace
