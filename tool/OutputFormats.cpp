//===--- OutputFormats.cpp - text, JSON and SARIF reports -----------------===//

#include "OutputFormats.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/Sarif.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/WithColor.h"

using namespace clang;

namespace xfer {
namespace {

llvm::StringRef levelName(const Finding &F) {
  return F.Severity == Finding::Level::Error ? "error" : "warning";
}

void writePosition(llvm::raw_ostream &OS, const SourcePosition &Where) {
  if (Where.File.empty())
    return;
  OS << Where.File;
  if (Where.Line)
    OS << ':' << Where.Line << ':' << Where.Column;
  OS << ": ";
}

void writeSnippet(llvm::raw_ostream &OS, const SourcePosition &Where,
                  PositionResolver &Resolver) {
  if (!Where.Line)
    return;
  llvm::StringRef Line = Resolver.lineText(Where.File, Where.Line);
  OS << llvm::format("%5u", Where.Line) << " | " << Line << '\n';
  OS << "      | ";
  for (unsigned I = 1; I < Where.Column && I <= Line.size(); ++I)
    OS << (Line[I - 1] == '\t' ? '\t' : ' ');
  OS << "^\n";
}

llvm::json::Object position(const SourcePosition &Where) {
  return llvm::json::Object{{"file", Where.File},
                            {"line", static_cast<int64_t>(Where.Line)},
                            {"column", static_cast<int64_t>(Where.Column)},
                            {"offset", static_cast<int64_t>(Where.Offset)}};
}

} // namespace

void writeText(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
               PositionResolver &Resolver, bool Color) {
  for (const Finding &F : Findings) {
    if (Color)
      OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
    writePosition(OS, F.Where);
    if (Color)
      OS.changeColor(F.Severity == Finding::Level::Error
                         ? llvm::raw_ostream::RED
                         : llvm::raw_ostream::MAGENTA,
                     true);
    OS << levelName(F) << ": ";
    if (Color)
      OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, true);
    OS << F.Message << " [" << F.CheckName << "]\n";
    if (Color)
      OS.resetColor();
    writeSnippet(OS, F.Where, Resolver);
    for (const FindingNote &Note : F.Notes) {
      writePosition(OS, Note.Where);
      if (Color)
        OS.changeColor(llvm::raw_ostream::BLACK, true);
      OS << "note: ";
      if (Color)
        OS.resetColor();
      OS << Note.Message << '\n';
      writeSnippet(OS, Note.Where, Resolver);
    }
  }
}

double parseNumber(llvm::StringRef Text) {
  double Value = 0;
  Text.getAsDouble(Value);
  return Value;
}

double totalMicroseconds(llvm::StringRef Number, llvm::StringRef Unit) {
  double Scale = Unit == "s" ? 1e6 : Unit == "ms" ? 1e3 : 1.0;
  return parseNumber(Number) * Scale;
}

llvm::json::Object costProperties(const Finding &F) {
  // The cost note's wording is fixed by the checks (docs/cost-model.md):
  // "measured cost: <latency> µs per call[ + <overlap> µs of lost CPU/GPU
  // overlap per iteration][, ≈ <total> over <n> executions] (measured on
  // <device>)", or for xfer-launch-bound-loop "measured cost: <saving> µs
  // per launch (eager launch minus graph replay) × <launches> launches =
  // <per iteration> µs per iteration[, ≈ <total> over <n> iterations]
  // (measured on <device>)".
  static const llvm::Regex Cost(
      "^measured cost: ([0-9.]+) µs per call"
      "( \\+ ([0-9.]+) µs of lost CPU/GPU overlap per iteration)?"
      "(, ≈ ([0-9.]+) (µs|ms|s) over ([0-9]+) executions)?"
      " \\(measured on (.*)\\)$");
  static const llvm::Regex LaunchSaving(
      "^measured cost: ([0-9.]+) µs per launch \\(eager launch minus graph "
      "replay\\) × ([0-9]+) launches = ([0-9.]+) µs per iteration"
      "(, ≈ ([0-9.]+) (µs|ms|s) over ([0-9]+) iterations)?"
      " \\(measured on (.*)\\)$");
  llvm::json::Object Properties;
  for (const FindingNote &Note : F.Notes) {
    llvm::SmallVector<llvm::StringRef, 9> Groups;
    if (Cost.match(Note.Message, &Groups)) {
      Properties["latencyMicroseconds"] = parseNumber(Groups[1]);
      if (!Groups[3].empty())
        Properties["overlapLossMicrosecondsPerIteration"] =
            parseNumber(Groups[3]);
      if (!Groups[5].empty()) {
        Properties["totalMicroseconds"] =
            totalMicroseconds(Groups[5], Groups[6]);
        Properties["executions"] =
            static_cast<int64_t>(parseNumber(Groups[7]));
      }
      Properties["measuredOn"] = Groups[8].str();
      break;
    }
    // One iteration is the unit that repeats: its saving is the latency.
    if (LaunchSaving.match(Note.Message, &Groups)) {
      Properties["latencyMicroseconds"] = parseNumber(Groups[3]);
      Properties["savingPerLaunchMicroseconds"] = parseNumber(Groups[1]);
      Properties["launchesPerIteration"] =
          static_cast<int64_t>(parseNumber(Groups[2]));
      if (!Groups[5].empty()) {
        Properties["totalMicroseconds"] =
            totalMicroseconds(Groups[5], Groups[6]);
        Properties["executions"] =
            static_cast<int64_t>(parseNumber(Groups[7]));
      }
      Properties["measuredOn"] = Groups[8].str();
      break;
    }
  }
  return Properties;
}

