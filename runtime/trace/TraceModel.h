//===- TraceModel.h - What the collector records and how it adds up -*- C++ -*-===//
//
// Part of xfer-tidy. Host-only.
//
//===----------------------------------------------------------------------===//
//
// The collector records raw facts while the program runs (API calls that
// block or copy, with the stack they came from, and the device's busy
// intervals) and turns them into per-site figures once, at exit. Keeping the
// arithmetic here, away from CUPTI, lets it be read and tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TRACE_TRACEMODEL_H
#define XFER_TRACE_TRACEMODEL_H

#include "benchcore/JsonValue.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace xfertrace {

/// One host call of a blocking or copying CUDA API, outermost only (a
/// driver call made inside a runtime call is not recorded again).
struct ApiCall {
  uint32_t StackId = 0;
  uint32_t ApiNameId = 0;
  /// CUPTI correlation id of the call in its domain.
  uint32_t CorrelationId = 0;
  bool DriverDomain = false;
  /// Correlation ids of the driver copies a runtime call made: device copy
  /// records carry the driver call's id.
  static constexpr int MaxDriverIds = 4;
  uint32_t DriverIds[MaxDriverIds] = {};
  uint8_t DriverIdCount = 0;
  uint64_t EnterNs = 0;
  uint64_t ExitNs = 0;
  /// Stream synchronized, or -1 (device-wide or not a stream call).
  int64_t StreamId = -1;
  /// False for APIs that never wait for the device (allocations): such a
  /// call cannot have let the device run dry, so no idle time is charged to
  /// it after it returns.
  bool MayWaitForDevice = true;
};

/// A copy the device executed, from CUPTI's memcpy activity records.
struct DeviceCopy {
  uint64_t Bytes = 0;
  uint64_t StartNs = 0;
  uint64_t EndNs = 0;
  uint32_t StreamId = 0;
  bool HostPageable = false;
  bool HostPinned = false;
};

struct BusyInterval {
  uint64_t StartNs = 0;
  uint64_t EndNs = 0;
};

/// Where a recorded stack comes from: the first frame in the user's code
/// (file empty when none has line information) and the API path, e.g.
/// "cudaStreamSynchronize under at::Tensor::item<float>".
struct ResolvedSite {
  std::string File;
  unsigned Line = 0;
  std::string Function;
  /// The outermost library function the user's code called, if any.
  std::string CalledFunction;
};

struct TraceWindow {
  uint64_t StartNs = 0;
  uint64_t EndNs = 0;
};

/// One window of a sampled trace (--sample): the collector recorded calls
/// and device activity from RecordStartNs to RecordEndNs; the calls that
/// count are those entered from StartNs to EndNs (the nominal window, a
/// fixed share of every period). Before it, a lead lets the device's work
/// already queued show up as busy; after it, recording goes on until the
/// first synchronizing call entered after EndNs has returned, so the GPU
/// idle time charged to the window's last calls is seen whole.
struct SampleWindow {
  uint64_t RecordStartNs = 0;
  uint64_t StartNs = 0;
  uint64_t EndNs = 0;
  uint64_t RecordEndNs = 0;
};

struct TraceInput {
  std::vector<ApiCall> Calls;
  std::vector<std::string> ApiNames;
  std::vector<ResolvedSite> Stacks; ///< indexed by ApiCall::StackId
  std::vector<BusyInterval> Busy;   ///< kernels, copies and sets
  /// Copies by the correlation id of the API call that issued them.
  std::multimap<uint32_t, DeviceCopy> RuntimeCopies;
  std::multimap<uint32_t, DeviceCopy> DriverCopies;
  TraceWindow Window;
  /// Empty: every call in the window was recorded. Otherwise the sample's
  /// windows, in time order, and every figure is scaled by the traced time
  /// over the time the nominal windows cover (see summarize()).
  std::vector<SampleWindow> Samples;
};

/// The "sites" array and totals of trace.json (schema in README.md):
/// per user call site, calls, bytes, host time blocked, GPU idle time that
/// followed, host memory kind, streams and API paths, costliest first.
///
/// GPU idle: the device's busy intervals (all streams) are merged. A call
/// that may wait for the device and returns while the device is idle
/// blocked the host on it; every gap (or the part of it) after such a call
/// entered and before the next one entered is charged to it: the device ran
/// dry because the host waited there, and stays dry until the host queues
/// work again.
///
/// Estimated saving of fixing a site. A call's host time splits into its
/// own time, while the device was idle or ran only this call's copies
/// (staging pageable memory, the driver, an allocation), and the rest,
/// spent while the device ran earlier work (waiting for it). During its own
/// time both the host and the device were held by the call alone, so
/// removing the call saves it whether the loop is host- or device-bound.
/// The rest is saved only as far as the device was idle because of the
/// wait: the GPU idle time charged to the call after it returned, plus the
/// device time of its copies outside the call (for an allocation, which is
/// charged no idle: the first gap after it returned). Per site:
///   own + min(blocked - own, idle after return + copies outside the call).
/// For a blocking call whose copies run inside it, this is min(blocked,
/// GPU idle charged + copy time), the figure before the split; it adds the
/// own time of calls charged no idle: one that returns while its own last
/// copy still runs (a pageable upload), or an allocation.
///
/// Sampled traces: a call counts when it entered inside a nominal window;
/// windows start at a random phase, so each call counts with probability
/// (window / period) and the counts and times, multiplied by the traced
/// time over the sampled time ("calls" rounded), estimate the whole run
/// without bias. GPU idle is charged within each recorded window only, to
/// calls entered in that window, so the time between windows (nothing
/// recorded) is never taken for idle time. "sampledCalls" keeps the
/// calls actually recorded.
xferbench::JsonValue summarize(const TraceInput &Input);

} // namespace xfertrace

#endif // XFER_TRACE_TRACEMODEL_H
