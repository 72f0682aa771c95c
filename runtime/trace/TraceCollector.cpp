//===- TraceCollector.cpp - CUPTI collector injected into the program -----===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// Loaded by the CUDA driver through CUDA_INJECTION64_PATH (xfer-trace sets
// it), so neither the program nor LibTorch needs rebuilding. Records:
//  - every outermost call of a CUDA runtime or driver API that blocks the
//    host or copies (callback API), with its stack, captured on entry so
//    the unwinding overlaps the wait it precedes;
//  - the device's kernels, copies and sets (activity API), for the GPU
//    idle time that followed each call and the bytes and host memory kind
//    of each copy.
// At exit it resolves the stacks to user call sites and writes trace.json.
//
// Environment (set by xfer-trace): XFER_TRACE_OUTPUT (the file to write),
// XFER_TRACE_ERROR (where a failure is described in one line),
// XFER_TRACE_SKIP_SECONDS, XFER_TRACE_MAX_SECONDS (the window),
// XFER_TRACE_LIBRARY_PATHS (':'-separated extra library source paths),
// XFER_TRACE_COMMAND (the traced command line, for the report).
//
//===----------------------------------------------------------------------===//

#include "trace/StackCache.h"
#include "trace/StackResolver.h"
#include "trace/TraceModel.h"

#include <cuda.h>
#include <cupti.h>

#include <atomic>
#include <chrono>
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

constexpr size_t ActivityBufferBytes = 4 << 20;

struct CollectorState {
  std::string OutputPath;
  std::string ErrorPath;
  double SkipSeconds = 0;
  double MaxSeconds = 0;
  ResolverOptions Resolver;
  std::string Command;

  std::atomic<bool> Active{false};
  std::atomic<bool> Finished{false};
  std::atomic<bool> Failed{false};
  std::atomic<uint64_t> WindowStartNs{0};
  std::atomic<uint64_t> WindowEndNs{0};

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
  int Depth = 0;
  bool Recording = false;
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

uint32_t internLocked(std::unordered_map<std::string, uint32_t> &Ids,
                      std::vector<std::string> &Names, const char *Name) {
  auto [It, Inserted] = Ids.try_emplace(Name, uint32_t(Names.size()));
  if (Inserted)
    Names.push_back(Name);
  return It->second;
}

void CUPTIAPI onApiCall(void *, CUpti_CallbackDomain Domain,
                        CUpti_CallbackId Id, const void *Data) {
  auto *Info = static_cast<const CUpti_CallbackData *>(Data);
  ThreadCall &T = Current;
  const bool Driver = Domain == CUPTI_CB_DOMAIN_DRIVER_API;
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
                                          Info->functionName))
            .first;
  T.Call.ApiNameId = KnownName->second;
  State->Calls.push_back(T.Call);
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

// --- activity records ----------------------------------------------------------

void CUPTIAPI onBufferRequested(uint8_t **Buffer, size_t *Size,
                                size_t *MaxRecords) {
  *Buffer = static_cast<uint8_t *>(std::aligned_alloc(8, ActivityBufferBytes));
  *Size = *Buffer ? ActivityBufferBytes : 0;
  *MaxRecords = 0;
  if (!*Buffer)
    fail("out of memory for CUPTI activity buffers");
}

void CUPTIAPI onBufferCompleted(CUcontext Context, uint32_t StreamId,
                                uint8_t *Buffer, size_t, size_t ValidSize) {
  std::lock_guard<std::mutex> Guard(State->Lock);
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
      State->Busy.push_back({Kernel->start, Kernel->end});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      auto *Copy = reinterpret_cast<CUpti_ActivityMemcpy6 *>(Record);
      State->Busy.push_back({Copy->start, Copy->end});
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
        State->RuntimeCopies.emplace(RuntimeId, Facts);
      State->DriverCopies.emplace(DriverId, Facts);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      auto *Set = reinterpret_cast<CUpti_ActivityMemset4 *>(Record);
      State->Busy.push_back({Set->start, Set->end});
      break;
    }
    default:
      break;
    }
  }
  size_t Dropped = 0;
  if (XFER_CUPTI_CHECK(cuptiActivityGetNumDroppedRecords(Context, StreamId,
                                                         &Dropped)))
    State->DroppedRecords += Dropped;
  std::free(Buffer);
}

// --- window and exit -------------------------------------------------------------

void runWindow() {
  if (State->SkipSeconds > 0)
    std::this_thread::sleep_for(std::chrono::duration<double>(State->SkipSeconds));
  State->WindowStartNs = timestampNs();
  State->Active = true;
  if (State->MaxSeconds <= 0)
    return;
  std::this_thread::sleep_for(std::chrono::duration<double>(State->MaxSeconds));
  State->WindowEndNs = timestampNs();
  State->Active = false;
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
  if (!State || State->Finished.exchange(true))
    return;
  uint64_t EndNs = timestampNs();
  if (State->Active || State->WindowEndNs == 0)
    State->WindowEndNs = EndNs;
  State->Active = false;
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
  Report.set("droppedActivityRecords",
             (unsigned long long)State->DroppedRecords);
  Report.set("recordedCalls", (unsigned long long)Input.Calls.size());
  Report.set("unwoundCalls", (unsigned long long)State->UnwoundCalls);
  Report.set("stackValidations", (unsigned long long)State->StackValidations);
  Report.set("stackMismatches", (unsigned long long)State->StackMismatches);
  xferbench::JsonValue Summary = summarize(Input);
  for (const char *Key : {"tracedMicroseconds", "gpuBusyMicroseconds",
                          "gpuIdleMicroseconds", "sites"})
    Report.set(Key, *Summary.get(Key));

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

  CUpti_SubscriberHandle Subscriber;
  if (!XFER_CUPTI_CHECK(cuptiSubscribe(
          &Subscriber, reinterpret_cast<CUpti_CallbackFunc>(onApiCall),
          nullptr)))
    return false;
  for (CUpti_CallbackId Id : RuntimeCalls)
    if (!XFER_CUPTI_CHECK(cuptiEnableCallback(1, Subscriber,
                                              CUPTI_CB_DOMAIN_RUNTIME_API, Id)))
      return false;
  for (const auto &List : {std::vector<CUpti_CallbackId>(
                               std::begin(RecordedDriverCalls),
                               std::end(RecordedDriverCalls)),
                           std::vector<CUpti_CallbackId>(
                               std::begin(DriverCopyCalls),
                               std::end(DriverCopyCalls))})
    for (CUpti_CallbackId Id : List)
      if (!XFER_CUPTI_CHECK(cuptiEnableCallback(
              1, Subscriber, CUPTI_CB_DOMAIN_DRIVER_API, Id)))
        return false;
  if (!XFER_CUPTI_CHECK(
          cuptiActivityRegisterCallbacks(onBufferRequested, onBufferCompleted)))
    return false;
  for (CUpti_ActivityKind Kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMSET})
    if (!XFER_CUPTI_CHECK(cuptiActivityEnable(Kind)))
      return false;
  if (std::atexit(writeReport) != 0) {
    fail("cannot register the exit handler");
    return false;
  }
  if (State->SkipSeconds <= 0 && State->MaxSeconds <= 0) {
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
