//===--- PageableAsyncCopyCheck.h - xfer-pageable-async-copy --------------===//

#ifndef XFER_TIDY_CHECKS_PAGEABLEASYNCCOPYCHECK_H
#define XFER_TIDY_CHECKS_PAGEABLEASYNCCOPYCHECK_H

#include "cost/CostCitation.h"
#include "analysis/DeviceInference.h"
#include "clang-tidy/ClangTidyCheck.h"
#include <memory>

namespace clang::tidy::xfer {

class ProjectFacts;
class TranslationUnitAnalyses;

/// Finds asynchronous host<->device copies whose host side is pageable
/// memory: cudaMemcpyAsync, cudaMemcpy2DAsync and cudaMemcpy3DAsync from or
/// into malloc/new/std::vector/stack memory, and LibTorch's
/// `to(device, /*non_blocking=*/true)` and `copy_(src, true)` of a tensor
/// that is not pinned. Such a copy is staged through a pinned bounce buffer
/// and returns only once the host memory has been copied: it is not
/// asynchronous with respect to the host.
///
/// For the user-facing documentation see docs/checks/pageable-async-copy.md.
class PageableAsyncCopyCheck : public ClangTidyCheck {
public:
  PageableAsyncCopyCheck(llvm::StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;

  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override;

private:
  void checkCudaCopy(const CallExpr *Call, ASTContext &Ctx);
  /// cublasSetMatrixAsync and friends: cudaMemcpyAsync underneath.
  void checkCublasCopy(const CallExpr *Call, ASTContext &Ctx);
  void checkTorchCopy(const CallExpr *Call, ASTContext &Ctx);
  void reportPageableCopy(const CallExpr *Call, llvm::StringRef Name,
                          bool IntoHost, const PlacementFact &Host,
                          std::optional<uint64_t> Bytes, ASTContext &Ctx);
  void notePageableOrigin(const PlacementFact &Fact, ASTContext &Ctx);
  /// The measured cost of the copy against its pinned equivalent.
  void citeCost(const CallExpr *Call, bool IntoHost,
                std::optional<uint64_t> Bytes, ASTContext &Ctx);

  /// The project index: what functions and fields in other files of the
  /// program return and hold.
  const std::string ProjectIndex;
  std::shared_ptr<const ProjectFacts> Facts;
  std::shared_ptr<TranslationUnitAnalyses> Analyses;
  CostCitations Costs;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_PAGEABLEASYNCCOPYCHECK_H
