//===- TraceCollector.cpp - CUPTI collector injected into the program -----===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// Loaded by the CUDA driver through CUDA_INJECTION64_PATH (xfer-trace sets
// it), so neither the program nor LibTorch needs rebuilding. Records:
//  - every outermost call of a CUDA runtime or driver API that blocks the
//    host, copies or allocates (callback API), with its stack, captured on
//    entry so the unwinding overlaps the wait it precedes;
//  - the device's kernels, copies and sets (activity API), for the GPU
//    idle time that followed each call and the bytes and host memory kind
//    of each copy.
// At exit it resolves the stacks to user call sites and writes trace.json.
//
// Sampling (--sample): the collector records in short windows, a fixed
// share of every period at a random phase, with the activity kinds
// switched off in between (the callbacks stay on and return at once), and
// the report scales the windows' figures to the traced time
// (TraceModel.h).
//
// Environment (set by xfer-trace): XFER_TRACE_OUTPUT (the file to write),
// XFER_TRACE_ERROR (where a failure is described in one line),
// XFER_TRACE_SKIP_SECONDS, XFER_TRACE_MAX_SECONDS (the window),
// XFER_TRACE_SAMPLE ("<window ms>/<period ms>", or "all" or empty: record
// every call), XFER_TRACE_LIBRARY_PATHS (':'-separated extra library
// source paths), XFER_TRACE_COMMAND (the traced command line, for the
// report). XFER_TRACE_COST, for measuring the collector's own cost only:
// comma-separated parts to leave out (kernels, copies, sets, callbacks),
// or "toggle-callbacks" to switch the callbacks off between sample windows
// too.
//
//===----------------------------------------------------------------------===//

#include "trace/StackCache.h"
#include "trace/StackResolver.h"
#include "trace/TraceModel.h"

#include <cuda.h>
#include <cupti.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace xfertrace {
namespace {

/// Activity buffers: kept zeroed and reused. CUPTI otherwise zeroes each
/// new buffer on the thread that needs it, a traced thread; and a sampled
/// trace may need one for every window.
constexpr size_t ActivityBufferBytes = 1 << 20;
constexpr int PreparedActivityBuffers = 8;

struct CollectorState {
  std::string OutputPath;
  std::string ErrorPath;
  double SkipSeconds = 0;
  double MaxSeconds = 0;
  /// Sampling: a window of SampleWindowMs every SamplePeriodMs; 0: off.
  double SampleWindowMs = 0;
  double SamplePeriodMs = 0;
  ResolverOptions Resolver;
  std::string Command;

  // What is switched on (XFER_TRACE_COST leaves parts out).
  CUpti_SubscriberHandle Subscriber = nullptr;
  std::vector<CUpti_ActivityKind> Kinds;
  bool Callbacks = true;
  /// Sampling: switch the callbacks off between windows (else they stay on
  /// and return at once).
  bool ToggleCallbacks = false;

  std::atomic<bool> Active{false};
  std::atomic<bool> Finished{false};
  std::atomic<bool> Failed{false};
  std::atomic<uint64_t> WindowStartNs{0};
  std::atomic<uint64_t> WindowEndNs{0};

  /// Bumped whenever the callbacks are switched on again: a thread's call
  /// depth from before is stale (its exits were not seen).
  std::atomic<uint32_t> Generation{0};
  /// Past a sample window's nominal end: the first synchronizing call
  /// entered now ends the window once it returns.
  std::atomic<bool> Closing{false};
  std::mutex StopLock;
  std::condition_variable StopSignal;
  bool StopSeen = false; ///< guarded by StopLock

  /// Guards the sample windows and the switching on and off; the exit
  /// handler takes it so that no switching is under way while it reports.
  std::mutex WindowLock;
  std::vector<SampleWindow> Samples;
  SampleWindow Open; ///< RecordStartNs != 0: being recorded
  /// What switching cost the sampler's thread, in total and at most:
  /// [activity on, activity off, callbacks on, callbacks off].
  uint64_t SwitchTotalNs[4] = {};
  uint64_t SwitchMaxNs[4] = {};
  uint64_t Switches[4] = {};

  std::mutex BufferLock;
  std::vector<uint8_t *> FreeBuffers; ///< zeroed, guarded by BufferLock
  std::atomic<uint64_t> BuffersRequested{0};