llvm::json::Value toJson(const std::vector<Finding> &Findings) {
  llvm::json::Array Items;
  for (const Finding &F : Findings) {
    llvm::json::Array Notes;
    for (const FindingNote &Note : F.Notes) {
      llvm::json::Object N = position(Note.Where);
      N["message"] = Note.Message;
      Notes.push_back(std::move(N));
    }
    llvm::json::Array Fixes;
    for (const tooling::Replacement &R : F.Fixes)
      Fixes.push_back(llvm::json::Object{
          {"file", R.getFilePath()},
          {"offset", static_cast<int64_t>(R.getOffset())},
          {"length", static_cast<int64_t>(R.getLength())},
          {"replacement", R.getReplacementText()}});
    llvm::json::Object Item = position(F.Where);
    Item["check"] = F.CheckName;
    Item["severity"] = levelName(F);
    Item["message"] = F.Message;
    Item["notes"] = std::move(Notes);
    Item["fixes"] = std::move(Fixes);
    Item["properties"] = costProperties(F);
    Items.push_back(std::move(Item));
  }
  return llvm::json::Object{{"version", 1},
                            {"tool", "xfer-tidy"},
                            {"toolVersion", XFER_VERSION},
                            {"findings", std::move(Items)}};
}

llvm::json::Value toSarif(const std::vector<Finding> &Findings) {
  // SarifDocumentWriter speaks SourceLocations: load each file into a
  // SourceManager of our own.
  FileSystemOptions FSOptions;
  FileManager Files(FSOptions);
  IntrusiveRefCntPtr<DiagnosticIDs> IDs(new DiagnosticIDs);
  IntrusiveRefCntPtr<DiagnosticOptions> DiagOpts(new DiagnosticOptions);
  DiagnosticsEngine Diags(IDs, DiagOpts, new IgnoringDiagConsumer);
  SourceManager SM(Diags, Files);
  llvm::StringMap<FileID> FileIDs;
  auto Range = [&](const SourcePosition &Where) -> std::optional<CharSourceRange> {
    if (Where.File.empty() || !Where.Line)
      return std::nullopt;
    auto [It, Inserted] = FileIDs.try_emplace(Where.File);
    if (Inserted) {
      llvm::Expected<FileEntryRef> Entry = Files.getFileRef(Where.File);
      if (!Entry) {
        llvm::consumeError(Entry.takeError());
        return std::nullopt;
      }
      It->second = SM.getOrCreateFileID(*Entry, SrcMgr::C_User);
    }
    SourceLocation Loc = SM.getComposedLoc(It->second, Where.Offset);
    return CharSourceRange::getCharRange(Loc, Loc.getLocWithOffset(1));
  };

  SarifDocumentWriter Writer(SM);
  Writer.createRun("xfer-tidy", "xfer-tidy", XFER_VERSION);
  llvm::StringMap<size_t> RuleIndex;
  std::vector<llvm::json::Object> Properties;
  for (const Finding &F : Findings) {
    auto [It, Inserted] = RuleIndex.try_emplace(F.CheckName);
    if (Inserted)
      It->second = Writer.createRule(
          SarifRule::create()
              .setRuleId(F.CheckName)
              .setName(F.CheckName)
              .setDescription(F.isCompilerDiagnostic()
                                  ? "Compiler diagnostic"
                                  : "xfer-tidy check " + F.CheckName));
    SarifResult Result =
        SarifResult::create(It->second)
            .setDiagnosticMessage(F.Message)
            .setDiagnosticLevel(F.Severity == Finding::Level::Error
                                    ? SarifResultLevel::Error
                                    : SarifResultLevel::Warning);
    if (std::optional<CharSourceRange> Where = Range(F.Where))
      Result = Result.setLocations({*Where});
    llvm::SmallVector<ThreadFlow, 4> Steps;
    for (const FindingNote &Note : F.Notes)
      if (std::optional<CharSourceRange> Where = Range(Note.Where))
        Steps.push_back(ThreadFlow::create()
                            .setRange(*Where)
                            .setImportance(ThreadFlowImportance::Important)
                            .setMessage(Note.Message));
    if (!Steps.empty())
      Result = Result.setThreadFlows(Steps);
    Writer.appendResult(Result);
    Properties.push_back(costProperties(F));
  }
  Writer.endRun();
  llvm::json::Object Document = Writer.createDocument();

  // SarifResult has no property bag: add the cost figures afterwards.
  if (llvm::json::Array *Runs = Document.getArray("runs"))
    if (!Runs->empty())
      if (llvm::json::Array *Results =
              (*Runs)[0].getAsObject()->getArray("results"))
        for (size_t I = 0; I < Results->size() && I < Properties.size(); ++I)
          if (!Properties[I].empty())
            (*Results)[I].getAsObject()->try_emplace("properties",
                                                     std::move(Properties[I]));
  return Document;
}

} // namespace xfer
