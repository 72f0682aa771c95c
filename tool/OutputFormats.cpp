//===--- OutputFormats.cpp - text, JSON and SARIF reports -----------------===//

#include "OutputFormats.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include <cmath>
#include <set>
#include <tuple>

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

void emitJson(llvm::json::OStream &J, const llvm::json::Value &V) {
  switch (V.kind()) {
  case llvm::json::Value::Number:
    if (std::optional<int64_t> Integer = V.getAsInteger())
      J.value(*Integer);
    else if (std::optional<double> Number = V.getAsNumber();
             Number && std::isfinite(*Number))
      J.rawValue([&](llvm::raw_ostream &OS) {
        OS << llvm::format("%.15g", *Number);
      });
    else
      J.value(V);
    return;
  case llvm::json::Value::Array:
    J.array([&] {
      for (const llvm::json::Value &Element : *V.getAsArray())
        emitJson(J, Element);
    });
    return;
  case llvm::json::Value::Object: {
    const llvm::json::Object &O = *V.getAsObject();
    std::vector<const llvm::json::Object::value_type *> Members;
    for (const auto &Member : O)
      Members.push_back(&Member);
    llvm::sort(Members, [](const auto *A, const auto *B) {
      return A->first < B->first;
    });
    J.object([&] {
      for (const auto *Member : Members)
        J.attributeBegin(Member->first), emitJson(J, Member->second),
            J.attributeEnd();
    });
    return;
  }
  default:
    J.value(V);
  }
}

/// Escapes the message of a workflow command.
std::string escapeWorkflowData(llvm::StringRef Text) {
  std::string Escaped;
  for (char C : Text) {
    switch (C) {
    case '%': Escaped += "%25"; break;
    case '\r': Escaped += "%0D"; break;
    case '\n': Escaped += "%0A"; break;
    default: Escaped += C;
    }
  }
  return Escaped;
}

/// Escapes a property value of a workflow command.
std::string escapeWorkflowProperty(llvm::StringRef Text) {
  std::string Escaped;
  for (char C : escapeWorkflowData(Text)) {
    switch (C) {
    case ':': Escaped += "%3A"; break;
    case ',': Escaped += "%2C"; break;
    default: Escaped += C;
    }
  }
  return Escaped;
}

} // namespace

const FindingNote *costNote(const Finding &F) {
  for (const FindingNote &Note : F.Notes)
    if (Note.Cost)
      return &Note;
  // A note made without its figures is known by its wording.
  for (const FindingNote &Note : F.Notes)
    if (llvm::StringRef(Note.Message)
            .starts_with(clang::tidy::xfer::CostNote::TextPrefix))
      return &Note;
  return nullptr;
}

void writeGithub(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
                 llvm::StringRef Root) {
  for (const Finding &F : Findings) {
    OS << "::" << levelName(F) << ' ';
    if (!F.Where.File.empty()) {
      OS << "file="
         << escapeWorkflowProperty(
                pathBelow(F.Where.File, Root, F.BuildDirectory));
      if (F.Where.Line)
        OS << ",line=" << F.Where.Line << ",col=" << F.Where.Column;
      OS << ',';
    }
    OS << "title=" << escapeWorkflowProperty(F.CheckName) << "::";
    std::string Message = F.Message;
    if (const FindingNote *Cost = costNote(F))
      Message += " (" + Cost->Message + ")";
    OS << escapeWorkflowData(Message) << '\n';
  }
}

void writeJson(llvm::raw_ostream &OS, const llvm::json::Value &Value) {
  llvm::json::OStream J(OS, /*IndentSize=*/2);
  emitJson(J, Value);
}

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
    OS << F.Message << " [" << F.CheckName
       << (F.WarningAsError ? ",-warnings-as-errors" : "") << "]\n";
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

