//===--- CostNote.cpp - the figures of a cost note, and its text ----------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "cost/CostNote.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <limits>

namespace clang::tidy::xfer {
namespace {

/// \p Us, or the largest double when it overflowed: "inf" is neither a
/// figure to state nor a JSON number.
double saturated(double Us) {
  return std::isinf(Us) ? std::numeric_limits<double>::max() : Us;
}

/// \p Value written with \p Decimals (1 or 2) decimals, as the note writes
/// it.
std::string fixed(double Value, unsigned Decimals) {
  return Decimals == 1 ? llvm::formatv("{0:f1}", Value).str()
                       : llvm::formatv("{0:f2}", Value).str();
}

/// The number \p Value is written as with \p Decimals decimals: the JSON
/// properties state what the note states.
double asWritten(double Value, unsigned Decimals) {
  double Written = 0;
  llvm::StringRef(fixed(Value, Decimals)).getAsDouble(Written);
  return Written;
}

/// A duration in the unit that suits its size.
struct Duration {
  double Value;
  unsigned Decimals;
  llvm::StringRef Unit;
  double UnitUs;

  std::string text() const { return fixed(Value, Decimals) + " " + Unit.str(); }
  /// The microseconds the text states, to the nanosecond.
  double writtenUs() const {
    return saturated(std::round(asWritten(Value, Decimals) * UnitUs * 1e3) /
                     1e3);
  }
};

Duration duration(double Us) {
  if (Us >= 1e6)
    return {Us / 1e6, 2, "s", 1e6};
  if (Us >= 1e3)
    return {Us / 1e3, 1, "ms", 1e3};
  return {Us, 1, "µs", 1};
}

thread_local CostNoteTable *RecordingTable = nullptr;

} // namespace

double CostNote::perExecutionUs() const {
  if (Kind == Form::LaunchSaving)
    return saturated(PerCallUs * static_cast<double>(LaunchesPerIteration));
  return saturated(PerCallUs + OverlapUs.value_or(0));
}

double CostNote::totalUs() const {
  return saturated(perExecutionUs() *
                   static_cast<double>(Executions.value_or(1)));
}

/// The overlap term is written only from 0.05 µs on, where it shows as at
/// least "0.1".
static bool showsOverlap(const CostNote &Note) {
  return Note.Kind == CostNote::Form::PerCall && Note.OverlapUs &&
         *Note.OverlapUs >= 0.05;
}

static bool showsTotal(const CostNote &Note) {
  return Note.Executions && *Note.Executions > 1;
}

std::string CostNote::text() const {
  std::string Text = TextPrefix.str();
  if (Kind == Form::LaunchSaving)
    Text += llvm::formatv("{0} µs per launch (eager launch minus graph "
                          "replay) × {1} launches = {2} µs per iteration",
                          fixed(PerCallUs, 2), LaunchesPerIteration,
                          fixed(perExecutionUs(), 2));
  else
    Text += fixed(PerCallUs, 2) + " µs per call";
  if (showsOverlap(*this))
    Text += " + " + fixed(*OverlapUs, 1) +
            " µs of lost CPU/GPU overlap per iteration";
  if (showsTotal(*this))
    Text += ", ≈ " + duration(totalUs()).text() + " over " +
            std::to_string(*Executions) +
            (Kind == Form::LaunchSaving ? " iterations" : " executions");
  return Text + " (measured on " + MeasuredOn + ")";
}

llvm::json::Object CostNote::properties() const {
  llvm::json::Object Properties;
  if (Kind == Form::LaunchSaving) {
    // One iteration is the unit that repeats: its saving is the latency.
    Properties["latencyMicroseconds"] = asWritten(perExecutionUs(), 2);
    Properties["savingPerLaunchMicroseconds"] = asWritten(PerCallUs, 2);
    Properties["launchesPerIteration"] =
        static_cast<int64_t>(LaunchesPerIteration);
  } else {
    Properties["latencyMicroseconds"] = asWritten(PerCallUs, 2);
  }
  if (showsOverlap(*this))
    Properties["overlapLossMicrosecondsPerIteration"] =
        asWritten(*OverlapUs, 1);
  if (showsTotal(*this)) {
    Properties["totalMicroseconds"] = duration(totalUs()).writtenUs();
    Properties["executions"] = static_cast<int64_t>(*Executions);
  }
  Properties["measuredOn"] = MeasuredOn;
  return Properties;
}

void CostNoteTable::add(llvm::StringRef Check, llvm::StringRef File,
                        unsigned Offset, CostNote Note) {
  Notes[Key(Check.str(), File.str(), Offset)].push_back(std::move(Note));
}

const CostNote *CostNoteTable::find(llvm::StringRef Check, llvm::StringRef File,
                                    unsigned Offset,
                                    llvm::StringRef Message) const {
  auto It = Notes.find(Key(Check.str(), File.str(), Offset));
  if (It == Notes.end())
    return nullptr;
  for (const CostNote &Note : It->second)
    if (Note.text() == Message)
      return &Note;
  return nullptr;
}

void CostNoteTable::merge(CostNoteTable &&Other) {
  for (auto &[Where, Recorded] : Other.Notes) {
    std::vector<CostNote> &Into = Notes[Where];
    for (CostNote &Note : Recorded)
      Into.push_back(std::move(Note));
  }
  Other.Notes.clear();
}

CostNoteTable::RecordingScope::RecordingScope(CostNoteTable &Table)
    : Previous(RecordingTable) {
  RecordingTable = &Table;
}

CostNoteTable::RecordingScope::~RecordingScope() { RecordingTable = Previous; }

CostNoteTable *CostNoteTable::recording() { return RecordingTable; }

} // namespace clang::tidy::xfer
