//===- TraceModel.cpp - What the collector records and how it adds up -----===//
//
// Part of xfer-tidy. Host-only.
//
//===----------------------------------------------------------------------===//

#include "trace/TraceModel.h"

#include <algorithm>
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
  uint64_t Bytes = 0;
  uint64_t ApiCalls = 0;
  bool Pageable = false;
  bool Pinned = false;
  std::set<int64_t> Streams;
  /// Per API path: calls and host time blocked.
  std::map<std::string, std::pair<uint64_t, uint64_t>> Paths;
};

uint64_t estimatedSavingNs(const SiteTotals &T) {
  return std::min(T.BlockedNs, T.IdleNs + T.CopyDeviceNs);
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

} // namespace

xferbench::JsonValue summarize(const TraceInput &Input) {
  const TraceWindow &Window = Input.Window;
  std::vector<BusyInterval> Merged = mergeBusy(Input.Busy);

  // Calls in the window that returned while the device was idle, by entry.
  std::vector<const ApiCall *> Blocking;
  for (const ApiCall &Call : Input.Calls) {
    if (Call.EnterNs < Window.StartNs || Call.EnterNs > Window.EndNs)
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
  // Each stretch of a gap goes to the blocking call entered last before it.
  std::map<const ApiCall *, uint64_t> IdleByCall;
  uint64_t WindowIdleNs = 0, WindowBusyNs = 0;
  size_t Next = 0; // first blocking call entered after the current time
  for (size_t I = 0; I + 1 < Merged.size(); ++I) {
    uint64_t Start = std::max(Merged[I].EndNs, Window.StartNs);
    uint64_t End = std::min(Merged[I + 1].StartNs, Window.EndNs);
    if (End <= Start)
      continue;
    WindowIdleNs += End - Start;
    while (Next < Blocking.size() && Blocking[Next]->EnterNs <= Start)
      ++Next;
    uint64_t From = Start;
    const ApiCall *Owner = Next > 0 ? Blocking[Next - 1] : nullptr;
    while (Next < Blocking.size() && Blocking[Next]->EnterNs < End) {
      if (Owner)
        IdleByCall[Owner] += Blocking[Next]->EnterNs - From;
      From = Blocking[Next]->EnterNs;
      Owner = Blocking[Next++];
    }
    if (Owner)
      IdleByCall[Owner] += End - From;
  }
  for (const BusyInterval &I : Merged) {
    uint64_t Start = std::max(I.StartNs, Window.StartNs);
    uint64_t End = std::min(I.EndNs, Window.EndNs);
    if (End > Start)
      WindowBusyNs += End - Start;
  }

  std::map<std::string, SiteTotals> Sites;
  for (const ApiCall &Call : Input.Calls) {
    if (Call.EnterNs < Window.StartNs || Call.EnterNs > Window.EndNs)
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
    for (const DeviceCopy *CopyPtr : Made) {
      const DeviceCopy &Copy = *CopyPtr;
      Totals.Bytes += Copy.Bytes;
      Totals.CopyDeviceNs += Copy.EndNs - Copy.StartNs;
      Totals.Pageable |= Copy.HostPageable;
      Totals.Pinned |= Copy.HostPinned;
      Totals.Streams.insert(Copy.StreamId);
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
    Entry.set("calls", (unsigned long long)UserCalls);
    Entry.set("apiCalls", (unsigned long long)Totals->ApiCalls);
    Entry.set("bytes", (unsigned long long)Totals->Bytes);
    Entry.set("hostMemory", Totals->Pageable && Totals->Pinned ? "mixed"
                            : Totals->Pageable                ? "pageable"
                            : Totals->Pinned ? xferbench::JsonValue("pinned")
                                             : xferbench::JsonValue());
    xferbench::JsonValue Streams = xferbench::JsonValue::array();
    for (int64_t Stream : Totals->Streams)
      Streams.push((long long)Stream);
    Entry.set("streams", std::move(Streams));
    Entry.set("blockedMicroseconds", toUs(Totals->BlockedNs));
    Entry.set("gpuIdleMicroseconds", toUs(Totals->IdleNs));
    Entry.set("copyDeviceMicroseconds", toUs(Totals->CopyDeviceNs));
    Entry.set("estimatedSavingMicroseconds", toUs(estimatedSavingNs(*Totals)));
    xferbench::JsonValue Paths = xferbench::JsonValue::array();
    for (const auto &[Path, Figures] : Totals->Paths) {
      xferbench::JsonValue P = xferbench::JsonValue::object();
      P.set("path", Path);
      P.set("calls", (unsigned long long)Figures.first);
      P.set("blockedMicroseconds", toUs(Figures.second));
      Paths.push(std::move(P));
    }
    Entry.set("apiPaths", std::move(Paths));
    SiteArray.push(std::move(Entry));
  }

  xferbench::JsonValue Summary = xferbench::JsonValue::object();
  Summary.set("tracedMicroseconds",
              toUs(Window.EndNs > Window.StartNs ? Window.EndNs - Window.StartNs
                                                 : 0));
  Summary.set("gpuBusyMicroseconds", toUs(WindowBusyNs));
  Summary.set("gpuIdleMicroseconds", toUs(WindowIdleNs));
  Summary.set("sites", std::move(SiteArray));
  return Summary;
}

} // namespace xfertrace
