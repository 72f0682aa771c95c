//===--- TraceModelTest.cpp - xfer-trace's arithmetic, without a GPU ------===//
//
// summarize() on hand-built traces: GPU idle time charged to the blocking
// call entered last, the estimated saving per site (a call's own host time
// and the idle its wait caused), copies attributed
// through runtime and driver correlation ids, the window, and the ranking.
// Times are whole microseconds, so every figure is exact.
//
//===----------------------------------------------------------------------===//

#include "trace/TraceModel.h"

#include "llvm/Support/JSON.h"
#include "gtest/gtest.h"

#include <string>

namespace {

using xfertrace::ApiCall;
using xfertrace::DeviceCopy;
using xfertrace::ResolvedSite;
using xfertrace::TraceInput;

constexpr uint64_t us(uint64_t Microseconds) { return Microseconds * 1000; }

/// Builds a trace: sites by line of train.cpp, calls, busy intervals.
class Trace {
public:
  Trace() {
    Input.Window = {us(0), us(1000)};
    Input.ApiNames = {"cudaMemcpy", "cudaStreamSynchronize", "cudaMemcpyAsync",
                      "cudaMalloc"};
  }

  /// A stack whose first user frame is train.cpp:\p Line.
  uint32_t site(unsigned Line, std::string CalledFunction = "") {
    ResolvedSite Site;
    Site.File = "/src/train.cpp";
    Site.Line = Line;
    Site.Function = "train";
    Site.CalledFunction = std::move(CalledFunction);
    Input.Stacks.push_back(Site);
    return uint32_t(Input.Stacks.size() - 1);
  }

  ApiCall &call(uint32_t Stack, uint32_t ApiName, uint64_t EnterUs,
                uint64_t ExitUs) {
    ApiCall Call;
    Call.StackId = Stack;
    Call.ApiNameId = ApiName;
    Call.CorrelationId = uint32_t(Input.Calls.size() + 1);
    Call.EnterNs = us(EnterUs);
    Call.ExitNs = us(ExitUs);
    Input.Calls.push_back(Call);
    return Input.Calls.back();
  }

  void kernel(uint64_t StartUs, uint64_t EndUs) {
    Input.Busy.push_back({us(StartUs), us(EndUs)});
  }

  /// A copy the device executed for the runtime call \p Call (busy too).
  DeviceCopy copy(uint64_t StartUs, uint64_t EndUs, uint64_t Bytes,
                  bool Pageable) {
    kernel(StartUs, EndUs);
    DeviceCopy Copy;
    Copy.Bytes = Bytes;
    Copy.StartNs = us(StartUs);
    Copy.EndNs = us(EndUs);
    Copy.StreamId = 7;
    Copy.HostPageable = Pageable;
    Copy.HostPinned = !Pageable;
    return Copy;
  }

  llvm::json::Object summary() const {
    std::string Text = xfertrace::summarize(Input).serialize();
    llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(Text);
    if (!Parsed) {
      ADD_FAILURE() << llvm::toString(Parsed.takeError()) << "\n" << Text;
      return {};
    }
    return *Parsed->getAsObject();
  }