  std::mutex Lock; ///< guards everything below
  std::vector<ApiCall> Calls;
  std::vector<std::string> ApiNames;
  std::unordered_map<std::string, uint32_t> ApiNameIds;
  std::vector<std::vector<void *>> Stacks;
  std::unordered_map<std::string, uint32_t> StackIds;
  std::vector<BusyInterval> Busy;
  std::multimap<uint32_t, DeviceCopy> RuntimeCopies;
  std::multimap<uint32_t, DeviceCopy> DriverCopies;
  size_t DroppedRecords = 0;
  uint64_t UnwoundCalls = 0;
  uint64_t StackValidations = 0;
  uint64_t StackMismatches = 0;
};

// Never destroyed: the exit handler may run after static destructors.
CollectorState *State = nullptr;

/// Records the first failure in the error file; the launcher prints it and
/// exits with status 2.
void fail(const std::string &Message) {
  if (!State || State->Failed.exchange(true))
    return;
  std::FILE *File = State->ErrorPath.empty()
                        ? nullptr
                        : std::fopen(State->ErrorPath.c_str(), "w");
  if (File) {
    std::fprintf(File, "%s\n", Message.c_str());
    std::fclose(File);
  } else {
    std::fprintf(stderr, "xfer-trace: %s\n", Message.c_str());
  }
}

bool checkCupti(CUptiResult Status, const char *Call) {
  if (Status == CUPTI_SUCCESS)
    return true;
  const char *Text = nullptr;
  if (cuptiGetResultString(Status, &Text) != CUPTI_SUCCESS || !Text)
    Text = "unknown error";
  fail(std::string("CUPTI: ") + Call + " failed: " + Text);
  return false;
}
#define XFER_CUPTI_CHECK(Call) checkCupti((Call), #Call)

uint64_t timestampNs() {
  uint64_t Now = 0;
  if (!XFER_CUPTI_CHECK(cuptiGetTimestamp(&Now)))
    return 0;
  return Now;
}

double envSeconds(const char *Name) {
  const char *Value = std::getenv(Name);
  return Value && *Value ? std::strtod(Value, nullptr) : 0.0;
}

// --- callbacks ---------------------------------------------------------------

/// The call being recorded on this thread; nested calls (a driver call made
/// by the runtime) only count depth.
struct ThreadCall {
  uint32_t Generation = 0;
  int Depth = 0;
  bool Recording = false;
  bool StopsWindow = false;
  ApiCall Call;
  bool Unwound = false; ///< false: the stack came from the cache
  bool Validating = false;
  UnwoundStack Stack;
  uint64_t CacheKey = 0;
};
thread_local ThreadCall Current;

/// Stacks recognised from their return addresses' slots (StackCache.h): a
/// call site is unwound once per path that reaches it. A random one in
/// ValidateOneIn recognised calls is unwound anyway; the report counts
/// those that disagreed with the cache (none expected).
constexpr unsigned ValidateOneIn = 256;
thread_local StackCache KnownStacks;
thread_local uint64_t RandomState = 0x9E3779B97F4A7C15ull;

/// API name ids by domain and callback id: interning the name on every
/// call would allocate.
thread_local std::unordered_map<uint32_t, uint32_t> ApiNameIdCache;

uint64_t nextRandom() {
  RandomState ^= RandomState << 13;
  RandomState ^= RandomState >> 7;
  RandomState ^= RandomState << 17;
  return RandomState;
}

int64_t streamIdOf(const CUpti_CallbackData *Info, CUstream Stream,
                   bool PerThread) {
  uint32_t Id = 0;
  // An unknown stream is reported as none rather than failing the trace.
  if (cuptiGetStreamIdEx(Info->context, Stream, PerThread ? 1 : 0, &Id) !=
      CUPTI_SUCCESS)
    return -1;
  return Id;
}

int64_t synchronizedStream(CUpti_CallbackDomain Domain, CUpti_CallbackId Id,
                           const CUpti_CallbackData *Info) {
  if (Domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (Id == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020 ||
        Id == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000) {
      auto *Params = static_cast<const cudaStreamSynchronize_v3020_params *>(
          Info->functionParams);
      return streamIdOf(
          Info, reinterpret_cast<CUstream>(Params->stream),
          Id == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000);
    }
    return -1;
  }
  if (Id == CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize ||
      Id == CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz) {
    auto *Params =
        static_cast<const cuStreamSynchronize_params *>(Info->functionParams);
    return streamIdOf(Info, Params->hStream,
                      Id == CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz);
  }
  return -1;
}

bool isRecordedDriverCall(CUpti_CallbackId Id);
bool isAllocation(CUpti_CallbackDomain Domain, CUpti_CallbackId Id);
bool waitsForDevice(CUpti_CallbackDomain Domain, CUpti_CallbackId Id);

/// A synchronizing call entered after a sample window's nominal end has
/// returned: the window can end.
void signalStop() {
  {
    std::lock_guard<std::mutex> Guard(State->StopLock);
    State->StopSeen = true;
  }
  State->StopSignal.notify_one();
}

uint32_t internLocked(std::unordered_map<std::string, uint32_t> &Ids,
                      std::vector<std::string> &Names, const char *Name) {
  auto [It, Inserted] = Ids.try_emplace(Name, uint32_t(Names.size()));
  if (Inserted)
    Names.push_back(Name);
  return It->second;
}

/// Files the call \p T has just finished (its stack, its API name).
void storeCall(ThreadCall &T, CUpti_CallbackId Id, bool Driver,
               const char *FunctionName) {
  const uint32_t ApiKey = (uint32_t(Id) << 1) | uint32_t(Driver);
  auto KnownName = ApiNameIdCache.find(ApiKey);
  std::lock_guard<std::mutex> Guard(State->Lock);
  if (T.Unwound) {
    const UnwoundStack &Stack = T.Stack;
    std::string Key(reinterpret_cast<const char *>(Stack.Frames),
                    sizeof(void *) * size_t(Stack.Count));
    auto [It, Inserted] = State->StackIds.try_emplace(
        std::move(Key), uint32_t(State->Stacks.size()));
    if (Inserted)
      State->Stacks.emplace_back(Stack.Frames, Stack.Frames + Stack.Count);
    T.Call.StackId = It->second;
    StackCache::Outcome Outcome =
        KnownStacks.insert(T.CacheKey, Stack, It->second);
    if (T.Validating) {
      ++State->StackValidations;
      State->StackMismatches += Outcome != StackCache::Outcome::Confirmed;
    }
    ++State->UnwoundCalls;
  }
  if (KnownName == ApiNameIdCache.end())
    KnownName =
        ApiNameIdCache
            .emplace(ApiKey, internLocked(State->ApiNameIds, State->ApiNames,
                                          FunctionName))
            .first;
  T.Call.ApiNameId = KnownName->second;
  State->Calls.push_back(T.Call);
}

void CUPTIAPI onApiCall(void *, CUpti_CallbackDomain Domain,
                        CUpti_CallbackId Id, const void *Data) {
  auto *Info = static_cast<const CUpti_CallbackData *>(Data);
  ThreadCall &T = Current;
  const bool Driver = Domain == CUPTI_CB_DOMAIN_DRIVER_API;
  const uint32_t Generation =
      State->Generation.load(std::memory_order_relaxed);
  if (T.Generation != Generation) {
    // The callbacks were off for a while: exits may have been missed.
    T.Generation = Generation;
    T.Depth = 0;
    T.Recording = false;
    T.StopsWindow = false;
  }
  if (Info->callbackSite == CUPTI_API_ENTER) {
    if (T.Depth == 0 && Driver && !isRecordedDriverCall(Id))
      return; // a copy API enabled only to see it under a runtime call
    if (T.Depth++ != 0) {
      if (T.Recording && Driver &&
          T.Call.DriverIdCount < ApiCall::MaxDriverIds)
        T.Call.DriverIds[T.Call.DriverIdCount++] = Info->correlationId;
      return;
    }
    T.Recording = State->Active.load(std::memory_order_relaxed) &&
                  !State->Finished.load(std::memory_order_relaxed);
    if (!T.Recording)
      return;
    T.StopsWindow = State->Closing.load(std::memory_order_relaxed) &&
                    waitsForDevice(Domain, Id);
    const void *Anchor = __builtin_frame_address(0);
    T.CacheKey = StackCache::key(Anchor, Id, Driver);
    std::optional<uint32_t> Cached = KnownStacks.find(T.CacheKey);
    T.Validating = Cached && nextRandom() % ValidateOneIn == 0;
    T.Unwound = !Cached || T.Validating;
    // Unwind first: while the host unwinds, the device still drains the
    // queue this call will wait for.
    if (T.Unwound)
      unwindStack(Anchor, T.Stack);
    else
      T.Call.StackId = *Cached;
    T.Call.DriverIdCount = 0;
    T.Call.DriverDomain = Driver;
    T.Call.CorrelationId = Info->correlationId;
    T.Call.StreamId = synchronizedStream(Domain, Id, Info);
    T.Call.MayWaitForDevice = !isAllocation(Domain, Id);
    T.Call.ApiNameId = 0;
    T.Call.EnterNs = timestampNs();
    return;
  }
  if (T.Depth == 0)
    return; // see above: not recorded
  if (--T.Depth != 0 || !T.Recording)
    return;
  T.Recording = false;
  T.Call.ExitNs = timestampNs();
  storeCall(T, Id, Driver, Info->functionName);
  if (T.StopsWindow) {
    T.StopsWindow = false;
    signalStop();
  }
}

const CUpti_CallbackId RuntimeCalls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020,
    // Allocations: a fix that frees per iteration removes them too.
    CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMalloc3D_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000,
};

