//===--- TraceJoin.cpp - findings joined with an xfer-trace run -----------===//

#include "TraceJoin.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cmath>
#include <map>

namespace xfer {

namespace {

llvm::Error fieldError(llvm::StringRef Name, const llvm::Twine &Field,
                       const llvm::Twine &Expected) {
  return llvm::createStringError(std::errc::invalid_argument,
                                 "%s: %s: expected %s", Name.str().c_str(),
                                 Field.str().c_str(), Expected.str().c_str());
}

/// Reads the fields of one trace.json object, naming the first bad one.
class FieldReader {
public:
  FieldReader(const llvm::json::Object &Object, llvm::StringRef Name,
              std::string Where)
      : Object(Object), Name(Name), Where(std::move(Where)) {}

  llvm::Error number(llvm::StringRef Key, double &Into) {
    std::optional<double> Value =
        Object.get(Key) ? Object.get(Key)->getAsNumber() : std::nullopt;
    // JSON numbers beyond the double range read as infinity, which the
    // reports could not write back.
    if (!Value || *Value < 0 || !std::isfinite(*Value))
      return fieldError(Name, field(Key), "a non-negative number");
    Into = *Value;
    return llvm::Error::success();
  }
  llvm::Error integer(llvm::StringRef Key, uint64_t &Into) {
    std::optional<int64_t> Value =
        Object.get(Key) ? Object.get(Key)->getAsInteger() : std::nullopt;
    if (!Value || *Value < 0)
      return fieldError(Name, field(Key), "a non-negative integer");
    Into = uint64_t(*Value);
    return llvm::Error::success();
  }
  /// A string or null (left empty).
  llvm::Error optionalString(llvm::StringRef Key, std::string &Into) {
    const llvm::json::Value *Value = Object.get(Key);
    if (!Value || Value->kind() == llvm::json::Value::Null)
      return llvm::Error::success();
    if (std::optional<llvm::StringRef> Text = Value->getAsString()) {
      Into = Text->str();
      return llvm::Error::success();
    }
    return fieldError(Name, field(Key), "a string or null");
  }
  std::string field(llvm::StringRef Key) const {
    return Where.empty() ? Key.str() : Where + "." + Key.str();
  }

private:
  const llvm::json::Object &Object;
  llvm::StringRef Name;
  std::string Where;
};

llvm::Expected<TraceSite> parseSite(const llvm::json::Value &Value,
                                    llvm::StringRef Name,
                                    const std::string &Where) {
  const llvm::json::Object *Object = Value.getAsObject();
  if (!Object)
    return fieldError(Name, Where, "an object");
  FieldReader Read(*Object, Name, Where);
  TraceSite Site;
  if (llvm::Error Err = Read.optionalString("file", Site.File))
    return std::move(Err);
  if (!Site.File.empty()) {
    uint64_t Line = 0;
    if (llvm::Error Err = Read.integer("line", Line))
      return std::move(Err);
    if (Line == 0 || Line > UINT32_MAX)
      return fieldError(Name, Read.field("line"), "a line number");
    Site.Line = unsigned(Line);
  }
  if (llvm::Error Err = Read.optionalString("function", Site.Function))
    return std::move(Err);
  if (llvm::Error Err = Read.integer("calls", Site.Calls))
    return std::move(Err);
  if (llvm::Error Err = Read.integer("bytes", Site.Bytes))
    return std::move(Err);
  if (llvm::Error Err = Read.optionalString("hostMemory", Site.HostMemory))
    return std::move(Err);
  if (llvm::Error Err = Read.number("blockedMicroseconds",
                                    Site.BlockedMicroseconds))
    return std::move(Err);
  if (llvm::Error Err = Read.number("gpuIdleMicroseconds",
                                    Site.GpuIdleMicroseconds))
    return std::move(Err);
  if (llvm::Error Err = Read.number("estimatedSavingMicroseconds",
                                    Site.EstimatedSavingMicroseconds))
    return std::move(Err);
  const llvm::json::Array *Paths = Object->getArray("apiPaths");
  if (!Paths)
    return fieldError(Name, Read.field("apiPaths"), "an array");
  for (size_t I = 0; I < Paths->size(); ++I) {
    std::string PathWhere = llvm::formatv("{0}.apiPaths[{1}]", Where, I);
    const llvm::json::Object *Path = (*Paths)[I].getAsObject();
    if (!Path)
      return fieldError(Name, PathWhere, "an object");
    FieldReader ReadPath(*Path, Name, PathWhere);
    TraceApiPath Api;
    std::optional<llvm::StringRef> Text = Path->getString("path");
    if (!Text || Text->empty())
      return fieldError(Name, ReadPath.field("path"), "a string");
    Api.Path = Text->str();
    if (llvm::Error Err = ReadPath.integer("calls", Api.Calls))
      return std::move(Err);
    Site.ApiPaths.push_back(std::move(Api));
  }
  return Site;
}

/// How many trailing path components two paths share ("a/b/c.cpp" and
/// "/x/b/c.cpp": 2).
unsigned commonTail(llvm::StringRef A, llvm::StringRef B) {
  llvm::SmallVector<llvm::StringRef, 16> PartsA, PartsB;
  A.split(PartsA, '/', -1, /*KeepEmpty=*/false);
  B.split(PartsB, '/', -1, /*KeepEmpty=*/false);
  unsigned Common = 0;
  while (Common < PartsA.size() && Common < PartsB.size() &&
         PartsA[PartsA.size() - 1 - Common] == PartsB[PartsB.size() - 1 - Common])
    ++Common;
  return Common;
}

bool isTransferCheck(llvm::StringRef Check) {
  return Check == "xfer-sync-in-loop" || Check == "xfer-copy-in-loop" ||
         Check == "xfer-create-on-device" || Check == "xfer-pageable-async-copy";
}

std::string milliseconds(double Microseconds) {
  double Ms = Microseconds / 1000.0;
  const char *Format = Ms >= 100 ? "{0:f0}" : Ms >= 10 ? "{0:f1}" : "{0:f2}";
  return llvm::formatv(Format, Ms).str();
}

double percentOf(double Microseconds, double Total) {
  return Total > 0 ? 100.0 * Microseconds / Total : 0.0;
}

/// Rounded as the note writes it, so JSON and text agree.
double rounded(double Value, int Digits) {
  double Scale = std::pow(10.0, Digits);
  return std::round(Value * Scale) / Scale;
}

std::string apiPathList(const TraceSite &Site) {
  std::vector<std::string> Paths;
  for (const TraceApiPath &Path : Site.ApiPaths)
    Paths.push_back(Path.Path);
  return llvm::join(Paths, "; ");
}

llvm::json::Object siteObject(const TraceSite &Site, const Trace &T) {
  llvm::json::Array Paths;
  for (const TraceApiPath &Path : Site.ApiPaths)
    Paths.push_back(llvm::json::Object{{"path", Path.Path},
                                       {"calls", int64_t(Path.Calls)}});
  return llvm::json::Object{
      {"file", Site.File},
      {"line", int64_t(Site.Line)},
      {"function", Site.Function},
      {"calls", int64_t(Site.Calls)},
      {"bytes", int64_t(Site.Bytes)},
      {"blockedMilliseconds", rounded(Site.BlockedMicroseconds / 1000, 3)},
      {"gpuIdleMilliseconds", rounded(Site.GpuIdleMicroseconds / 1000, 3)},
      {"tracedPercent",
       rounded(percentOf(Site.GpuIdleMicroseconds, T.TracedMicroseconds), 1)},
      {"apiPaths", std::move(Paths)}};
}

llvm::json::Object traceObject(const Trace &T, const TraceJoin &Join,
                               const std::vector<Finding> &Findings) {
  llvm::json::Array Unreported, Never;
  for (size_t I = 0; I < Join.Unreported.size(); ++I) {
    llvm::json::Object Site = siteObject(*Join.Unreported[I], T);
    Site["file"] = Join.UnreportedFiles[I];
    Site["tracedFile"] = Join.Unreported[I]->File;
    Unreported.push_back(std::move(Site));
  }
  for (size_t Index : Join.NeverExecuted) {
    const Finding &F = Findings[Index];
    Never.push_back(llvm::json::Object{{"check", F.CheckName},
                                       {"file", F.Where.File},
                                       {"line", int64_t(F.Where.Line)},
                                       {"column", int64_t(F.Where.Column)}});
  }
  return llvm::json::Object{
      {"file", T.FileName},
      {"device", T.Device},
      {"tracedMilliseconds", rounded(T.TracedMicroseconds / 1000, 3)},
      {"unreportedSites", std::move(Unreported)},
      {"neverExecuted", std::move(Never)}};
}

/// The measured properties of finding \p Index (empty when it is not a
/// transfer finding).
llvm::json::Object measuredProperties(const Trace &T, const TraceJoin &Join,
                                      const std::vector<Finding> &Findings,
                                      size_t Index) {
  llvm::json::Object Properties;
  if (const TraceSite *Site = Join.Matches[Index]) {
    llvm::json::Array Paths;
    for (const TraceApiPath &Path : Site->ApiPaths)
      Paths.push_back(Path.Path);
    Properties["measuredCalls"] = int64_t(Site->Calls);
    Properties["measuredBlockedMilliseconds"] =
        rounded(Site->BlockedMicroseconds / 1000, 3);
    Properties["measuredGpuIdleMilliseconds"] =
        rounded(Site->GpuIdleMicroseconds / 1000, 3);
    Properties["measuredTracedPercent"] =
        rounded(percentOf(Site->GpuIdleMicroseconds, T.TracedMicroseconds), 1);
    Properties["measuredSavingMilliseconds"] =
        rounded(Site->EstimatedSavingMicroseconds / 1000, 3);
    Properties["measuredRank"] = int64_t(Join.Ranks[Index]);
    Properties["measuredApiPaths"] = std::move(Paths);
  } else if (isTransferCheck(Findings[Index].CheckName)) {
    Properties["measuredCalls"] = 0;
    Properties["executedInTrace"] = false;
  }
  return Properties;
}

/// Adds \p Properties to the "properties" of the first unused item of
/// \p Items whose check and line are those of \p F.
void annotate(llvm::json::Array &Items, std::vector<bool> &Used,
              const Finding &F, llvm::json::Object Properties,
              bool Sarif) {
  if (Properties.empty())
    return;
  for (size_t I = 0; I < Items.size(); ++I) {
    llvm::json::Object *Item = Items[I].getAsObject();
    if (!Item || Used[I])
      continue;
    std::optional<llvm::StringRef> Check =
        Item->getString(Sarif ? "ruleId" : "check");
    std::optional<int64_t> Line;
    if (Sarif) {
      if (const llvm::json::Array *Locations = Item->getArray("locations"))
        if (!Locations->empty())
          if (const llvm::json::Object *Location = (*Locations)[0].getAsObject())
            if (const llvm::json::Object *Physical =
                    Location->getObject("physicalLocation"))
              if (const llvm::json::Object *Region =
                      Physical->getObject("region"))
                Line = Region->getInteger("startLine");
    } else {
      Line = Item->getInteger("line");
    }
    if (!Check || *Check != F.CheckName || !Line || *Line != F.Where.Line)
      continue;
    Used[I] = true;
    llvm::json::Object *Existing = Item->getObject("properties");
    if (!Existing) {
      (*Item)["properties"] = llvm::json::Object();
      Existing = Item->getObject("properties");
    }
    for (auto &Entry : Properties)
      (*Existing)[Entry.first] = std::move(Entry.second);
    return;
  }
}

} // namespace

llvm::Expected<Trace> parseTrace(llvm::StringRef Text, llvm::StringRef Name) {
  llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(Text);
  if (!Parsed)
    return llvm::createStringError(std::errc::invalid_argument,
                                   "%s: malformed trace: %s", Name.str().c_str(),
                                   llvm::toString(Parsed.takeError()).c_str());
  const llvm::json::Object *Root = Parsed->getAsObject();
  if (!Root)
    return fieldError(Name, "(top level)", "an object");
  if (Root->getString("tool") != std::optional<llvm::StringRef>("xfer-trace"))
    return fieldError(Name, "tool", "\"xfer-trace\"");
  if (Root->getInteger("version") != std::optional<int64_t>(1))
    return fieldError(Name, "version", "1");
  Trace T;
  T.FileName = Name.str();
  FieldReader Read(*Root, Name, "");
  if (llvm::Error Err = Read.number("tracedMicroseconds", T.TracedMicroseconds))
    return std::move(Err);
  if (llvm::Error Err = Read.optionalString("device", T.Device))
    return std::move(Err);
  const llvm::json::Array *Sites = Root->getArray("sites");
  if (!Sites)
    return fieldError(Name, "sites", "an array");
  for (size_t I = 0; I < Sites->size(); ++I) {
    llvm::Expected<TraceSite> Site =
        parseSite((*Sites)[I], Name, llvm::formatv("sites[{0}]", I).str());
    if (!Site)
      return Site.takeError();
    if (!Site->File.empty()) // calls no user frame could be found for
      T.Sites.push_back(std::move(*Site));
  }
  return T;
}

llvm::Expected<Trace> loadTrace(llvm::StringRef Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(), "%s: cannot read: %s",
                                   Path.str().c_str(),
                                   Buffer.getError().message().c_str());
  return parseTrace((*Buffer)->getBuffer(), Path);
}

