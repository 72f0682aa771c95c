//===--- LoopHazardCheck.h - shared driver of the in-loop checks ----------===//
//
// xfer-sync-in-loop and xfer-copy-in-loop differ only in which hazards they
// report and how they word them; finding calls, ranking them by how often
// they run, and gating LibTorch findings on CUDA use is shared here.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_LOOPHAZARDCHECK_H
#define XFER_TIDY_CHECKS_LOOPHAZARDCHECK_H

#include "analysis/LoopContext.h"
#include "analysis/ProjectFacts.h"
#include "analysis/TransferHazards.h"
#include "analysis/TranslationUnitAnalyses.h"
#include "cost/CostCitation.h"
#include "clang-tidy/ClangTidyCheck.h"
#include <memory>

namespace clang::tidy::xfer {

class LoopHazardCheck : public ClangTidyCheck {
public:
  LoopHazardCheck(llvm::StringRef Name, ClangTidyContext *Context);

  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override;

protected:
  /// Whether this check reports \p H at all.
  virtual bool handles(const Hazard &H) const = 0;

  /// Further filtering once \p H is known to run often enough.
  virtual bool shouldReport(const CallExpr *Call, const Hazard &H,
                            const ExecutionFrequency &Frequency,
                            ASTContext &Ctx) {
    return true;
  }

  /// The warning for \p H at \p Call; \p FrequencyPhrase is e.g. "on every
  /// iteration of the loop at line 12".
  virtual DiagnosticBuilder warn(const CallExpr *Call, const Hazard &H,
                                 llvm::StringRef FrequencyPhrase,
                                 ASTContext &Ctx) = 0;

  /// ClangTidyCheck::diag at \p Loc, or where a system header's macro that
  /// spells it is used (`cublasCreate(&h)` is cublas_v2.h's macro for
  /// cublasCreate_v2): clang drops warnings inside system macros.
  DiagnosticBuilder diag(SourceLocation Loc, llvm::StringRef Message,
                         DiagnosticIDs::Level Level = DiagnosticIDs::Warning);

  /// The program's facts: the project index, or this translation unit's
  /// own, made when first needed.
  const ProjectFacts &programFacts(ASTContext &Ctx);
  /// The tensor member an upload \p H reads (whole or through views), when
  /// the program sets it only where the object is set up: in constructors,
  /// or in functions that run on no step, never in \p Uploader. Such a
  /// member holds the same values on every step. Null otherwise.
  const FieldDecl *uploadedSetUpMember(const Hazard &H,
                                       const FunctionDecl *Uploader,
                                       ASTContext &Ctx);

private:
  const SourceManager *Sources = nullptr;