llvm::json::Object costProperties(const Finding &F) {
  for (const FindingNote &Note : F.Notes)
    if (Note.Cost)
      return Note.Cost->properties();
  return llvm::json::Object();
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

namespace {

struct RuleText {
  llvm::StringLiteral Check;
  llvm::StringLiteral Short;
  llvm::StringLiteral Full;
  llvm::StringLiteral Help;
};

// What each check finds and how to fix it, for SARIF consumers (code
// scanning shows these next to every result); docs/checks/ has the rest.
constexpr RuleText Rules[] = {
    {"xfer-sync-in-loop", "Host waits for the GPU inside a loop",
     "An operation that makes the host wait for all queued GPU work "
     "(item(), printing a CUDA tensor, nonzero(), cudaDeviceSynchronize, "
     "cudaStreamSynchronize, cudaFree, ...) runs on most iterations of a "
     "loop, so the host stops running ahead and CPU and GPU stop overlapping "
     "on every iteration.",
     "Keep the value on the device and read it back every N iterations (a "
     "guarded read such as if (i % 100 == 0) is not reported), or "
     "accumulate on the device and read it once after the loop."},
    {"xfer-copy-in-loop", "Host/device copy inside a loop",
     "A device-to-host copy (cpu(), to(kCPU), copy_ into a host tensor, "
     "cudaMemcpy with cudaMemcpyDeviceToHost) runs on most iterations of a "
     "loop, waiting for all queued device work and crossing the host link "
     "each time; or a host-to-device copy of data the loop does not change "
     "is repeated on every iteration.",
     "Copy loop-invariant data to the device once, before the loop; keep "
     "per-iteration results on the device and copy them back less often."},
    {"xfer-create-on-device", "Tensor created on the host, then moved to the GPU",
     "A LibTorch factory (torch::randn, torch::zeros, torch::ones, ...) "
     "creates a tensor on the host only for it to be copied to the GPU right "
     "away: the host fills the memory, then the copy crosses the host link "
     "and waits in the stream's queue.",
     "Pass the device to the factory: torch::randn({n, 2}, torch::kCUDA) "
     "instead of torch::randn({n, 2}).to(torch::kCUDA)."},
    {"xfer-pageable-async-copy", "Asynchronous copy of pageable host memory",
     "cudaMemcpyAsync, or to(kCUDA, /*non_blocking=*/true), with pageable "
     "rather than page-locked host memory: the driver stages the copy "
     "through a pinned bounce buffer, so the call is effectively synchronous "
     "and the overlap it was written for does not happen.",
     "Allocate the host buffer with cudaMallocHost or cudaHostAlloc, "
     "register it with cudaHostRegister, or pin_memory() the tensor."},
    {"xfer-device-mismatch", "Memory used on the wrong side of the host/device boundary",
     "Operations on tensors that live on different devices, a CUDA module "
     "called with a CPU tensor, a discarded t.to(device), a cudaMemcpy kind "
     "that contradicts its pointers, host memory passed to a kernel, device "
     "memory dereferenced on the host: these fail or crash at run time.",
     "Put the operands on the same device; allocate the memory where it is "
     "used, or copy it there first; match the cudaMemcpy kind to where the "
     "pointers live."},
    {"xfer-launch-bound-loop", "Loop bound by kernel launch overhead",
     "Each iteration of the loop launches many small kernels or LibTorch GPU "
     "operations with fixed shapes and nothing that stops stream capture, "
     "so the host's launch overhead, paid per kernel, dominates the "
     "iteration.",
     "Capture one iteration in a CUDA graph and replay it: "
     "cudaStreamBeginCapture/cudaStreamEndCapture and cudaGraphLaunch "
     "(cudaGraphExecUpdate when kernel arguments change), or "
     "at::cuda::CUDAGraph with static input tensors in LibTorch code."},
};

const RuleText *ruleText(llvm::StringRef Check) {
  for (const RuleText &Rule : Rules)
    if (Rule.Check == Check)
      return &Rule;
  return nullptr;
}

/// Percent-encodes what an RFC 3986 path may not hold.
std::string uriPath(llvm::StringRef Path) {
  std::string Encoded;
  for (unsigned char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("/-._~!$&'()*+,;=:@").contains(C))
      Encoded += C;
    else
      Encoded += llvm::formatv("%{0:X-2}", static_cast<unsigned>(C)).str();
  }
  return Encoded;
}

std::string fileUri(llvm::StringRef AbsolutePath) {
  return "file://" + uriPath(llvm::sys::path::convert_to_slash(AbsolutePath));
}

/// The column of byte column \p Column of \p Line in Unicode code points.
unsigned codePointColumn(llvm::StringRef Line, unsigned Column) {
  unsigned Points = 1;
  for (unsigned I = 0; I + 1 < Column && I < Line.size(); ++I)
    if ((static_cast<unsigned char>(Line[I]) & 0xC0) != 0x80)
      ++Points;
  return Points + (Column > Line.size() + 1 ? Column - Line.size() - 1 : 0);
}

/// A run's `invocations` entry: whether it succeeded, and the tool's
/// notifications when there are any (SARIF wants no empty arrays).
llvm::json::Object
sarifInvocation(bool Successful, llvm::json::Array ExecutionNotifications,
                llvm::json::Array ConfigurationNotifications) {
  llvm::json::Object Invocation{{"executionSuccessful", Successful}};
  if (!ExecutionNotifications.empty())
    Invocation["toolExecutionNotifications"] =
        std::move(ExecutionNotifications);
  if (!ConfigurationNotifications.empty())
    Invocation["toolConfigurationNotifications"] =
        std::move(ConfigurationNotifications);
  return Invocation;
}

} // namespace

