// CUPTI activity records of kernels, memsets, memcpys and API calls; see
// kernel_census.h. Every CUPTI call is checked.
#include "kernel_census.h"

#include <cupti.h>
#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace census {
namespace {

std::mutex Lock;
Counts Current;
bool Registered = false;

bool ok(CUptiResult Result, const char *What) {
  if (Result == CUPTI_SUCCESS)
    return true;
  const char *Message = "unknown";
  if (cuptiGetResultString(Result, &Message) != CUPTI_SUCCESS)
    Message = "unknown (cuptiGetResultString failed too)";
  std::fprintf(stderr, "census: %s: %s\n", What, Message);
  return false;
}

std::string demangle(const char *Name) {
  if (!Name)
    return "(null)";
  int Status = 0;
  char *Plain = abi::__cxa_demangle(Name, nullptr, nullptr, &Status);
  std::string Text = (Status == 0 && Plain) ? Plain : Name;
  std::free(Plain);
  // Template arguments make some names kilobytes long.
  if (Text.size() > 160)
    Text = Text.substr(0, 157) + "...";
  return Text;
}

std::string apiName(CUpti_CallbackDomain Domain, CUpti_CallbackId Id) {
  const char *Name = nullptr;
  if (cuptiGetCallbackName(Domain, Id, &Name) != CUPTI_SUCCESS || !Name)
    return "cbid " + std::to_string(Id);
  return Name;
}

constexpr size_t BufferBytes = 8 << 20;

void CUPTIAPI bufferRequested(uint8_t **Buffer, size_t *Size,
                              size_t *MaxRecords) {
  *Buffer = static_cast<uint8_t *>(std::aligned_alloc(8, BufferBytes));
  *Size = *Buffer ? BufferBytes : 0;
  *MaxRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t *Buffer, size_t,
                              size_t Valid) {
  std::lock_guard<std::mutex> Guard(Lock);
  CUpti_Activity *Record = nullptr;
  for (;;) {
    CUptiResult Result = cuptiActivityGetNextRecord(Buffer, Valid, &Record);
    if (Result == CUPTI_ERROR_MAX_LIMIT_REACHED)
      break;
    if (!ok(Result, "cuptiActivityGetNextRecord"))
      break;
    switch (Record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      auto *Kernel = reinterpret_cast<CUpti_ActivityKernel10 *>(Record);
      ++Current.Kernels[demangle(Kernel->name)];
      if (Kernel->graphId != 0)
        ++Current.KernelsInGraphs;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET:
      ++Current.Memsets;
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      ++Current.Memcpys;
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
      auto *Api = reinterpret_cast<CUpti_ActivityAPI *>(Record);
      ++Current.RuntimeApi[apiName(CUPTI_CB_DOMAIN_RUNTIME_API, Api->cbid)];
      break;
    }
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      auto *Api = reinterpret_cast<CUpti_ActivityAPI *>(Record);
      ++Current.DriverApi[apiName(CUPTI_CB_DOMAIN_DRIVER_API, Api->cbid)];
      break;
    }
    default:
      break;
    }
  }
  size_t Dropped = 0;
  if (ok(cuptiActivityGetNumDroppedRecords(nullptr, 0, &Dropped),
         "cuptiActivityGetNumDroppedRecords"))
    Current.Dropped += Dropped;
  std::free(Buffer);
}

const CUpti_ActivityKind Kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER};

} // namespace

uint64_t Counts::kernels() const {
  uint64_t Total = 0;
  for (const auto &Entry : Kernels)
    Total += Entry.second;
  return Total;
}

bool start() {
  {
    std::lock_guard<std::mutex> Guard(Lock);
    Current = Counts();
  }
  if (!Registered) {
    if (!ok(cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted),
            "cuptiActivityRegisterCallbacks"))
      return false;
    Registered = true;
  }
  for (CUpti_ActivityKind Kind : Kinds)
    if (!ok(cuptiActivityEnable(Kind), "cuptiActivityEnable"))
      return false;
  return true;
}

bool stop(Counts &Out) {
  bool Ok = true;
  for (CUpti_ActivityKind Kind : Kinds)
    Ok &= ok(cuptiActivityDisable(Kind), "cuptiActivityDisable");
  Ok &= ok(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED),
           "cuptiActivityFlushAll");
  std::lock_guard<std::mutex> Guard(Lock);
  Out = Current;
  Current = Counts();
  return Ok;
}

} // namespace census
