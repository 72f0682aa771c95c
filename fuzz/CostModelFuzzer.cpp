//===--- CostModelFuzzer.cpp - the cost-model reader under libFuzzer ------===//
//
// Feeds the input to CostModel::parse as a cost model (--cost-model) and,
// when it is accepted, asks it what the checks ask: latencies over a range
// of payload sizes, overlap losses over a range of host and device work,
// and the text and JSON of the notes citing them. A model the reader
// accepts must give finite figures, and notes whose JSON is valid.
//
//===----------------------------------------------------------------------===//

#include "cost/CostModel.h"
#include "cost/CostNote.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

using namespace clang::tidy::xfer;

namespace {

void requireNumber(double Value, const char *What) {
  if (!std::isfinite(Value)) {
    std::fprintf(stderr, "accepted cost model gave %g for %s\n", Value, What);
    std::abort();
  }
}

void exerciseNote(CostNote Note) {
  Note.Executions = 1000;
  requireNumber(Note.perExecutionUs(), "a note's cost per execution");
  requireNumber(Note.totalUs(), "a note's total cost");
  std::string Text = Note.text();
  (void)Text;
  std::string Json;
  llvm::raw_string_ostream OS(Json);
  OS << llvm::json::Value(Note.properties());
  OS.flush();
  if (llvm::Expected<llvm::json::Value> Reparsed = llvm::json::parse(Json);
      !Reparsed) {
    std::fprintf(stderr, "a note's properties are not valid JSON: %s\n",
                 Json.c_str());
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Json(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<CostModel> Model = CostModel::parse(Json, "fuzz.json");
  if (!Model) {
    llvm::consumeError(Model.takeError());
    return 0;
  }
  const std::string MeasuredOn = Model->provenance().summary();
  const std::optional<uint64_t> Sizes[] = {
      std::nullopt, 0, 1, 4, 4096, 1u << 20, uint64_t(1) << 40,
      std::numeric_limits<uint64_t>::max()};
  const double WorkUs[] = {0, 0.5, 3, 100, 1e4, 1e9};
  for (const std::string &Id : Model->patternIds()) {
    for (std::optional<uint64_t> Bytes : Sizes)
      if (std::optional<CostPoint> Cost = Model->latency(Id, Bytes)) {
        requireNumber(Cost->MedianUs, "a latency");
        requireNumber(Cost->P10Us, "a latency's 10th percentile");
        requireNumber(Cost->P90Us, "a latency's 90th percentile");
        CostNote Note;
        Note.PatternId = Id;
        Note.PerCallUs = Cost->MedianUs;
        Note.MeasuredOn = MeasuredOn;
        exerciseNote(Note);
      }
    for (double Host : WorkUs)
      for (double Device : WorkUs)
        if (std::optional<double> Loss =
                Model->syncOverlapLossUs(Id, Host, Device)) {
          requireNumber(*Loss, "an overlap loss");
          CostNote Note;
          Note.PatternId = Id;
          Note.OverlapUs = *Loss;
          Note.MeasuredOn = MeasuredOn;
          exerciseNote(Note);
        }
  }
  // The graph-replay saving, as estimateLaunchSaving() cites it.
  std::optional<CostPoint> Eager =
      Model->latency(::xfer::patterns::CudaGraphEagerPerKernel);
  std::optional<CostPoint> Replay =
      Model->latency(::xfer::patterns::CudaGraphReplayPerKernel);
  if (Eager && Replay) {
    CostNote Saving;
    Saving.Kind = CostNote::Form::LaunchSaving;
    Saving.PerCallUs = std::max(0.0, Eager->MedianUs - Replay->MedianUs);
    Saving.LaunchesPerIteration = 10;
    Saving.MeasuredOn = MeasuredOn;
    exerciseNote(Saving);
  }
  for (const MeasuredSaving &Saving : Model->fidelity())
    if (Model->fidelity(Saving.Id) == nullptr)
      std::abort(); // every listed record must be found by its id
  return 0;
}
