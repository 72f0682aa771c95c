//===--- TraceJoin.h - findings joined with an xfer-trace run -------------===//
//
// xfer-trace measures, in the user's program, what each call site that
// blocks the host or copies costs there (trace.json, see README.md). This
// joins those sites with the static findings by file and line: a matched
// finding gets a note with the measured figures and a rank by measured
// cost; runtime sites no check reported (recall gaps) and findings the run
// never executed are listed.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_TOOL_TRACEJOIN_H
#define XFER_TIDY_TOOL_TRACEJOIN_H

#include "Findings.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <string>
#include <vector>

namespace xfer {

struct TraceApiPath {
  std::string Path; ///< "cudaStreamSynchronize under at::Tensor::item<float>"
  uint64_t Calls = 0;
};

/// One call site of the traced program (trace.json "sites").
struct TraceSite {
  std::string File; ///< as recorded on the traced machine
  unsigned Line = 0;
  std::string Function;
  uint64_t Calls = 0;
  uint64_t Bytes = 0;
  std::string HostMemory; ///< "pageable", "pinned", "mixed" or empty
  double BlockedMicroseconds = 0;
  double GpuIdleMicroseconds = 0;
  double EstimatedSavingMicroseconds = 0;
  std::vector<TraceApiPath> ApiPaths;
};

struct Trace {
  std::string FileName; ///< the --trace argument, for messages
  std::string Device;
  double TracedMicroseconds = 0;
  std::vector<TraceSite> Sites; ///< those attributed to a file and line
};

/// Reads trace.json; a missing or malformed file is an error naming the
/// file and the field ("trace.json: sites[2].line: expected an integer").
llvm::Expected<Trace> loadTrace(llvm::StringRef Path);
llvm::Expected<Trace> parseTrace(llvm::StringRef Text, llvm::StringRef Name);

struct TraceJoin {
  /// Per finding: the site measured at its line, or null.
  std::vector<const TraceSite *> Matches;
  /// Per finding: 1 for the costliest matched finding, 0 when unmatched.
  std::vector<unsigned> Ranks;
  /// Runtime sites that no finding matched and that look like hazards.
  std::vector<const TraceSite *> Unreported;
  /// Per unreported site: the analysed file it was recorded in.
  std::vector<std::string> UnreportedFiles;
  /// Findings of the transfer checks that no traced site matched.
  std::vector<size_t> NeverExecuted;
};

/// Whether a runtime site is a hazard worth listing when no check reported
/// it: called at least this often, or with an estimated saving of at least
/// this share of the traced time. One-time calls (setup, the fixed "every
/// 100" read) are not.
constexpr uint64_t RecallGapMinCalls = 100;
constexpr double RecallGapMinPercent = 1.0;

/// Matches findings and sites by line and by file name (the longest common
/// tail of their paths, since the trace was usually recorded elsewhere),
/// adds the "measured in this program: ..." note to each matched finding,
/// and lists the rest. \p SourceFiles are the analysed files: only sites in
/// them can be recall gaps.
TraceJoin joinTrace(const Trace &T, std::vector<Finding> &Findings,
                    const std::vector<std::string> &SourceFiles);

/// "measured in this program: 1000 calls, 17.5 ms blocked, 88.9 ms GPU
/// idle (3.1% of the traced time)".
std::string measuredNote(const TraceSite &Site, double TracedMicroseconds);

/// Adds the measured figures to the findings' properties and a "trace"
/// object (the two lists) to a JSON report (toJson) or, under the run's
/// properties, to a SARIF log (toSarif).
void addTraceToJson(llvm::json::Value &Report, const Trace &T,
                    const TraceJoin &Join, const std::vector<Finding> &Findings);
void addTraceToSarif(llvm::json::Value &Log, const Trace &T,
                     const TraceJoin &Join,
                     const std::vector<Finding> &Findings);

/// The two lists as remarks after the text report:
/// "file:line: remark: hazard seen at run time that no check reported: ..."
/// and "file:line:col: remark: finding never executed in the traced run".
void writeTraceText(llvm::raw_ostream &OS, const Trace &T,
                    const TraceJoin &Join,
                    const std::vector<Finding> &Findings);

} // namespace xfer

#endif // XFER_TIDY_TOOL_TRACEJOIN_H
