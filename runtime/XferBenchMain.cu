//===- XferBenchMain.cu - xfer-bench entry point --------------------------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// Parses the command line, refuses to run without a GPU (exit status 2),
// records provenance, runs the benchmark groups and writes the cost model.
//
//===----------------------------------------------------------------------===//

#include "Benchmarks.h"
#include "CudaCheck.h"
#include "benchcore/BenchOptions.h"
#include "benchcore/BenchSession.h"
#include "benchcore/HostProvenance.h"

#include <cstdio>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <optional>
#include <string>

#ifndef XFER_BENCH_VERSION
#define XFER_BENCH_VERSION "0.0.0"
#endif

namespace xferbench {
namespace {

std::string versionString(int Packed) {
  // CUDA packs versions as 1000 * major + 10 * minor.
  return std::to_string(Packed / 1000) + "." +
         std::to_string((Packed % 1000) / 10);
}

/// NVML, when the driver ships it, gives the driver's own version string and
/// current clocks. It is loaded at run time so that xfer-bench neither needs
/// nvml.h to build nor libnvidia-ml to start (CI runs it without a driver).
class Nvml {
public:
  Nvml() {
    Library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!Library)
      return;
    Init = reinterpret_cast<IntFn>(dlsym(Library, "nvmlInit_v2"));
    Shutdown = reinterpret_cast<IntFn>(dlsym(Library, "nvmlShutdown"));
    DriverVersion = reinterpret_cast<DriverVersionFn>(
        dlsym(Library, "nvmlSystemGetDriverVersion"));
    HandleByBusId = reinterpret_cast<HandleByBusIdFn>(
        dlsym(Library, "nvmlDeviceGetHandleByPciBusId_v2"));
    Clock = reinterpret_cast<ClockFn>(dlsym(Library, "nvmlDeviceGetClockInfo"));
    MaxClock =
        reinterpret_cast<ClockFn>(dlsym(Library, "nvmlDeviceGetMaxClockInfo"));
    Ready = Init && Shutdown && Init() == 0;
  }
  ~Nvml() {
    if (Ready)
      Shutdown();
    if (Library)
      dlclose(Library);
  }
  Nvml(const Nvml &) = delete;
  Nvml &operator=(const Nvml &) = delete;

  std::optional<std::string> driverVersion() const {
    char Buffer[96] = {};
    if (!Ready || !DriverVersion || DriverVersion(Buffer, sizeof(Buffer)) != 0)
      return std::nullopt;
    return std::string(Buffer);
  }

  /// ClockType: 1 = SM, 2 = memory (nvmlClockType_t).
  JsonValue clockMhz(const std::string &PciBusId, int ClockType,
                     bool Maximum) const {
    void *Device = nullptr;
    unsigned Mhz = 0;
    ClockFn Read = Maximum ? MaxClock : Clock;
    if (!Ready || !HandleByBusId || !Read ||
        HandleByBusId(PciBusId.c_str(), &Device) != 0 ||
        Read(Device, ClockType, &Mhz) != 0)
      return JsonValue();
    return JsonValue(Mhz);
  }

private:
  using IntFn = int (*)();
  using DriverVersionFn = int (*)(char *, unsigned);
  using HandleByBusIdFn = int (*)(const char *, void **);
  using ClockFn = int (*)(void *, int, unsigned *);
  void *Library = nullptr;
  IntFn Init = nullptr, Shutdown = nullptr;
  DriverVersionFn DriverVersion = nullptr;
  HandleByBusIdFn HandleByBusId = nullptr;
  ClockFn Clock = nullptr, MaxClock = nullptr;
  bool Ready = false;
};

constexpr int NvmlClockSm = 1, NvmlClockMemory = 2;

std::string pciBusId(int Device) {
  char Buffer[64] = {};
  XFER_CUDA_CHECK(cudaDeviceGetPCIBusId(Buffer, sizeof(Buffer), Device));
  return Buffer;
}

void recordDeviceProvenance(ProvenanceRecord &P, const Nvml &Library,
                            int Device) {
  cudaDeviceProp Properties;
  XFER_CUDA_CHECK(cudaGetDeviceProperties(&Properties, Device));
  P.Device = Properties.name;
  P.ComputeCapability =
      std::to_string(Properties.major) + "." + std::to_string(Properties.minor);
  P.Multiprocessors = Properties.multiProcessorCount;
  P.DeviceMemoryBytes = Properties.totalGlobalMem;
  P.L2CacheBytes = uint64_t(Properties.l2CacheSize);

  int DriverApi = 0, Runtime = 0;
  XFER_CUDA_CHECK(cudaDriverGetVersion(&DriverApi));
  XFER_CUDA_CHECK(cudaRuntimeGetVersion(&Runtime));
  P.CudaDriverApi = versionString(DriverApi);
  P.CudaRuntime = versionString(Runtime);

  P.Driver = Library.driverVersion();
  if (!P.Driver)
    if (auto Text = readTextFile("/proc/driver/nvidia/version"))
      P.Driver = driverFromProcVersion(*Text);

  int SmPeakKhz = 0, MemoryPeakKhz = 0;
  XFER_CUDA_CHECK(
      cudaDeviceGetAttribute(&SmPeakKhz, cudaDevAttrClockRate, Device));
  XFER_CUDA_CHECK(cudaDeviceGetAttribute(&MemoryPeakKhz,
                                         cudaDevAttrMemoryClockRate, Device));
  const std::string BusId = pciBusId(Device);
  P.ClocksMhz.set("sm_peak_attribute", SmPeakKhz / 1000);
  P.ClocksMhz.set("memory_peak_attribute", MemoryPeakKhz / 1000);
  P.ClocksMhz.set("sm_max_nvml", Library.clockMhz(BusId, NvmlClockSm, true));
  P.ClocksMhz.set("sm_at_start_nvml",
                  Library.clockMhz(BusId, NvmlClockSm, false));
  P.ClocksMhz.set("memory_at_start_nvml",
                  Library.clockMhz(BusId, NvmlClockMemory, false));

  P.CpuModel = readCpuModel();
  P.CpuLogicalCores = logicalCoreCount();
  P.ToolVersion = XFER_BENCH_VERSION;
}

} // namespace
} // namespace xferbench