const CUpti_CallbackId RecordedDriverCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
};

/// Every driver copy: a runtime copy calls one of them, and the device's
/// copy record carries that driver call's correlation id.
const CUpti_CallbackId DriverCopyCalls[] = {
#define COPY(Name) CUPTI_DRIVER_TRACE_CBID_##Name,
    COPY(cuMemcpy) COPY(cuMemcpy_v2) COPY(cuMemcpy_ptds) COPY(cuMemcpyAsync)
    COPY(cuMemcpyAsync_ptsz) COPY(cuMemcpyDtoH_v2) COPY(cuMemcpyDtoH_v2_ptds)
    COPY(cuMemcpyHtoD_v2) COPY(cuMemcpyHtoD_v2_ptds) COPY(cuMemcpyDtoD_v2)
    COPY(cuMemcpyDtoD_v2_ptds) COPY(cuMemcpyDtoHAsync_v2)
    COPY(cuMemcpyDtoHAsync_v2_ptsz) COPY(cuMemcpyHtoDAsync_v2)
    COPY(cuMemcpyHtoDAsync_v2_ptsz) COPY(cuMemcpyDtoDAsync_v2)
    COPY(cuMemcpyDtoDAsync_v2_ptsz) COPY(cuMemcpy2D_v2) COPY(cuMemcpy2D_v2_ptds)
    COPY(cuMemcpy2DAsync_v2) COPY(cuMemcpy2DAsync_v2_ptsz)
    COPY(cuMemcpy2DUnaligned_v2) COPY(cuMemcpy2DUnaligned_v2_ptds)
    COPY(cuMemcpy3D_v2) COPY(cuMemcpy3D_v2_ptds) COPY(cuMemcpy3DAsync_v2)
    COPY(cuMemcpy3DAsync_v2_ptsz) COPY(cuMemcpyPeer) COPY(cuMemcpyPeer_ptds)
    COPY(cuMemcpyPeerAsync) COPY(cuMemcpyPeerAsync_ptsz)
    COPY(cuMemcpyBatchAsync) COPY(cuMemcpyBatchAsync_ptsz)
    COPY(cuMemcpyBatchAsync_v2) COPY(cuMemcpyBatchAsync_v2_ptsz)
#undef COPY
};