std::string documentationUri(llvm::StringRef RelativePath) {
  llvm::StringRef Base = XFER_DOCS_URL;
  if (!Base.empty())
    return (Base.rtrim('/') + "/" + RelativePath).str();
  llvm::SmallString<256> Path(documentationRoot());
  llvm::sys::path::append(Path, RelativePath);
  return fileUri(Path);
}

std::string checkDocumentationPath(llvm::StringRef Check) {
  llvm::StringRef Name = Check;
  Name.consume_front("xfer-");
  return ("docs/checks/" + Name + ".md").str();
}

llvm::json::Value toSarif(const std::vector<Finding> &Findings,
                          PositionResolver &Resolver,
                          const SarifOptions &Options) {
  std::string Root = absolutePath(Options.Root, "");
  if (Root.empty() || !llvm::sys::path::is_separator(Root.back()))
    Root += '/';

  // Rules: the checks that ran, then any other diagnostic a result names.
  std::vector<std::string> RuleIds = Options.EnabledChecks;
  for (const Finding &F : Findings)
    if (!llvm::is_contained(RuleIds, F.CheckName))
      RuleIds.push_back(F.CheckName);
  llvm::StringMap<size_t> RuleIndex;
  llvm::json::Array RuleObjects;
  for (const std::string &Id : RuleIds) {
    RuleIndex[Id] = RuleObjects.size();
    llvm::json::Object Rule{{"id", Id}, {"name", Id}};
    if (const RuleText *Text = ruleText(Id)) {
      std::string Doc = checkDocumentationPath(Id);
      Rule["shortDescription"] = llvm::json::Object{{"text", Text->Short}};
      Rule["fullDescription"] = llvm::json::Object{{"text", Text->Full}};
      Rule["help"] = llvm::json::Object{
          {"text", (Text->Help + " See " + Doc + ".").str()},
          {"markdown",
           (Text->Help + " See [" + Doc + "](" + documentationUri(Doc) + ").")
               .str()}};
      Rule["helpUri"] = documentationUri(Doc);
      Rule["defaultConfiguration"] = llvm::json::Object{{"level", "warning"}};
      Rule["properties"] = llvm::json::Object{
          {"tags", llvm::json::Array{"performance", "gpu"}}};
    } else {
      // Compiler diagnostics (clang-diagnostic-error, ...).
      std::string Kind = llvm::StringRef(Id).starts_with("clang-diagnostic-")
                             ? "Compiler diagnostic"
                             : "Diagnostic";
      Rule["shortDescription"] = llvm::json::Object{{"text", Kind}};
      Rule["fullDescription"] = llvm::json::Object{
          {"text", Kind + " reported while parsing the translation unit; "
                          "xfer-tidy's findings in it may be incomplete."}};
      Rule["help"] = llvm::json::Object{
          {"text", "Fix the compile command or the code so that clang "
                   "parses the file."}};
      Rule["helpUri"] = "https://clang.llvm.org/docs/DiagnosticsReference.html";
      Rule["defaultConfiguration"] = llvm::json::Object{{"level", "error"}};
    }
    RuleObjects.push_back(std::move(Rule));
  }

  auto PhysicalLocation = [&](const SourcePosition &Where,
                              llvm::StringRef BuildDirectory)
      -> std::optional<llvm::json::Object> {
    if (Where.File.empty() || !Where.Line)
      return std::nullopt;
    std::string Absolute = absolutePath(Where.File, BuildDirectory);
    llvm::json::Object Artifact;
    if (llvm::StringRef(Absolute).starts_with(Root)) {
      Artifact["uri"] = uriPath(llvm::sys::path::convert_to_slash(
          llvm::StringRef(Absolute).drop_front(Root.size())));
      Artifact["uriBaseId"] = "%SRCROOT%";
    } else {
      Artifact["uri"] = fileUri(Absolute);
    }
    llvm::StringRef Line = Resolver.lineText(Where.File, Where.Line);
    return llvm::json::Object{
        {"artifactLocation", std::move(Artifact)},
        {"region",
         llvm::json::Object{
             {"startLine", static_cast<int64_t>(Where.Line)},
             {"startColumn", static_cast<int64_t>(
                                 codePointColumn(Line, Where.Column))}}}};
  };

  llvm::json::Array Results;
  llvm::json::Array ExecutionNotifications;
  llvm::StringMap<unsigned> Occurrences;
  for (const Finding &F : Findings) {
    llvm::json::Object Message{{"text", F.Message}};
    std::optional<llvm::json::Object> Where =
        PhysicalLocation(F.Where, F.BuildDirectory);
    llvm::StringRef Level =
        F.Severity == Finding::Level::Error ? "error" : "warning";
    // A diagnostic without a place in the code (a command-line error) is a
    // notification of the tool's execution, not a result.
    if (!Where) {
      ExecutionNotifications.push_back(llvm::json::Object{
          {"level", Level},
          {"message", std::move(Message)},
          {"descriptor", llvm::json::Object{{"id", F.CheckName}}}});
      continue;
    }
    llvm::json::Object Result{
        {"ruleId", F.CheckName},
        {"ruleIndex", static_cast<int64_t>(RuleIndex[F.CheckName])},
        {"level", Level},
        {"message", std::move(Message)},
        {"locations",
         llvm::json::Array{llvm::json::Object{{"physicalLocation", llvm::json::Object(*Where)}}}}};

    std::string Hash = lineFingerprint(
        F.CheckName, pathBelow(F.Where.File, Root, F.BuildDirectory),
        Resolver.lineText(F.Where.File, F.Where.Line));
    unsigned Occurrence = ++Occurrences[Hash];
    Result["partialFingerprints"] = llvm::json::Object{
        {"xferTidyLineHash/v1", Hash + ":" + std::to_string(Occurrence)}};

    llvm::json::Array Steps, Related;
    for (const FindingNote &Note : F.Notes)
      if (std::optional<llvm::json::Object> NoteWhere =
              PhysicalLocation(Note.Where, F.BuildDirectory)) {
        Steps.push_back(llvm::json::Object{
            {"importance", "important"},
            {"location",
             llvm::json::Object{
                 {"message", llvm::json::Object{{"text", Note.Message}}},
                 {"physicalLocation", llvm::json::Object(*NoteWhere)}}}});
        Related.push_back(llvm::json::Object{
            {"id", static_cast<int64_t>(Related.size())},
            {"message", llvm::json::Object{{"text", Note.Message}}},
            {"physicalLocation", std::move(*NoteWhere)}});
      }
    if (!Steps.empty()) {
      Result["codeFlows"] = llvm::json::Array{llvm::json::Object{
          {"threadFlows",
           llvm::json::Array{llvm::json::Object{
               {"locations", std::move(Steps)}}}}}};
      Result["relatedLocations"] = std::move(Related);
    }
    llvm::json::Object Properties = costProperties(F);
    if (!Properties.empty())
      Result["properties"] = std::move(Properties);
    Results.push_back(std::move(Result));
  }

  for (const std::string &Message : Options.ExecutionErrors)
    ExecutionNotifications.push_back(llvm::json::Object{
        {"level", "error"}, {"message", llvm::json::Object{{"text", Message}}}});
  llvm::json::Array ConfigurationNotifications;
  for (const std::string &Message : Options.ConfigurationWarnings)
    ConfigurationNotifications.push_back(llvm::json::Object{
        {"level", "warning"},
        {"message", llvm::json::Object{{"text", Message}}}});
  llvm::json::Object Invocation = sarifInvocation(
      Options.ExecutionErrors.empty(), std::move(ExecutionNotifications),
      std::move(ConfigurationNotifications));

  llvm::json::Object Driver{
      {"name", "xfer-tidy"},
      {"fullName", "xfer-tidy " XFER_VERSION},
      {"version", XFER_VERSION},
      {"semanticVersion", XFER_VERSION},
      {"informationUri", documentationUri("README.md")},
      {"rules", std::move(RuleObjects)}};
  llvm::json::Object Run{
      {"tool", llvm::json::Object{{"driver", std::move(Driver)}}},
      {"originalUriBaseIds",
       llvm::json::Object{
           {"%SRCROOT%", llvm::json::Object{{"uri", fileUri(Root)}}}}},
      {"columnKind", "unicodeCodePoints"},
      {"invocations", llvm::json::Array{std::move(Invocation)}},
      {"results", std::move(Results)}};
  return llvm::json::Object{
      {"$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/"
                  "os/schemas/sarif-schema-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", llvm::json::Array{std::move(Run)}}};
}