  TraceInput Input;
};

double number(const llvm::json::Object &Object, llvm::StringRef Key) {
  std::optional<double> Value = Object.getNumber(Key);
  EXPECT_TRUE(Value.has_value()) << Key.str();
  return Value.value_or(-1);
}

const llvm::json::Array &sites(const llvm::json::Object &Summary) {
  static const llvm::json::Array None;
  const llvm::json::Array *Sites = Summary.getArray("sites");
  EXPECT_NE(Sites, nullptr);
  return Sites ? *Sites : None;
}

/// The site of train.cpp:\p Line in \p Summary.
llvm::json::Object siteAt(const llvm::json::Object &Summary, unsigned Line) {
  for (const llvm::json::Value &Site : sites(Summary))
    if (Site.getAsObject()->getInteger("line") == int64_t(Line))
      return *Site.getAsObject();
  ADD_FAILURE() << "no site at line " << Line;
  return {};
}

std::vector<int64_t> rankedLines(const llvm::json::Object &Summary) {
  std::vector<int64_t> Lines;
  for (const llvm::json::Value &Site : sites(Summary))
    Lines.push_back(Site.getAsObject()->getInteger("line").value_or(-1));
  return Lines;
}

TEST(TraceModelTest, CopyFollowedImmediatelyByGpuWorkChargesNoIdle) {
  Trace T;
  T.kernel(0, 100);
  T.Input.RuntimeCopies.emplace(1, T.copy(100, 110, 4, /*Pageable=*/true));
  T.kernel(110, 200);
  // Returns while the next kernel already runs: the device never waited.
  T.call(T.site(10), 0, 20, 111);
  llvm::json::Object Summary = T.summary();
  EXPECT_EQ(number(Summary, "gpuIdleMicroseconds"), 0);
  EXPECT_EQ(number(Summary, "gpuBusyMicroseconds"), 200);
  EXPECT_EQ(number(Summary, "tracedMicroseconds"), 1000);
  llvm::json::Object Site = siteAt(Summary, 10);
  EXPECT_EQ(number(Site, "blockedMicroseconds"), 91);
  EXPECT_EQ(number(Site, "gpuIdleMicroseconds"), 0);
  EXPECT_EQ(number(Site, "copyDeviceMicroseconds"), 10);
  // Nothing waited on the device: only the copy itself could be saved.
  EXPECT_EQ(number(Site, "estimatedSavingMicroseconds"), 10);
  EXPECT_EQ(number(Site, "bytes"), 4);
  EXPECT_EQ(Site.getString("hostMemory"), "pageable");
  EXPECT_EQ(number(Site, "calls"), 1);
}

TEST(TraceModelTest, CopyThenIdleDeviceChargesTheGapToTheCopy) {
  Trace T;
  T.kernel(0, 100);
  T.Input.RuntimeCopies.emplace(1, T.copy(100, 110, 4, /*Pageable=*/true));
  T.kernel(130, 200);
  T.call(T.site(10), 0, 20, 112);
  llvm::json::Object Summary = T.summary();
  EXPECT_EQ(number(Summary, "gpuIdleMicroseconds"), 20);
  llvm::json::Object Site = siteAt(Summary, 10);
  EXPECT_EQ(number(Site, "blockedMicroseconds"), 92);
  EXPECT_EQ(number(Site, "gpuIdleMicroseconds"), 20);
  // min(blocked 92, idle 20 + copy 10).
  EXPECT_EQ(number(Site, "estimatedSavingMicroseconds"), 30);
}

TEST(TraceModelTest, PageableUploadReturningBusyStillSavesItsHostTime) {
  Trace T;
  T.kernel(0, 10);
  T.call(T.site(9), 1, 5, 10); // a synchronization drains the device
  // A pageable upload stages its data while the device idles, and returns
  // while the DMA of its last chunk still runs (then the next kernel).
  T.call(T.site(10), 0, 20, 120);
  T.Input.RuntimeCopies.emplace(2, T.copy(100, 125, 1 << 20, true));
  T.kernel(125, 200);
  llvm::json::Object Summary = T.summary();
  llvm::json::Object Upload = siteAt(Summary, 10);
  EXPECT_EQ(number(Upload, "blockedMicroseconds"), 100);
  // Not a blocking call: no idle is charged to it.
  EXPECT_EQ(number(Upload, "gpuIdleMicroseconds"), 0);
  EXPECT_EQ(number(Upload, "copyDeviceMicroseconds"), 25);
  // Idle 20..100 and its copy 100..120: all its host time is its own.
  EXPECT_EQ(number(Upload, "ownMicroseconds"), 100);
  // 100 + min(0 waited, 5 of copy after it returned).
  EXPECT_EQ(number(Upload, "estimatedSavingMicroseconds"), 100);
  // The synchronization keeps the idle after it, upload included.
  llvm::json::Object Sync = siteAt(Summary, 9);
  EXPECT_EQ(number(Sync, "gpuIdleMicroseconds"), 90);
  EXPECT_EQ(number(Sync, "ownMicroseconds"), 0);
  EXPECT_EQ(number(Sync, "estimatedSavingMicroseconds"), 5);
  EXPECT_EQ(rankedLines(Summary), (std::vector<int64_t>{10, 9}));
}

TEST(TraceModelTest, WaitingForEarlierWorkIsNotTheCallsOwnTime) {
  Trace T;
  T.kernel(0, 100);
  T.Input.RuntimeCopies.emplace(1, T.copy(100, 110, 4, /*Pageable=*/false));
  T.kernel(140, 200);
  T.call(T.site(10), 0, 20, 130);
  llvm::json::Object Site = siteAt(T.summary(), 10);
  EXPECT_EQ(number(Site, "blockedMicroseconds"), 110);
  // Its copy 100..110 and the idle 110..130; not the 80 waited for the
  // kernel.
  EXPECT_EQ(number(Site, "ownMicroseconds"), 30);
  EXPECT_EQ(number(Site, "gpuIdleMicroseconds"), 30);
  // 30 + min(80 waited, 10 idle after it returned).
  EXPECT_EQ(number(Site, "estimatedSavingMicroseconds"), 40);
}

TEST(TraceModelTest, AllocationsOwnTheirIdleTimeButNotTheIdleAfter) {
  Trace T;
  T.kernel(0, 100);
  T.call(T.site(10), 1, 50, 100); // blocking
  // An allocation returning while the device idles never waited for it.
  T.call(T.site(11), 3, 110, 130).MayWaitForDevice = false;
  T.kernel(150, 200);
  llvm::json::Object Summary = T.summary();
  llvm::json::Object Sync = siteAt(Summary, 10);
  llvm::json::Object Alloc = siteAt(Summary, 11);
  // The gap after the synchronization stays its own, up to the kernel.
  EXPECT_EQ(number(Sync, "gpuIdleMicroseconds"), 50);
  EXPECT_EQ(number(Sync, "estimatedSavingMicroseconds"), 50);
  EXPECT_EQ(number(Alloc, "gpuIdleMicroseconds"), 0);
  EXPECT_EQ(number(Alloc, "ownMicroseconds"), 20);
  EXPECT_EQ(number(Alloc, "estimatedSavingMicroseconds"), 20);
}

TEST(TraceModelTest, AnAllocationBesideDeviceWorkSavesTheIdleItDelayed) {
  Trace T;
  T.kernel(0, 100);
  T.call(T.site(11), 3, 80, 120).MayWaitForDevice = false;
  T.kernel(150, 200);
  T.kernel(210, 300);
  llvm::json::Object Site = siteAt(T.summary(), 11);
  EXPECT_EQ(number(Site, "blockedMicroseconds"), 40);
  EXPECT_EQ(number(Site, "ownMicroseconds"), 20);
  EXPECT_EQ(number(Site, "gpuIdleMicroseconds"), 0);
  // 20 + min(20 beside the kernel, 30 of the first gap after it returned;
  // not the later gap).
  EXPECT_EQ(number(Site, "estimatedSavingMicroseconds"), 40);
}

TEST(TraceModelTest, AnAllocationWhileTheDeviceStaysBusySavesNothing) {
  Trace T;
  T.kernel(0, 200);
  T.call(T.site(11), 3, 50, 80).MayWaitForDevice = false;
  // Work was queued before the device finished: the host was not late.
  T.kernel(200, 300);
  llvm::json::Object Site = siteAt(T.summary(), 11);
  EXPECT_EQ(number(Site, "blockedMicroseconds"), 30);
  EXPECT_EQ(number(Site, "ownMicroseconds"), 0);
  EXPECT_EQ(number(Site, "gpuIdleMicroseconds"), 0);
  EXPECT_EQ(number(Site, "estimatedSavingMicroseconds"), 0);
}

TEST(TraceModelTest, TwoBlockingCallsBetweenGpuWorkSplitTheGap) {
  Trace T;
  T.kernel(0, 100);
  T.call(T.site(10), 1, 10, 102).StreamId = 7;
  T.call(T.site(11), 1, 105, 108);
  T.kernel(120, 200);
  llvm::json::Object Summary = T.summary();
  EXPECT_EQ(number(Summary, "gpuIdleMicroseconds"), 20);
  llvm::json::Object First = siteAt(Summary, 10);
  llvm::json::Object Second = siteAt(Summary, 11);
  // The first owns the gap until the second is entered.
  EXPECT_EQ(number(First, "gpuIdleMicroseconds"), 5);
  EXPECT_EQ(number(Second, "gpuIdleMicroseconds"), 15);
  EXPECT_EQ(number(First, "estimatedSavingMicroseconds"), 5);
  // The second blocked 3 µs: no fix saves more than that.
  EXPECT_EQ(number(Second, "estimatedSavingMicroseconds"), 3);
  EXPECT_EQ(rankedLines(Summary), (std::vector<int64_t>{10, 11}));
  const llvm::json::Array *Streams = First.getArray("streams");
  ASSERT_NE(Streams, nullptr);
  ASSERT_EQ(Streams->size(), 1u);
  EXPECT_EQ((*Streams)[0].getAsInteger(), 7);
}

TEST(TraceModelTest, IdleGoesToTheLastBlockingCallNotToCallsThatReturnBusy) {
  Trace T;
  T.kernel(0, 100);
  T.call(T.site(10), 1, 10, 101); // blocking
  T.kernel(110, 200);
  T.call(T.site(11), 0, 120, 130); // returns while the kernel runs
  T.kernel(250, 300);
  llvm::json::Object Summary = T.summary();
  EXPECT_EQ(number(Summary, "gpuIdleMicroseconds"), 60);
  // Both gaps, the launch-bound one after the second kernel included.
  EXPECT_EQ(number(siteAt(Summary, 10), "gpuIdleMicroseconds"), 60);
  EXPECT_EQ(number(siteAt(Summary, 10), "estimatedSavingMicroseconds"), 60);
  EXPECT_EQ(number(siteAt(Summary, 11), "gpuIdleMicroseconds"), 0);
  EXPECT_EQ(number(siteAt(Summary, 11), "blockedMicroseconds"), 10);
  EXPECT_EQ(number(siteAt(Summary, 11), "estimatedSavingMicroseconds"), 0);
}

TEST(TraceModelTest, ReturningAsTheDeviceFinishesIsBlocking) {
  Trace T;
  T.kernel(0, 100);
  T.call(T.site(10), 1, 50, 100); // returns at the kernel's end
  T.kernel(140, 200);
  llvm::json::Object Site = siteAt(T.summary(), 10);
  EXPECT_EQ(number(Site, "gpuIdleMicroseconds"), 40);
  EXPECT_EQ(number(Site, "estimatedSavingMicroseconds"), 40);
}

TEST(TraceModelTest, GapsWithoutAnEarlierBlockingCallAreChargedToNobody) {
  Trace T;
  T.kernel(0, 100);
  T.kernel(150, 200);
  T.call(T.site(10), 1, 160, 170); // busy at return
  T.call(T.site(11), 1, 205, 210); // blocking, but no work follows
  llvm::json::Object Summary = T.summary();
  // The gap counts in the total; the idle time after the last interval
  // does not.
  EXPECT_EQ(number(Summary, "gpuIdleMicroseconds"), 50);
  EXPECT_EQ(number(siteAt(Summary, 10), "gpuIdleMicroseconds"), 0);
  EXPECT_EQ(number(siteAt(Summary, 11), "gpuIdleMicroseconds"), 0);
  EXPECT_EQ(number(siteAt(Summary, 11), "estimatedSavingMicroseconds"), 0);
}

TEST(TraceModelTest, TheWindowClipsCallsGapsAndBusyTime) {
  Trace T;
  T.Input.Window = {us(50), us(130)};
  T.kernel(0, 100);
  T.call(T.site(9), 1, 20, 30);   // entered before the window
  T.call(T.site(10), 1, 60, 101); // blocking, in the window
  T.kernel(150, 300);
  T.call(T.site(11), 1, 140, 150); // entered after the window
  llvm::json::Object Summary = T.summary();
  EXPECT_EQ(number(Summary, "tracedMicroseconds"), 80);
  EXPECT_EQ(number(Summary, "gpuBusyMicroseconds"), 50);
  EXPECT_EQ(number(Summary, "gpuIdleMicroseconds"), 30);
  EXPECT_EQ(rankedLines(Summary), (std::vector<int64_t>{10}));
  EXPECT_EQ(number(siteAt(Summary, 10), "gpuIdleMicroseconds"), 30);
  EXPECT_EQ(number(siteAt(Summary, 10), "estimatedSavingMicroseconds"), 30);
}

TEST(TraceModelTest, EqualSavingsRankByTimeBlocked) {
  Trace T;
  T.kernel(0, 1000);
  T.call(T.site(20), 1, 10, 15);
  T.call(T.site(21), 1, 20, 29);
  T.call(T.site(22), 1, 40, 42);
  llvm::json::Object Summary = T.summary();
  for (unsigned Line : {20, 21, 22})
    EXPECT_EQ(number(siteAt(Summary, Line), "estimatedSavingMicroseconds"), 0);
  EXPECT_EQ(rankedLines(Summary), (std::vector<int64_t>{21, 20, 22}));
}

TEST(TraceModelTest, SavingRanksAboveTimeBlocked) {
  Trace T;
  T.kernel(0, 100);
  T.call(T.site(30), 1, 10, 101); // blocked 91, idle 5 after it
  T.kernel(105, 200);
  T.call(T.site(31), 1, 150, 200); // blocked 50, idle 20 after it
  T.kernel(220, 300);
  llvm::json::Object Summary = T.summary();
  EXPECT_EQ(number(siteAt(Summary, 30), "estimatedSavingMicroseconds"), 5);
  EXPECT_EQ(number(siteAt(Summary, 31), "estimatedSavingMicroseconds"), 20);
  EXPECT_EQ(rankedLines(Summary), (std::vector<int64_t>{31, 30}));
}

TEST(TraceModelTest, StacksOfOneLineAreOneSiteCountedInUserCalls) {
  Trace T;
  const char *Item = "at::Tensor::item<float>";
  // item() from two paths of the same line: a copy and a synchronization
  // each.
  uint32_t Stacks[] = {T.site(34, Item), T.site(34, Item)};
  for (int Call = 0; Call < 2; ++Call) {
    uint64_t Start = 100 * uint64_t(Call);
    T.call(Stacks[Call], 2, Start + 10, Start + 12);
    T.call(Stacks[Call], 1, Start + 12, Start + 20);
  }
  T.kernel(0, 1000);
  llvm::json::Object Summary = T.summary();
  ASSERT_EQ(sites(Summary).size(), 1u);
  llvm::json::Object Site = siteAt(Summary, 34);
  EXPECT_EQ(number(Site, "calls"), 2);
  EXPECT_EQ(number(Site, "apiCalls"), 4);
  EXPECT_EQ(number(Site, "blockedMicroseconds"), 20);
  const llvm::json::Array *Paths = Site.getArray("apiPaths");
  ASSERT_NE(Paths, nullptr);
  ASSERT_EQ(Paths->size(), 2u);
  const llvm::json::Object &Copy = *(*Paths)[0].getAsObject();
  const llvm::json::Object &Sync = *(*Paths)[1].getAsObject();
  EXPECT_EQ(Copy.getString("path"),
            "cudaMemcpyAsync under at::Tensor::item<float>");
  EXPECT_EQ(number(Copy, "calls"), 2);
  EXPECT_EQ(number(Copy, "blockedMicroseconds"), 4);
  EXPECT_EQ(Sync.getString("path"),
            "cudaStreamSynchronize under at::Tensor::item<float>");
  EXPECT_EQ(number(Sync, "blockedMicroseconds"), 16);
}

TEST(TraceModelTest, CopiesOfARuntimeCallCountOnceWhicheverIdFilesThem) {
  Trace T;
  ApiCall &Call = T.call(T.site(40), 0, 10, 400);
  Call.DriverIds[Call.DriverIdCount++] = 900;
  Call.DriverIds[Call.DriverIdCount++] = 901;
  DeviceCopy Pinned = T.copy(20, 120, 1 << 20, /*Pageable=*/false);
  DeviceCopy Pageable = T.copy(150, 350, 4 << 20, /*Pageable=*/true);
  // The first copy is filed under the runtime call and its driver call.
  T.Input.RuntimeCopies.emplace(Call.CorrelationId, Pinned);
  T.Input.DriverCopies.emplace(900, Pinned);
  T.Input.DriverCopies.emplace(901, Pageable);
  // Another call's copy, with the runtime call's id in the driver domain.
  T.Input.DriverCopies.emplace(Call.CorrelationId, T.copy(500, 510, 8, true));
  llvm::json::Object Site = siteAt(T.summary(), 40);
  EXPECT_EQ(number(Site, "bytes"), (1 << 20) + (4 << 20));
  EXPECT_EQ(number(Site, "copyDeviceMicroseconds"), 300);
  EXPECT_EQ(Site.getString("hostMemory"), "mixed");
}

TEST(TraceModelTest, SitesWithoutUserFramesStayApartByLibraryFunction) {
  Trace T;
  ResolvedSite Worker;
  Worker.CalledFunction = "c10::cuda::CUDACachingAllocator::free";
  T.Input.Stacks.push_back(Worker);
  Worker.CalledFunction = "at::native::copy_";
  T.Input.Stacks.push_back(Worker);
  T.kernel(0, 1000);
  T.call(0, 0, 10, 20);
  T.call(1, 0, 30, 35);
  llvm::json::Object Summary = T.summary();
  ASSERT_EQ(sites(Summary).size(), 2u);
  for (const llvm::json::Value &Site : sites(Summary)) {
    EXPECT_EQ(Site.getAsObject()->get("file")->kind(),
              llvm::json::Value::Null);
    EXPECT_EQ(Site.getAsObject()->get("line")->kind(),
              llvm::json::Value::Null);
  }
}

TEST(TraceModelTest, NoCallsNoSites) {
  Trace T;
  T.kernel(0, 100);
  T.kernel(200, 300);
  llvm::json::Object Summary = T.summary();
  EXPECT_TRUE(sites(Summary).empty());
  EXPECT_EQ(number(Summary, "gpuIdleMicroseconds"), 100);
  EXPECT_EQ(number(Summary, "gpuBusyMicroseconds"), 200);
}

} // namespace