bool isRecordedDriverCall(CUpti_CallbackId Id) {
  for (CUpti_CallbackId Recorded : RecordedDriverCalls)
    if (Recorded == Id)
      return true;
  return false;
}

/// Recorded allocations: they never wait for the device.
bool isAllocation(CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  if (Domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    return Id == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020 ||
           Id == CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020 ||
           Id == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc3D_v3020 ||
           Id == CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020 ||
           Id == CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020 ||
           Id == CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000;
  return Id == CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2 ||
         Id == CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2 ||
         Id == CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2 ||
         Id == CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc ||
         Id == CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc_v2 ||
         Id == CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged;
}

/// Recorded calls that return only once the device (or a stream) has
/// caught up: all but the asynchronous copies and the allocations.
bool waitsForDevice(CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  if (isAllocation(Domain, Id))
    return false;
  if (Domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    return Id != CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020 &&
           Id != CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000 &&
           Id != CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020 &&
           Id != CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000;
  return Id != CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync &&
         Id != CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz &&
         Id != CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2 &&
         Id != CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz &&
         Id != CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2 &&
         Id != CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz;
}

// --- activity records ----------------------------------------------------------

/// A zeroed buffer whose pages are already mapped.
uint8_t *newActivityBuffer() {
  auto *Buffer = static_cast<uint8_t *>(std::calloc(1, ActivityBufferBytes));
  if (Buffer)
    std::memset(Buffer, 0, ActivityBufferBytes); // map the pages now
  return Buffer;
}

void CUPTIAPI onBufferRequested(uint8_t **Buffer, size_t *Size,
                                size_t *MaxRecords) {
  ++State->BuffersRequested;
  *Buffer = nullptr;
  {
    std::lock_guard<std::mutex> Guard(State->BufferLock);
    if (!State->FreeBuffers.empty()) {
      *Buffer = State->FreeBuffers.back();
      State->FreeBuffers.pop_back();
    }
  }
  if (!*Buffer)
    *Buffer = static_cast<uint8_t *>(std::calloc(1, ActivityBufferBytes));
  *Size = *Buffer ? ActivityBufferBytes : 0;
  *MaxRecords = 0;
  if (!*Buffer)
    fail("out of memory for CUPTI activity buffers");
}

/// Zeroes \p Buffer (here, off the traced threads) for reuse.
void recycleBuffer(uint8_t *Buffer) {
  std::memset(Buffer, 0, ActivityBufferBytes);
  std::lock_guard<std::mutex> Guard(State->BufferLock);
  State->FreeBuffers.push_back(Buffer);
}

void CUPTIAPI onBufferCompleted(CUcontext Context, uint32_t StreamId,
                                uint8_t *Buffer, size_t, size_t ValidSize) {
  // Read the buffer without the lock: a traced call that returns meanwhile
  // must not wait for it.
  std::vector<BusyInterval> Busy;
  std::vector<std::pair<uint32_t, DeviceCopy>> RuntimeCopies, DriverCopies;
  CUpti_Activity *Record = nullptr;
  while (true) {
    CUptiResult Status = cuptiActivityGetNextRecord(Buffer, ValidSize, &Record);
    if (Status == CUPTI_ERROR_MAX_LIMIT_REACHED)
      break;
    if (!XFER_CUPTI_CHECK(Status))
      break;
    switch (Record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      auto *Kernel = reinterpret_cast<CUpti_ActivityKernel10 *>(Record);
      Busy.push_back({Kernel->start, Kernel->end});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      auto *Copy = reinterpret_cast<CUpti_ActivityMemcpy6 *>(Record);
      Busy.push_back({Copy->start, Copy->end});
      DeviceCopy Facts;
      Facts.Bytes = Copy->bytes;
      Facts.StartNs = Copy->start;
      Facts.EndNs = Copy->end;
      Facts.StreamId = Copy->streamId;
      const uint8_t Kinds[] = {Copy->srcKind, Copy->dstKind};
      for (uint8_t Kind : Kinds) {
        Facts.HostPageable |= Kind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
        Facts.HostPinned |= Kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
      }
      // Packed record: copy the ids out before binding them.
      uint32_t RuntimeId = Copy->runtimeCorrelationId;
      uint32_t DriverId = Copy->correlationId;
      if (RuntimeId)
        RuntimeCopies.emplace_back(RuntimeId, Facts);
      DriverCopies.emplace_back(DriverId, Facts);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      auto *Set = reinterpret_cast<CUpti_ActivityMemset4 *>(Record);
      Busy.push_back({Set->start, Set->end});
      break;
    }
    default:
      break;
    }
  }
  size_t Dropped = 0;
  if (!XFER_CUPTI_CHECK(
          cuptiActivityGetNumDroppedRecords(Context, StreamId, &Dropped)))
    Dropped = 0;
  recycleBuffer(Buffer);
  std::lock_guard<std::mutex> Guard(State->Lock);
  State->Busy.insert(State->Busy.end(), Busy.begin(), Busy.end());
  State->RuntimeCopies.insert(RuntimeCopies.begin(), RuntimeCopies.end());
  State->DriverCopies.insert(DriverCopies.begin(), DriverCopies.end());
  State->DroppedRecords += Dropped;
}

// --- window and exit -------------------------------------------------------------

/// Switches the callbacks on or off (only the thread that also switches
/// the activity kinds calls this: CUPTI wants them serialized).
bool enableCallbacks(bool On) {
  if (!State->Callbacks)
    return true;
  for (CUpti_CallbackId Id : RuntimeCalls)
    if (!XFER_CUPTI_CHECK(cuptiEnableCallback(
            On, State->Subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, Id)))
      return false;
  for (CUpti_CallbackId Id : RecordedDriverCalls)
    if (!XFER_CUPTI_CHECK(cuptiEnableCallback(
            On, State->Subscriber, CUPTI_CB_DOMAIN_DRIVER_API, Id)))
      return false;
  for (CUpti_CallbackId Id : DriverCopyCalls)
    if (!XFER_CUPTI_CHECK(cuptiEnableCallback(
            On, State->Subscriber, CUPTI_CB_DOMAIN_DRIVER_API, Id)))
      return false;
  return true;
}

bool enableActivity(bool On) {
  for (CUpti_ActivityKind Kind : State->Kinds)
    if (!(On ? XFER_CUPTI_CHECK(cuptiActivityEnable(Kind))
             : XFER_CUPTI_CHECK(cuptiActivityDisable(Kind))))
      return false;
  return true;
}

/// Runs \p Switch, noting its time as switch \p Which (WindowLock held).
template <typename Fn> void timedSwitch(int Which, Fn Switch) {
  auto Start = std::chrono::steady_clock::now();
  Switch();
  uint64_t Ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now() - Start)
                             .count());
  State->SwitchTotalNs[Which] += Ns;
  State->SwitchMaxNs[Which] = std::max(State->SwitchMaxNs[Which], Ns);
  ++State->Switches[Which];
}