namespace {

/// The parts of a SARIF log that mergeSarif reads and rewrites.
struct SarifRunParts {
  llvm::json::Object *Run = nullptr;
  llvm::json::Object *Driver = nullptr;
};

llvm::Expected<SarifRunParts> sarifRunParts(llvm::StringRef Name,
                                            llvm::json::Value &Log) {
  auto Invalid = [&](llvm::StringRef Why) {
    return llvm::createStringError(std::errc::invalid_argument,
                                   "%s: not a SARIF 2.1.0 log of one "
                                   "xfer-tidy run: %s",
                                   Name.str().c_str(), Why.str().c_str());
  };
  llvm::json::Object *Root = Log.getAsObject();
  if (!Root)
    return Invalid("not a JSON object");
  if (Root->getString("version") != "2.1.0")
    return Invalid("\"version\" is not \"2.1.0\"");
  llvm::json::Array *Runs = Root->getArray("runs");
  if (!Runs || Runs->size() != 1 || !(*Runs)[0].getAsObject())
    return Invalid("\"runs\" does not hold exactly one run");
  SarifRunParts Parts;
  Parts.Run = (*Runs)[0].getAsObject();
  llvm::json::Object *Tool = Parts.Run->getObject("tool");
  Parts.Driver = Tool ? Tool->getObject("driver") : nullptr;
  if (!Parts.Driver || !Parts.Driver->getString("name"))
    return Invalid("no \"tool.driver.name\"");
  for (llvm::StringRef Key : {"results", "invocations"})
    if (const llvm::json::Value *Field = Parts.Run->get(Key);
        Field && !Field->getAsArray())
      return Invalid(("\"" + Key + "\" is not an array").str());
  if (const llvm::json::Value *Rules = Parts.Driver->get("rules");
      Rules && !Rules->getAsArray())
    return Invalid("\"tool.driver.rules\" is not an array");
  return Parts;
}

/// Where a result points: (uri, line, column), empty and zero without a
/// location.
std::tuple<std::string, int64_t, int64_t>
resultLocation(const llvm::json::Object &Result) {
  const llvm::json::Array *Locations = Result.getArray("locations");
  const llvm::json::Object *Physical = nullptr;
  if (Locations && !Locations->empty())
    if (const llvm::json::Object *First = Locations->front().getAsObject())
      Physical = First->getObject("physicalLocation");
  if (!Physical)
    return {"", 0, 0};
  std::string Uri;
  if (const llvm::json::Object *Artifact =
          Physical->getObject("artifactLocation"))
    Uri = Artifact->getString("uri").value_or("").str();
  int64_t Line = 0, Column = 0;
  if (const llvm::json::Object *Region = Physical->getObject("region")) {
    Line = Region->getInteger("startLine").value_or(0);
    Column = Region->getInteger("startColumn").value_or(0);
  }
  return {Uri, Line, Column};
}

} // namespace

