//===--- CreateOnDeviceCheck.h - xfer-create-on-device --------------------===//

#ifndef XFER_TIDY_CHECKS_CREATEONDEVICECHECK_H
#define XFER_TIDY_CHECKS_CREATEONDEVICECHECK_H

#include "cost/CostCitation.h"
#include "analysis/DeviceInference.h"
#include "clang-tidy/ClangTidyCheck.h"
#include <memory>
#include <string>

namespace clang::tidy::xfer {

class TranslationUnitAnalyses;

class ProjectFacts;

/// Finds tensors that a LibTorch factory creates on the host only for them
/// to be copied to the GPU right away (`torch::randn({N}).to(torch::kCUDA)`,
/// `torch::zeros({N}).cuda()`, or a host tensor in a local variable whose
/// only use is that move), and offers to pass the device to the factory.
///
/// For the user-facing documentation see docs/checks/create-on-device.md.
class CreateOnDeviceCheck : public ClangTidyCheck {
public:
  CreateOnDeviceCheck(llvm::StringRef Name, ClangTidyContext *Context);

  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override;

private:
  /// `torch::tensor({t}, device)` on every step: host scalars copied up.
  void checkScalarUpload(const CallExpr *Upload, ASTContext &Ctx);
  /// Whether fix-its are offered for random factories (randn, rand, ...),
  /// whose values then come from the GPU's generator instead of the CPU's.
  const bool FixRandomFactories;
  /// Also report creations that run once (setup, constructors).
  const bool ReportOneTimeCreations;
  const std::string ProjectIndex;
  std::shared_ptr<const ProjectFacts> Facts;
  std::shared_ptr<TranslationUnitAnalyses> Analyses;
  CostCitations Costs;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_CREATEONDEVICECHECK_H