/// Starts recording a sample window (WindowLock held).
void startRecording() {
  timedSwitch(0, [] { enableActivity(true); });
  if (State->ToggleCallbacks) {
    State->Generation.fetch_add(1);
    timedSwitch(2, [] { enableCallbacks(true); });
  }
  State->Active = true;
}

/// Stops recording a sample window (WindowLock held).
void stopRecording() {
  State->Active = false;
  if (State->ToggleCallbacks)
    timedSwitch(3, [] { enableCallbacks(false); });
  timedSwitch(1, [] { enableActivity(false); });
}

void runWindow() {
  if (State->SkipSeconds > 0)
    std::this_thread::sleep_for(std::chrono::duration<double>(State->SkipSeconds));
  State->WindowStartNs = timestampNs();
  State->Active = true;
  if (State->MaxSeconds <= 0)
    return;
  std::this_thread::sleep_for(std::chrono::duration<double>(State->MaxSeconds));
  std::lock_guard<std::mutex> Guard(State->WindowLock);
  if (State->Finished)
    return;
  State->WindowEndNs = timestampNs();
  State->Active = false;
  // The program runs on untraced: nothing more is recorded.
  enableCallbacks(false);
  enableActivity(false);
}

/// Sampling: in every period, from a random phase on, records a window of
/// SampleWindowMs, after a lead of half a window, 2 ms at most (the
/// device's work queued before shows up as busy), and on until the first
/// synchronizing call entered after the window has returned (at most a
/// quarter period or a window more, whichever is longer).
void runSampler() {
  using Clock = std::chrono::steady_clock;
  using Ms = std::chrono::duration<double, std::milli>;
  if (State->SkipSeconds > 0)
    std::this_thread::sleep_for(std::chrono::duration<double>(State->SkipSeconds));
  const Clock::time_point Origin = Clock::now();
  {
    std::lock_guard<std::mutex> Guard(State->WindowLock);
    if (State->Finished)
      return;
    State->WindowStartNs = timestampNs();
  }
  const Clock::time_point Deadline =
      State->MaxSeconds > 0
          ? Origin + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(State->MaxSeconds))
          : Clock::time_point::max();
  const double Window = State->SampleWindowMs, Period = State->SamplePeriodMs;
  const double Lead = std::min(Window / 2, 2.0);
  const double Tail = std::max(Window, Period / 4);
  // The phase: a call counts with probability Window / Period wherever it
  // falls in the period.
  uint64_t Seed = timestampNs() ^ (uint64_t(getpid()) << 32);
  Seed ^= Seed >> 33;
  Seed *= 0xff51afd7ed558ccdull;
  Seed ^= Seed >> 33;
  const double Phase = double(Seed % 1000000) / 1e6 * Period;
  auto At = [&](double Milliseconds) {
    Clock::time_point Point =
        Origin + std::chrono::duration_cast<Clock::duration>(Ms(Milliseconds));
    return std::min(Point, Deadline);
  };
  for (uint64_t K = 0;; ++K) {
    const double Start = Phase + double(K) * Period;
    if (At(Start - Lead) >= Deadline)
      break;
    std::this_thread::sleep_until(At(Start - Lead));
    {
      std::lock_guard<std::mutex> Guard(State->WindowLock);
      if (State->Finished)
        return;
      State->Open = SampleWindow();
      State->Open.RecordStartNs = timestampNs();
      startRecording();
    }
    std::this_thread::sleep_until(At(Start));
    {
      std::lock_guard<std::mutex> Guard(State->WindowLock);
      if (State->Finished)
        return;
      State->Open.StartNs = timestampNs();
    }
    std::this_thread::sleep_until(At(Start + Window));
    {
      std::lock_guard<std::mutex> Guard(State->WindowLock);
      if (State->Finished)
        return;
      State->Open.EndNs = timestampNs();
      {
        std::lock_guard<std::mutex> Stop(State->StopLock);
        State->StopSeen = false;
      }
      State->Closing = true;
    }
    {
      std::unique_lock<std::mutex> Stop(State->StopLock);
      State->StopSignal.wait_until(Stop, At(Start + Window + Tail),
                                   [] { return State->StopSeen; });
    }
    {
      std::lock_guard<std::mutex> Guard(State->WindowLock);
      if (State->Finished)
        return;
      State->Closing = false;
      stopRecording();
      State->Open.RecordEndNs = timestampNs();
      State->Samples.push_back(State->Open);
      State->Open = SampleWindow();
    }
    if (Clock::now() >= Deadline)
      break;
  }
  std::this_thread::sleep_until(Deadline);
  std::lock_guard<std::mutex> Guard(State->WindowLock);
  if (!State->Finished && State->WindowEndNs == 0)
    State->WindowEndNs = timestampNs();
}