namespace {

// A sampled trace (--sample): only calls entered in a nominal window count,
// idle time is charged within each window's recording only (never across
// the unrecorded time between windows), and every figure is scaled by the
// traced time over the time the windows cover (here 1000 / 200 = 5).
TEST(TraceModelTest, SampledTraceCountsWindowsAndScales) {
  Trace T;
  T.Input.Samples = {{us(90), us(100), us(200), us(230)},
                     {us(590), us(600), us(700), us(730)}};
  T.kernel(100, 140);
  T.kernel(600, 640);
  T.kernel(900, 950);
  uint32_t Site = T.site(10);
  T.call(Site, 0, 150, 160); // in the first window, the device idle
  T.call(Site, 0, 400, 410); // between windows: not recorded
  T.call(Site, 0, 650, 655); // in the second window
  llvm::json::Object Summary = T.summary();
  EXPECT_EQ(number(Summary, "tracedMicroseconds"), 1000);
  EXPECT_EQ(number(Summary, "sampledMicroseconds"), 200);
  EXPECT_EQ(number(Summary, "gpuBusyMicroseconds"), 400);
  EXPECT_EQ(number(Summary, "gpuIdleMicroseconds"), 600);
  llvm::json::Object Sampled = siteAt(Summary, 10);
  EXPECT_EQ(number(Sampled, "sampledCalls"), 2);
  EXPECT_EQ(number(Sampled, "calls"), 10);
  EXPECT_EQ(number(Sampled, "blockedMicroseconds"), 75);
  // 80 µs to the end of each window's recording, not the 450 µs gap to the
  // next busy interval.
  EXPECT_EQ(number(Sampled, "gpuIdleMicroseconds"), 800);
  EXPECT_EQ(number(Sampled, "estimatedSavingMicroseconds"), 75);
  // Idle inside the calls, 10 and 5, scaled.
  EXPECT_EQ(number(Sampled, "ownMicroseconds"), 75);

  // The same calls without sampling: every call counts, nothing is scaled.
  T.Input.Samples.clear();
  llvm::json::Object Whole = siteAt(T.summary(), 10);
  EXPECT_EQ(number(Whole, "calls"), 3);
  EXPECT_EQ(number(Whole, "blockedMicroseconds"), 25);
  EXPECT_EQ(Whole.get("sampledCalls"), nullptr);
}

} // namespace