  /// The hazards a call to a function defined in this translation unit
  /// performs, of the first kind this check reports: the one to report
  /// first, then the further ones, each operation once.
  llvm::SmallVector<HazardPath, 4> hazardsThroughCall(const CallExpr *Call,
                                                      ASTContext &Ctx);
  /// The upload from one of its parameters that a call to a function
  /// defined here performs, when this check reports uploads.
  const CallSummaries::ParameterUpload *uploadThroughCall(const CallExpr *Call,
                                                          ASTContext &Ctx);
  void noteCallChain(const HazardPath &Path);
  /// Notes at the hazards a call performs after the reported one.
  void noteFurtherHazards(llvm::ArrayRef<HazardPath> Further);
  /// True if \p Call is a blocking read-back that follows another in the
  /// same iteration with no device work in between (see followsReadBack).
  bool followsBlockingReadBack(const CallExpr *Call, ASTContext &Ctx);
  /// Notes on the read-backs that follow \p Call in its iteration.
  void noteReadBacksAfter(const CallExpr *Call, ASTContext &Ctx);
  /// The tensor \p Call reads one element of per iteration of the counting
  /// loop \p Loop, when the loop does not change it: one copy before the
  /// loop would replace the reads. Null otherwise.
  const ValueDecl *elementwiseReadBackWhole(const CallExpr *Call,
                                            const Hazard &H, const Stmt *Loop,
                                            ASTContext &Ctx);
  /// True if \p S runs at most a handful of times per call of its
  /// function, and that function does not run on every step.
  bool runsAHandfulOfTimesOnce(const Stmt *S,
                               const ExecutionFrequency &Frequency,
                               ASTContext &Ctx);
  /// The filters every in-loop finding passes, call or object: often
  /// enough, in a hot loop, not a handful of rounds run once, not in an
  /// evaluation pass.
  bool runsOnHotIterations(const Stmt *S, const ExecutionFrequency &Frequency,
                           ASTContext &Ctx);
  /// True if \p S, in \p Function, sits in a branch on one parameter that
  /// no step loop's call takes: every step call passes a constant for it
  /// (the project index's stepArguments) and none of them selects the
  /// branch (`if (phase == 3)` of a helper the time loop calls with 1 and
  /// 2, and once after the loop with 3).
  bool skippedOnSteps(const Stmt *S, const FunctionDecl *Function,
                      ASTContext &Ctx);
  /// True if \p S runs only in loops that issue no device work of their
  /// own (a pass over elements), in a function that a loop in another file
  /// calls on every iteration: each step pays the whole pass.
  bool inStepOfAnotherFile(const Stmt *S, const ExecutionFrequency &Frequency,
                           ASTContext &Ctx);
  /// True for a LibTorch hazard in a program that shows no CUDA use.
  bool lacksCudaEvidence(const Hazard &H) const;
  /// True if the host uses what \p Copy brings back in the function that
  /// copies it (returns it, builds its result from it, fills the caller's
  /// result parameter): the product of a step, which must come back.
  bool consumedInItsFunction(const CallExpr *Copy, ASTContext &Ctx);
  /// How often \p S runs, for the warning ("on every iteration of the loop
  /// at line 12", "on every call of 'forward()'"), when it runs on the hot
  /// path; null when it does not.
  std::optional<std::string> hotPhrase(const Stmt *S,
                                       const ExecutionFrequency &Frequency,
                                       ASTContext &Ctx);
  /// The note, at \p At, on a read-back \p Copy (\p At itself, or reached
  /// through it) whose result the host consumes (reported only with
  /// ReportOutputReadBacks).
  void noteConsumedOutput(const CallExpr *At, const CallExpr *Copy);
  /// "loop starts here", when \p Frequency has a loop.
  void noteLoop(const ExecutionFrequency &Frequency);
  /// The notes of a finding at an object's declaration, `new` or `delete`:
  /// the loop, the chains down to the allocation or free, the cost.
  void noteObjectFinding(SourceLocation Where, const Hazard &H,
                         const ExecutionFrequency &Frequency,
                         std::initializer_list<const HazardPath *> Paths,
                         ASTContext &Ctx);
  /// A local object declared in a loop whose class allocates device memory
  /// when constructed or frees it when destroyed (thrust::device_vector, a
  /// buffer class of the program's own): the host waits for the device on
  /// every iteration. Reported at the declaration.
  void checkScopedDeviceBuffer(const VarDecl *Var, const DeclStmt *Declaration,
                               ASTContext &Ctx);
  /// The same for a temporary (`Filter(frame)()`), destroyed at the end of
  /// its statement.
  void checkTemporaryDeviceBuffer(const CXXBindTemporaryExpr *Temporary,
                                  ASTContext &Ctx);
  /// What creating an object of \p Class (through \p Construct, when it is
  /// built here) and destroying it synchronize, if anything.
  struct ObjectSyncs {
    Hazard Operation;
    const HazardPath *Allocation = nullptr, *Release = nullptr;
    bool Allocates = false, Frees = false;
    /// The %select index of "when it is created and when it is destroyed",
    /// "when it is created", "when it is destroyed".
    unsigned moments() const {
      return Allocates && Frees ? 0 : Allocates ? 1 : 2;
    }
  };
  std::optional<ObjectSyncs> objectSyncs(const CXXRecordDecl *Class,
                                         const CXXConstructExpr *Construct,
                                         ASTContext &Ctx);
  /// The same for `new T(...)` and `delete p` of such a class in a loop.
  void checkHeapDeviceBuffer(const Expr *NewOrDelete, ASTContext &Ctx);
  void reportInStepFunction(const CallExpr *Call, const Hazard &H,
                            const ExecutionFrequency &Frequency,
                            ASTContext &Ctx);
  /// The measured-cost note (see CostCitation.h).
  void citeCost(SourceLocation Where, const Hazard &H,
                const ExecutionFrequency &Frequency, ASTContext &Ctx);

  const unsigned MinFrequencyPercent;
  const bool RequireCudaEvidence;
  /// Another translation unit of the program uses a CUDA device (set by
  /// xfer-tidy for the translation units of one run).
  const bool ProjectUsesCuda;
  const bool ReportUnknownPlacement;
  const bool ReportSetupAndTimingLoops;
  const bool ReportEvaluationLoops;
  const bool ReportTerminationReadBacks;
  const bool ReportFeedbackReadBacks;
  const bool ReportOutputReadBacks;
  /// The program's facts across translation units (option ProjectIndex,
  /// written by xfer-tidy's first pass), or null.
  const std::string ProjectIndex;
  std::shared_ptr<const ProjectFacts> Facts;
  /// Without a project index, this translation unit's own facts, made when
  /// first needed.
  std::shared_ptr<const ProjectFacts> OwnFacts;
  std::shared_ptr<TranslationUnitAnalyses> Analyses;
  CostCitations Costs;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_LOOPHAZARDCHECK_H