llvm::Expected<llvm::json::Value>
mergeSarif(std::vector<std::pair<std::string, llvm::json::Value>> Logs) {
  if (Logs.empty())
    return llvm::createStringError(std::errc::invalid_argument,
                                   "no SARIF logs to merge");
  std::vector<SarifRunParts> Parts;
  for (auto &[Name, Log] : Logs) {
    llvm::Expected<SarifRunParts> Read = sarifRunParts(Name, Log);
    if (!Read)
      return Read.takeError();
    Parts.push_back(*Read);
  }
  // Shards of one run share the tool and the root their URIs are relative
  // to; merging anything else would mislabel results.
  const SarifRunParts &First = Parts.front();
  for (size_t I = 1; I < Parts.size(); ++I) {
    auto Differs = [&](llvm::StringRef What) {
      return llvm::createStringError(std::errc::invalid_argument,
                                     "%s: %s differs from %s's",
                                     Logs[I].first.c_str(), What.str().c_str(),
                                     Logs.front().first.c_str());
    };
    for (llvm::StringRef Key : {"name", "version"})
      if (Parts[I].Driver->getString(Key) != First.Driver->getString(Key))
        return Differs(("tool.driver." + Key).str());
    const llvm::json::Value *Base = Parts[I].Run->get("originalUriBaseIds");
    const llvm::json::Value *FirstBase = First.Run->get("originalUriBaseIds");
    if ((Base == nullptr) != (FirstBase == nullptr) ||
        (Base && *Base != *FirstBase))
      return Differs("%SRCROOT% (originalUriBaseIds; give every run the "
                     "same --sarif-root)");
  }

  llvm::json::Array Rules;
  llvm::StringMap<int64_t> RuleIndex;
  std::vector<llvm::json::Object> Results;
  std::set<std::tuple<std::string, int64_t, int64_t, std::string, std::string>>
      SeenResults;
  bool Successful = true;
  llvm::json::Array ExecutionNotifications, ConfigurationNotifications;
  for (const SarifRunParts &Part : Parts) {
    if (llvm::json::Array *RunRules = Part.Driver->getArray("rules"))
      for (llvm::json::Value &Rule : *RunRules) {
        const llvm::json::Object *Object = Rule.getAsObject();
        std::optional<llvm::StringRef> Id =
            Object ? Object->getString("id") : std::nullopt;
        if (Id && RuleIndex.try_emplace(*Id, Rules.size()).second)
          Rules.push_back(std::move(Rule));
      }
    if (llvm::json::Array *RunResults = Part.Run->getArray("results"))
      for (llvm::json::Value &Result : *RunResults) {
        llvm::json::Object *Object = Result.getAsObject();
        if (!Object)
          continue;
        auto [Uri, Line, Column] = resultLocation(*Object);
        std::string Rule = Object->getString("ruleId").value_or("").str();
        std::string Message;
        if (const llvm::json::Object *Text = Object->getObject("message"))
          Message = Text->getString("text").value_or("").str();
        if (!SeenResults.emplace(Uri, Line, Column, Rule, Message).second)
          continue;
        if (auto It = RuleIndex.find(Rule); It != RuleIndex.end())
          (*Object)["ruleIndex"] = It->second;
        Results.push_back(std::move(*Object));
      }
    if (llvm::json::Array *Invocations = Part.Run->getArray("invocations"))
      for (llvm::json::Value &Invocation : *Invocations) {
        llvm::json::Object *Object = Invocation.getAsObject();
        if (!Object)
          continue;
        if (Object->getBoolean("executionSuccessful") == false)
          Successful = false;
        if (llvm::json::Array *Notes =
                Object->getArray("toolExecutionNotifications"))
          for (llvm::json::Value &Note : *Notes)
            ExecutionNotifications.push_back(std::move(Note));
        // Every shard reads the same configuration: its warnings once.
        if (llvm::json::Array *Notes =
                Object->getArray("toolConfigurationNotifications"))
          for (llvm::json::Value &Note : *Notes)
            if (!llvm::is_contained(ConfigurationNotifications, Note))
              ConfigurationNotifications.push_back(std::move(Note));
      }
  }
  // The order of one run's report: by file, line, column and rule (then
  // as read).
  std::vector<std::tuple<std::string, int64_t, int64_t, std::string, size_t>>
      Order;
  for (size_t I = 0; I < Results.size(); ++I) {
    auto [Uri, Line, Column] = resultLocation(Results[I]);
    Order.emplace_back(Uri, Line, Column,
                       Results[I].getString("ruleId").value_or("").str(), I);
  }
  llvm::sort(Order);
  llvm::json::Object Invocation =
      sarifInvocation(Successful, std::move(ExecutionNotifications),
                      std::move(ConfigurationNotifications));
  (*First.Driver)["rules"] = std::move(Rules);
  (*First.Run)["invocations"] = llvm::json::Array{std::move(Invocation)};
  llvm::json::Array ResultValues;
  for (const auto &Entry : Order)
    ResultValues.push_back(std::move(Results[std::get<4>(Entry)]));
  (*First.Run)["results"] = std::move(ResultValues);
  return std::move(Logs.front().second);
}

} // namespace xfer
