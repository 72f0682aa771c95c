//===--- TraceFuzzer.cpp - the trace.json reader under libFuzzer ----------===//
//
// Reads the input as xfer-tidy --trace reads trace.json and, when it is
// accepted, joins it with findings placed on its sites' lines (and one
// that no site matches) and writes the three reports that carry it. The
// JSON and SARIF reports must stay valid JSON whatever figures the trace
// holds.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "OutputFormats.h"
#include "TraceJoin.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Json(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<xfer::Trace> Trace = xfer::parseTrace(Json, "trace.json");
  if (!Trace) {
    llvm::consumeError(Trace.takeError());
    return 0;
  }
  // Findings in files that do not exist here, as when the trace was
  // recorded on another machine: their paths share only the file name.
  constexpr size_t MaxFindings = 16;
  const char *const Checks[] = {"xfer-sync-in-loop", "xfer-copy-in-loop",
                                "xfer-create-on-device",
                                "xfer-launch-bound-loop"};
  std::vector<xfer::Finding> Findings;
  std::vector<std::string> SourceFiles = {"/fuzz-project/src/unlisted.cpp"};
  for (const xfer::TraceSite &Site : Trace->Sites) {
    if (Findings.size() == MaxFindings)
      break;
    xfer::Finding F;
    F.CheckName = Checks[Findings.size() % std::size(Checks)];
    F.Where.File =
        "/fuzz-project/src/" + llvm::sys::path::filename(Site.File).str();
    F.Where.Line = Site.Line;
    F.Where.Column = 1;
    F.Message = "fuzz finding";
    SourceFiles.push_back(F.Where.File);
    Findings.push_back(std::move(F));
  }
  xfer::Finding NeverExecuted;
  NeverExecuted.CheckName = "xfer-copy-in-loop";
  NeverExecuted.Where = {"/fuzz-project/src/other.cpp", 0, 1, 1};
  NeverExecuted.Message = "fuzz finding that no site matches";
  Findings.push_back(std::move(NeverExecuted));

  xfer::TraceJoin Join = xfer::joinTrace(*Trace, Findings, SourceFiles);

  llvm::json::Value Report = xfer::toJson(Findings);
  xfer::addTraceToJson(Report, *Trace, Join, Findings);
  xfer::fuzz::requireValidJson(Report, "JSON");

  xfer::PositionResolver Resolver;
  xfer::SarifOptions Options;
  Options.Root = "/fuzz-project";
  llvm::json::Value Log = xfer::toSarif(Findings, Resolver, Options);
  xfer::addTraceToSarif(Log, *Trace, Join, Findings);
  xfer::fuzz::requireValidJson(Log, "SARIF");

  std::string Text;
  llvm::raw_string_ostream OS(Text);
  xfer::writeText(OS, Findings, Resolver, /*Color=*/false);
  xfer::writeTraceText(OS, *Trace, Join, Findings);
  return 0;
}