std::string measuredNote(const TraceSite &Site, double TracedMicroseconds) {
  return llvm::formatv("measured in this program: {0} {1}, {2} ms blocked, "
                       "{3} ms GPU idle ({4:f1}% of the traced time)",
                       Site.Calls, Site.Calls == 1 ? "call" : "calls",
                       milliseconds(Site.BlockedMicroseconds),
                       milliseconds(Site.GpuIdleMicroseconds),
                       percentOf(Site.GpuIdleMicroseconds, TracedMicroseconds))
      .str();
}

TraceJoin joinTrace(const Trace &T, std::vector<Finding> &Findings,
                    const std::vector<std::string> &SourceFiles) {
  TraceJoin Join;
  Join.Matches.assign(Findings.size(), nullptr);
  Join.Ranks.assign(Findings.size(), 0);
  for (const TraceSite &Site : T.Sites) {
    // The findings on the site's line in the file whose path shares the
    // longest tail with the recorded one.
    unsigned Best = 0;
    std::vector<size_t> Chosen;
    for (size_t I = 0; I < Findings.size(); ++I) {
      const Finding &F = Findings[I];
      if (!isTransferCheck(F.CheckName) || F.Where.Line != Site.Line)
        continue;
      unsigned Common =
          commonTail(absolutePath(F.Where.File, F.BuildDirectory), Site.File);
      if (Common == 0 || Common < Best)
        continue;
      if (Common > Best)
        Chosen.clear();
      Best = Common;
      Chosen.push_back(I);
    }
    for (size_t I : Chosen)
      if (!Join.Matches[I] || Join.Matches[I]->EstimatedSavingMicroseconds <
                                  Site.EstimatedSavingMicroseconds)
        Join.Matches[I] = &Site;
    if (!Chosen.empty())
      continue;
    // The analysed file whose path shares the longest tail with the site's.
    const std::string *Analysed = nullptr;
    unsigned BestFile = 0;
    for (const std::string &File : SourceFiles)
      if (unsigned Common = commonTail(File, Site.File); Common > BestFile) {
        BestFile = Common;
        Analysed = &File;
      }
    // The estimated saving, not the idle time: in a launch-bound loop the
    // idle time charged to a rare call (the fixed "every 100" read) is large
    // but would not go away with it.
    double Share =
        percentOf(Site.EstimatedSavingMicroseconds, T.TracedMicroseconds);
    if (Analysed &&
        (Site.Calls >= RecallGapMinCalls || Share >= RecallGapMinPercent)) {
      Join.Unreported.push_back(&Site);
      Join.UnreportedFiles.push_back(*Analysed);
    }
  }

  // Rank by what the trace estimates fixing the site saves, then by the
  // time the host was blocked there.
  std::vector<size_t> Matched;
  for (size_t I = 0; I < Findings.size(); ++I) {
    if (Join.Matches[I])
      Matched.push_back(I);
    else if (isTransferCheck(Findings[I].CheckName))
      Join.NeverExecuted.push_back(I);
  }
  std::stable_sort(Matched.begin(), Matched.end(), [&](size_t A, size_t B) {
    const TraceSite &SA = *Join.Matches[A], &SB = *Join.Matches[B];
    return std::make_pair(SA.EstimatedSavingMicroseconds,
                          SA.BlockedMicroseconds) >
           std::make_pair(SB.EstimatedSavingMicroseconds,
                          SB.BlockedMicroseconds);
  });
  for (size_t Rank = 0; Rank < Matched.size(); ++Rank)
    Join.Ranks[Matched[Rank]] = unsigned(Rank + 1);

  for (size_t I : Matched) {
    FindingNote Note;
    Note.Where = Findings[I].Where;
    Note.Message = measuredNote(*Join.Matches[I], T.TracedMicroseconds);
    Findings[I].Notes.push_back(std::move(Note));
  }
  return Join;
}