std::string deviceDescription(std::string &Driver) {
  int Version = 0;
  if (cuDriverGetVersion(&Version) == CUDA_SUCCESS)
    Driver = std::to_string(Version / 1000) + "." +
             std::to_string((Version % 1000) / 10);
  CUdevice Device;
  char Name[256] = {0};
  if (cuCtxGetDevice(&Device) != CUDA_SUCCESS &&
      cuDeviceGet(&Device, 0) != CUDA_SUCCESS)
    return "";
  if (cuDeviceGetName(Name, sizeof(Name), Device) != CUDA_SUCCESS)
    return "";
  return Name;
}

void writeReport() {
  if (!State)
    return;
  const bool Sampling = State->SamplePeriodMs > 0;
  {
    // No switching is under way once this is held, and none follows.
    std::lock_guard<std::mutex> Guard(State->WindowLock);
    if (State->Finished.exchange(true))
      return;
    uint64_t EndNs = timestampNs();
    if (Sampling) {
      if (State->WindowEndNs == 0)
        State->WindowEndNs = EndNs;
      SampleWindow &Open = State->Open;
      if (Open.RecordStartNs != 0) { // the program ended inside a window
        if (Open.StartNs == 0)
          Open.StartNs = EndNs;
        if (Open.EndNs == 0)
          Open.EndNs = EndNs;
        Open.RecordEndNs = EndNs;
        State->Samples.push_back(Open);
      }
    } else if (State->Active || State->WindowEndNs == 0) {
      State->WindowEndNs = EndNs;
    }
    State->Active = false;
  }
  XFER_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  if (State->Failed)
    return;

  TraceInput Input;
  {
    std::lock_guard<std::mutex> Guard(State->Lock);
    Input.Calls = State->Calls;
    Input.ApiNames = State->ApiNames;
    Input.Busy = State->Busy;
    Input.RuntimeCopies = State->RuntimeCopies;
    Input.DriverCopies = State->DriverCopies;
    Input.Stacks = resolveStacks(State->Stacks, State->Resolver);
  }
  if (Sampling) {
    std::lock_guard<std::mutex> Guard(State->WindowLock);
    Input.Samples = State->Samples;
    // A window with no nominal part still counts for the charging; keep
    // them ordered by their nominal start.
    std::sort(Input.Samples.begin(), Input.Samples.end(),
              [](const SampleWindow &A, const SampleWindow &B) {
                return A.StartNs < B.StartNs;
              });
  }
  Input.Window.StartNs = State->WindowStartNs;
  Input.Window.EndNs = State->WindowEndNs;
  if (Input.Window.StartNs == 0) // the program ended inside --skip-seconds
    Input.Window.StartNs = Input.Window.EndNs;

  xferbench::JsonValue Report = xferbench::JsonValue::object();
  Report.set("version", 1);
  Report.set("tool", "xfer-trace");
  Report.set("command", State->Command);
  std::string Driver;
  std::string Device = deviceDescription(Driver);
  Report.set("device", Device.empty() ? xferbench::JsonValue() : Device);
  Report.set("cudaDriverVersion",
             Driver.empty() ? xferbench::JsonValue() : Driver);
  xferbench::JsonValue Window = xferbench::JsonValue::object();
  Window.set("skipSeconds", State->SkipSeconds);
  Window.set("maxSeconds",
             State->MaxSeconds > 0 ? xferbench::JsonValue(State->MaxSeconds)
                                   : xferbench::JsonValue());
  Report.set("window", std::move(Window));
  xferbench::JsonValue Sample;
  if (Sampling) {
    Sample = xferbench::JsonValue::object();
    Sample.set("windowMilliseconds", State->SampleWindowMs);
    Sample.set("periodMilliseconds", State->SamplePeriodMs);
    Sample.set("windows", (unsigned long long)Input.Samples.size());
    // The switching's own time on the sampler's thread (mean, max).
    xferbench::JsonValue Switching = xferbench::JsonValue::object();
    const char *Names[] = {"activityOn", "activityOff", "callbacksOn",
                           "callbacksOff"};
    for (int I = 0; I < 4; ++I) {
      if (!State->Switches[I])
        continue;
      xferbench::JsonValue Figures = xferbench::JsonValue::array();
      Figures.push(double(State->SwitchTotalNs[I]) / 1000.0 /
                   double(State->Switches[I]));
      Figures.push(double(State->SwitchMaxNs[I]) / 1000.0);
      Switching.set(Names[I], std::move(Figures));
    }
    Sample.set("switchMicroseconds", std::move(Switching));
    Sample.set("activityBuffers",
               (unsigned long long)State->BuffersRequested.load());
  }
  Report.set("sampling", std::move(Sample));
  Report.set("droppedActivityRecords",
             (unsigned long long)State->DroppedRecords);
  Report.set("recordedCalls", (unsigned long long)Input.Calls.size());
  Report.set("unwoundCalls", (unsigned long long)State->UnwoundCalls);
  Report.set("stackValidations", (unsigned long long)State->StackValidations);
  Report.set("stackMismatches", (unsigned long long)State->StackMismatches);
  xferbench::JsonValue Summary = summarize(Input);
  for (const char *Key : {"tracedMicroseconds", "sampledMicroseconds",
                          "gpuBusyMicroseconds", "gpuIdleMicroseconds",
                          "sites"})
    if (const xferbench::JsonValue *Value = Summary.get(Key))
      Report.set(Key, *Value);

  std::string Text = Report.serialize() + "\n";
  std::FILE *File = std::fopen(State->OutputPath.c_str(), "w");
  if (!File) {
    fail("cannot write " + State->OutputPath + ": " + std::strerror(errno));
    return;
  }
  bool Written = std::fwrite(Text.data(), 1, Text.size(), File) == Text.size();
  Written &= std::fclose(File) == 0;
  if (!Written)
    fail("cannot write " + State->OutputPath);
}

