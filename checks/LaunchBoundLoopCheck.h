//===--- LaunchBoundLoopCheck.h - xfer-launch-bound-loop ------------------===//

#ifndef XFER_TIDY_CHECKS_LAUNCHBOUNDLOOPCHECK_H
#define XFER_TIDY_CHECKS_LAUNCHBOUNDLOOPCHECK_H

#include "analysis/CallSummaries.h"
#include "analysis/CudaEvidence.h"
#include "analysis/DeviceInference.h"
#include "analysis/GraphCapture.h"
#include "analysis/ProjectFacts.h"
#include "clang-tidy/ClangTidyCheck.h"
#include "cost/CostCitation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <memory>

namespace clang::tidy::xfer {

class TranslationUnitAnalyses;

/// Finds loops whose iterations issue many kernel launches or LibTorch GPU
/// operations with fixed shapes and nothing that stops stream capture (no
/// synchronization, host<->device copy, allocation or branch on a device
/// result): the host's launch overhead bounds them, and replaying one
/// captured CUDA graph per iteration removes it.
///
/// For the user-facing documentation see docs/checks/launch-bound-loop.md.
class LaunchBoundLoopCheck : public ClangTidyCheck {
public:
  LaunchBoundLoopCheck(llvm::StringRef Name, ClangTidyContext *Context);

  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override;

private:
  /// What a loop is, as far as capturing it goes.
  struct Verdict {
    enum VerdictKind {
      Quiet,      // too few launches, dynamic shapes, not a hot loop, ...
      Capturable, // launch-bound, and nothing stops the capture
      Blocked,    // launch-bound, but Work.Blocker stops the capture
    };
    VerdictKind Kind = Quiet;
    IterationWork Work;
  };
  const Verdict &verdictFor(const Stmt *Loop, ASTContext &Ctx);
  bool programUsesCuda(ASTContext &Ctx);
  void report(const Stmt *Loop, const Verdict &V, ASTContext &Ctx);
  void noteLaunches(const IterationWork &Work, const SourceManager &SM);
  void noteBlocker(const CaptureBlocker &Blocker);

  const unsigned MinLaunchesPerIteration;
  const unsigned MinTripCount;
  const bool ReportBlockedLoops;
  const bool RequireCudaEvidence;
  /// Another translation unit of the program uses a CUDA device (set by
  /// xfer-tidy for the translation units of one run).
  const bool ProjectUsesCuda;
  const bool ReportSetupAndTimingLoops;
  /// The program's facts across translation units (option ProjectIndex,
  /// written by xfer-tidy's first pass), or null.
  const std::string ProjectIndex;
  std::shared_ptr<const ProjectFacts> Facts;
  std::shared_ptr<TranslationUnitAnalyses> Analyses;
  std::unique_ptr<GraphCaptureAnalysis> Capture;
  llvm::DenseMap<const Stmt *, Verdict> Verdicts;
  /// Loops already reported (a template's loop in each instantiation).
  llvm::DenseSet<SourceLocation> Reported;
  CostCitations Costs;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_LAUNCHBOUNDLOOPCHECK_H