void addTraceToJson(llvm::json::Value &Report, const Trace &T,
                    const TraceJoin &Join,
                    const std::vector<Finding> &Findings) {
  llvm::json::Object *Root = Report.getAsObject();
  if (!Root)
    return;
  if (llvm::json::Array *Items = Root->getArray("findings")) {
    std::vector<bool> Used(Items->size(), false);
    for (size_t I = 0; I < Findings.size(); ++I)
      annotate(*Items, Used, Findings[I],
               measuredProperties(T, Join, Findings, I), /*Sarif=*/false);
  }
  (*Root)["trace"] = traceObject(T, Join, Findings);
}

void addTraceToSarif(llvm::json::Value &Log, const Trace &T,
                     const TraceJoin &Join,
                     const std::vector<Finding> &Findings) {
  llvm::json::Object *Root = Log.getAsObject();
  llvm::json::Array *Runs = Root ? Root->getArray("runs") : nullptr;
  llvm::json::Object *Run =
      Runs && !Runs->empty() ? (*Runs)[0].getAsObject() : nullptr;
  if (!Run)
    return;
  if (llvm::json::Array *Results = Run->getArray("results")) {
    std::vector<bool> Used(Results->size(), false);
    for (size_t I = 0; I < Findings.size(); ++I)
      annotate(*Results, Used, Findings[I],
               measuredProperties(T, Join, Findings, I), /*Sarif=*/true);
  }
  llvm::json::Object *Properties = Run->getObject("properties");
  if (!Properties) {
    (*Run)["properties"] = llvm::json::Object();
    Properties = Run->getObject("properties");
  }
  (*Properties)["xferTrace"] = traceObject(T, Join, Findings);
}

void writeTraceText(llvm::raw_ostream &OS, const Trace &T,
                    const TraceJoin &Join,
                    const std::vector<Finding> &Findings) {
  for (size_t I = 0; I < Join.Unreported.size(); ++I) {
    const TraceSite *Site = Join.Unreported[I];
    std::string Message = measuredNote(*Site, T.TracedMicroseconds);
    llvm::StringRef Figures =
        llvm::StringRef(Message).drop_front(
            llvm::StringRef("measured in this program: ").size());
    OS << Join.UnreportedFiles[I] << ':' << Site->Line
       << ": remark: hazard seen at run time that no check reported: "
       << Figures << ", through " << apiPathList(*Site) << " [xfer-trace]\n";
  }
  for (size_t Index : Join.NeverExecuted) {
    const Finding &F = Findings[Index];
    OS << F.Where.File << ':' << F.Where.Line << ':' << F.Where.Column
       << ": remark: finding never executed in the traced run ("
       << T.FileName << ") [" << F.CheckName << "]\n";
  }
}

} // namespace xfer