bool start() {
  State = new CollectorState;
  const char *Output = std::getenv("XFER_TRACE_OUTPUT");
  const char *Error = std::getenv("XFER_TRACE_ERROR");
  State->ErrorPath = Error ? Error : "";
  if (!Output || !*Output) {
    fail("XFER_TRACE_OUTPUT is not set (run the program through xfer-trace)");
    return false;
  }
  State->OutputPath = Output;
  State->SkipSeconds = envSeconds("XFER_TRACE_SKIP_SECONDS");
  State->MaxSeconds = envSeconds("XFER_TRACE_MAX_SECONDS");
  if (const char *Sample = std::getenv("XFER_TRACE_SAMPLE");
      Sample && *Sample && std::strcmp(Sample, "all") != 0) {
    char *End = nullptr;
    State->SampleWindowMs = std::strtod(Sample, &End);
    if (End && *End == '/')
      State->SamplePeriodMs = std::strtod(End + 1, &End);
    if (!End || *End || !(State->SampleWindowMs > 0) ||
        !(State->SamplePeriodMs > State->SampleWindowMs)) {
      fail(std::string("XFER_TRACE_SAMPLE: expected <window ms>/<period ms> "
                       "with the window shorter than the period, not '") +
           Sample + "'");
      return false;
    }
  }
  std::string Cost = ",";
  if (const char *Parts = std::getenv("XFER_TRACE_COST"))
    Cost += std::string(Parts) + ",";
  auto Leaves = [&](const char *Part) {
    return Cost.find("," + std::string(Part) + ",") != std::string::npos;
  };
  if (!Leaves("kernels"))
    State->Kinds.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (!Leaves("copies"))
    State->Kinds.push_back(CUPTI_ACTIVITY_KIND_MEMCPY);
  if (!Leaves("sets"))
    State->Kinds.push_back(CUPTI_ACTIVITY_KIND_MEMSET);
  State->Callbacks = !Leaves("callbacks");
  State->ToggleCallbacks =
      State->SamplePeriodMs > 0 && Leaves("toggle-callbacks");
  if (const char *Command = std::getenv("XFER_TRACE_COMMAND"))
    State->Command = Command;
  if (const char *Paths = std::getenv("XFER_TRACE_LIBRARY_PATHS")) {
    std::string All = Paths;
    for (size_t Start = 0; Start <= All.size();) {
      size_t End = All.find(':', Start);
      if (End == std::string::npos)
        End = All.size();
      if (End > Start)
        State->Resolver.LibraryPathParts.push_back(All.substr(Start, End - Start));
      Start = End + 1;
    }
  }
  // The unwinder sets up its tables on first use; not inside a traced call.
  UnwoundStack Warm;
  unwindStack(&Warm, Warm);

  if (!XFER_CUPTI_CHECK(cuptiSubscribe(
          &State->Subscriber, reinterpret_cast<CUpti_CallbackFunc>(onApiCall),
          nullptr)))
    return false;
  // The buffers handed to CUPTI are zeroed already (an older CUPTI that
  // lacks the attribute zeroes them again: no harm).
  uint8_t Zeroed = 1;
  size_t ZeroedSize = sizeof(Zeroed);
  cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER,
                            &ZeroedSize, &Zeroed);
  for (int I = 0; I < PreparedActivityBuffers; ++I)
    if (uint8_t *Buffer = newActivityBuffer())
      State->FreeBuffers.push_back(Buffer);
  if (!XFER_CUPTI_CHECK(
          cuptiActivityRegisterCallbacks(onBufferRequested, onBufferCompleted)))
    return false;
  const bool Sampling = State->SamplePeriodMs > 0;
  // Sampling switches the activity kinds (and the callbacks) on for each
  // window only.
  if (!Sampling && !enableActivity(true))
    return false;
  if (!State->ToggleCallbacks && !enableCallbacks(true))
    return false;
  if (std::atexit(writeReport) != 0) {
    fail("cannot register the exit handler");
    return false;
  }
  if (Sampling) {
    std::thread(runSampler).detach();
  } else if (State->SkipSeconds <= 0 && State->MaxSeconds <= 0) {
    State->WindowStartNs = timestampNs();
    State->Active = true;
  } else {
    std::thread(runWindow).detach();
  }
  return !State->Failed;
}

} // namespace
} // namespace xfertrace

/// Called by the CUDA driver when it loads CUDA_INJECTION64_PATH.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  return xfertrace::start() ? 1 : 0;
}
