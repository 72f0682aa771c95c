//===- BenchSession.cpp - State shared by the benchmark groups ------------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "benchcore/BenchSession.h"
#include "benchcore/HostProvenance.h"

#include <algorithm>
#include <cstdio>

namespace xferbench {

BenchSession::BenchSession(BenchOptions Options) : Options(std::move(Options)) {
  Document.Provenance.Quick = this->Options.Quick;
  Document.Provenance.Repetitions = policy();
}

RepetitionPolicy BenchSession::policy(double BudgetMs, unsigned MinReps,
                                      unsigned MaxReps, unsigned Warmup) const {
  RepetitionPolicy Policy;
  Policy.BudgetMs = BudgetMs;
  Policy.MinReps = MinReps;
  Policy.MaxReps = MaxReps;
  Policy.Warmup = Warmup;
  if (Options.Quick) {
    Policy.BudgetMs = BudgetMs / 10;
    Policy.MinReps = std::max(3u, MinReps / 10);
    Policy.MaxReps = std::max(Policy.MinReps, MaxReps / 10);
    Policy.Warmup = std::max(1u, Warmup / 5);
  }
  return Policy;
}

std::string formatBytes(uint64_t Bytes) {
  char Buffer[32];
  if (Bytes >= (1ull << 20) && Bytes % (1ull << 20) == 0)
    std::snprintf(Buffer, sizeof(Buffer), "%llu MiB",
                  (unsigned long long)(Bytes >> 20));
  else if (Bytes >= 1024 && Bytes % 1024 == 0)
    std::snprintf(Buffer, sizeof(Buffer), "%llu KiB",
                  (unsigned long long)(Bytes >> 10));
  else
    std::snprintf(Buffer, sizeof(Buffer), "%llu B", (unsigned long long)Bytes);
  return Buffer;
}

bool BenchSession::write(std::string &Error) {
  if (OutputPath.empty())
    return true;
  return writeFileAtomically(OutputPath, Document.toJson().serialize(), Error);
}

bool BenchSession::checkpoint(std::string &Error) {
  Document.Provenance.Complete = false;
  return write(Error);
}

void BenchSession::saveProgress() {
  std::string Error;
  if (!checkpoint(Error))
    std::fprintf(stderr, "xfer-bench: warning: checkpoint: %s\n",
                 Error.c_str());
}

bool BenchSession::writeFinal(std::string &Error) {
  Document.Provenance.Complete = true;
  return write(Error);
}

void BenchSession::log(const std::string &Line) {
  std::fputs(Line.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

static std::string pointLine(const std::string &Id,
                             const std::optional<uint64_t> &Bytes,
                             const SampleSummary &S) {
  char Buffer[256];
  std::snprintf(Buffer, sizeof(Buffer),
                "  %-46s %10s  median %11.3f us  p10 %11.3f  p90 %11.3f  "
                "spread %5.2f  reps %u",
                Id.c_str(), Bytes ? formatBytes(*Bytes).c_str() : "-",
                S.MedianUs, S.P10Us, S.P90Us, S.relativeSpread(), S.Reps);
  return Buffer;
}

void BenchSession::record(LatencyPattern Pattern) {
  for (const auto &Point : Pattern.Points)
    log(pointLine(Pattern.Id, Point.Bytes, Point.Summary));
  Document.addLatency(std::move(Pattern));
}

void BenchSession::record(OverlapGrid Grid) {
  char Buffer[256];
  for (const auto &Cell : Grid.Cells) {
    std::snprintf(Buffer, sizeof(Buffer),
                  "  %-30s H %6.0f D %6.0f (measured %8.2f)  no-sync %9.2f  "
                  "sync %9.2f  cost %8.2f [%8.2f, %8.2f] us/iter  x%u",
                  Grid.Id.c_str(), Cell.HostUs, Cell.DeviceUs,
                  Cell.DeviceMeasuredUs, Cell.NoSync.MedianUs,
                  Cell.WithSync.MedianUs, Cell.Cost.MedianUs, Cell.Cost.P10Us,
                  Cell.Cost.P90Us, Cell.Iterations);
    log(Buffer);
  }
  Document.addGrid(std::move(Grid));
}

void BenchSession::record(FidelityRecord Record) {
  char Buffer[320];
  std::snprintf(Buffer, sizeof(Buffer),
                "  fidelity %-36s hazard %9.2f  fixed %9.2f  saving %9.2f "
                "[%8.2f, %8.2f] us/iter (%s)",
                Record.Id.c_str(), Record.HazardIteration.MedianUs,
                Record.FixedIteration.MedianUs, Record.Saving.MedianUs,
                Record.Saving.P10Us, Record.Saving.P90Us,
                Record.Device.c_str());
  log(Buffer);
  Document.addFidelity(std::move(Record));
}

void BenchSession::check(bool Ok, const std::string &What) {
  log(std::string(Ok ? "  check ok:     " : "  CHECK FAILED: ") + What);
  if (!Ok)
    FailedChecks.push_back(What);
}

std::string BenchSession::summaryTable() const {
  std::string Out;
  char Buffer[256];
  const auto &P = Document.Provenance;
  Out += "== summary (median [p10, p90] microseconds) ==\n";
  Out += "device: " + P.Device + " (cc " + P.ComputeCapability + "), driver " +
         P.Driver.value_or("unknown") + ", CUDA runtime " + P.CudaRuntime +
         ", LibTorch " + P.LibTorch.value_or("none") + "\n";
  Out += "cpu: " + P.CpuModel + ", date " + P.DateUtc +
         (P.Quick ? ", QUICK run" : "") + "\n";
  for (const auto &Pattern : Document.latencies()) {
    std::vector<const MeasuredPoint *> Shown;
    const auto &Points = Pattern.Points;
    if (!Pattern.Sized) {
      Shown.push_back(&Points.front());
    } else {
      // Smallest, the point nearest 1 MiB, largest: latency, a middle size
      // and bandwidth.
      Shown.push_back(&Points.front());
      const MeasuredPoint *Middle = nullptr;
      for (const auto &Point : Points)
        if (Point.Bytes && *Point.Bytes <= (1u << 20))
          Middle = &Point;
      if (Middle && Middle != Shown.back())
        Shown.push_back(Middle);
      if (&Points.back() != Shown.back())
        Shown.push_back(&Points.back());
    }
    for (const MeasuredPoint *Point : Shown) {
      const SampleSummary &S = Point->Summary;
      std::string Size = Point->Bytes ? formatBytes(*Point->Bytes) : "";
      std::string Rate;
      if (Pattern.ReportsBandwidth && Point->Bytes &&
          *Point->Bytes >= (1u << 20) && S.MedianUs > 0) {
        char RateBuffer[32];
        std::snprintf(RateBuffer, sizeof(RateBuffer), "  %.1f GB/s",
                      double(*Point->Bytes) / (S.MedianUs * 1e3));
        Rate = RateBuffer;
      }
      std::snprintf(Buffer, sizeof(Buffer),
                    "%-46s %9s %11.2f [%10.2f, %10.2f] n=%u%s\n",
                    Pattern.Id.c_str(), Size.c_str(), S.MedianUs, S.P10Us,
                    S.P90Us, S.Reps, Rate.c_str());
      Out += Buffer;
    }
  }
  for (const auto &Grid : Document.grids()) {
    Out += Grid.Id + ": per-iteration cost of " + Grid.Sync +
           " (rows host_us, columns device_us)\n";
    std::snprintf(Buffer, sizeof(Buffer), "%8s", "H\\D");
    Out += Buffer;
    for (double D : Grid.DeviceUs) {
      std::snprintf(Buffer, sizeof(Buffer), " %8.0f", D);
      Out += Buffer;
    }
    Out += "\n";
    for (size_t H = 0; H < Grid.HostUs.size(); ++H) {
      std::snprintf(Buffer, sizeof(Buffer), "%8.0f", Grid.HostUs[H]);
      Out += Buffer;
      for (size_t D = 0; D < Grid.DeviceUs.size(); ++D) {
        size_t Index = H * Grid.DeviceUs.size() + D;
        if (Index < Grid.Cells.size())
          std::snprintf(Buffer, sizeof(Buffer), " %8.1f",
                        Grid.Cells[Index].Cost.MedianUs);
        else
          std::snprintf(Buffer, sizeof(Buffer), " %8s", "-");
        Out += Buffer;
      }
      Out += "\n";
    }
  }
  for (const auto &Record : Document.fidelity()) {
    std::snprintf(Buffer, sizeof(Buffer),
                  "fidelity %-38s %-4s hazard %9.2f fixed %9.2f saving %9.2f "
                  "[%8.2f, %8.2f] us/iter\n",
                  Record.Id.c_str(), Record.Device.c_str(),
                  Record.HazardIteration.MedianUs,
                  Record.FixedIteration.MedianUs, Record.Saving.MedianUs,
                  Record.Saving.P10Us, Record.Saving.P90Us);
    Out += Buffer;
  }
  std::snprintf(Buffer, sizeof(Buffer), "sanity checks failed: %zu\n",
                FailedChecks.size());
  Out += Buffer;
  return Out;
}

} // namespace xferbench