int main(int Argc, char **Argv) {
  using namespace xferbench;
  BenchOptions Options;
  std::string Error;
  if (!parseBenchOptions(Argc, Argv, Options, Error)) {
    std::fprintf(stderr, "xfer-bench: error: %s (try --help)\n", Error.c_str());
    return ExitUsage;
  }
  if (Options.Help) {
    std::fputs(benchUsage("xfer-bench").c_str(), stdout);
    return ExitSuccess;
  }

  int DeviceCount = 0;
  cudaError_t Status = cudaGetDeviceCount(&DeviceCount);
  if (Status != cudaSuccess || DeviceCount == 0) {
    std::fprintf(stderr, "xfer-bench: no CUDA device available (%s)\n",
                 Status != cudaSuccess ? cudaGetErrorString(Status)
                                       : "cudaGetDeviceCount returned 0");
    return ExitNoGpu;
  }
  constexpr int Device = 0;
  XFER_CUDA_CHECK(cudaSetDevice(Device));
  XFER_CUDA_CHECK(cudaFree(nullptr)); // Create the context outside timings.

  BenchSession Session(Options);
  Session.setOutputPath(Options.OutputPath);
  ProvenanceRecord &P = Session.document().Provenance;
  P.CommandLine = joinCommandLine(Argc, Argv);
  P.DateUtc = utcNow();
  Nvml Library;
  recordDeviceProvenance(P, Library, Device);
  P.LibTorch = libTorchVersion();

  BenchSession::log("xfer-bench " + P.ToolVersion + " on " + P.Device +
                    " (cc " + P.ComputeCapability + "), driver " +
                    P.Driver.value_or("unknown") + ", CUDA runtime " +
                    P.CudaRuntime + ", LibTorch " +
                    P.LibTorch.value_or("not built in") + "; " + P.CpuModel +
                    (Options.Quick ? "; QUICK" : ""));

  runCudaBenchmarks(Session);
  if (haveTorchBenchmarks())
    runTorchBenchmarks(Session);
  else
    BenchSession::log("-- LibTorch benchmarks not built in");

  const std::string BusId = pciBusId(Device);
  P.ClocksMhz.set("sm_at_end_nvml",
                  Library.clockMhz(BusId, NvmlClockSm, false));
  if (Session.failedChecks()) {
    JsonValue Failed = JsonValue::array();
    for (const auto &Message : Session.failedCheckMessages())
      Failed.push(Message);
    P.Extra.set("failed_sanity_checks", std::move(Failed));
  }

  if (!Session.writeFinal(Error)) {
    std::fprintf(stderr, "xfer-bench: error: %s\n", Error.c_str());
    return ExitFailure;
  }
  if (!Options.OutputPath.empty())
    BenchSession::log("wrote " + Options.OutputPath);
  std::fputs(Session.summaryTable().c_str(), stdout);
  return Session.failedChecks() ? ExitFailure : ExitSuccess;
}
