//===--- DeviceMismatchCheck.h - xfer-device-mismatch ---------------------===//

#ifndef XFER_TIDY_CHECKS_DEVICEMISMATCHCHECK_H
#define XFER_TIDY_CHECKS_DEVICEMISMATCHCHECK_H

#include "analysis/ApiCatalogue.h"
#include "analysis/DeviceInference.h"
#include "clang-tidy/ClangTidyCheck.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <memory>

namespace clang::tidy::xfer {

class ProjectFacts;
class TranslationUnitAnalyses;

/// Finds memory used on the wrong side of the host/device boundary:
///   - LibTorch operations and module calls whose tensors live on different
///     devices, and `t.to(device);` statements that discard the moved copy;
///   - cudaMemcpy kinds that contradict the pointers' known placement;
///   - host memory passed to a kernel launch, and device memory read or
///     written by host code.
/// Only placements the device inference knows are reported.
///
/// DeviceMismatchCheck.cpp registers and dispatches; DeviceMismatchTorch.cpp
/// checks LibTorch operands and modules, DeviceMismatchCuda.cpp CUDA pointers
/// and kernels.
///
/// For the user-facing documentation see docs/checks/device-mismatch.md.
class DeviceMismatchCheck : public ClangTidyCheck {
public:
  DeviceMismatchCheck(llvm::StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;

  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override;

private:
  /// A tensor operand, or a module, of an operation.
  struct Operand {
    const Expr *Value;
    PlacementFact Fact;
  };

  void checkTensorOperation(const CallExpr *Call, ASTContext &Ctx);
  /// Reports \p Call if \p Operands mix a host tensor with a device one.
  void reportMixedOperands(const CallExpr *Call, llvm::StringRef Operation,
                           llvm::ArrayRef<const Expr *> Operands,
                           ASTContext &Ctx);
  void checkModuleCall(const CallExpr *Call, const Expr *Module,
                       ASTContext &Ctx);
  void checkDiscardedMove(const CXXMemberCallExpr *Call, ASTContext &Ctx);
  void checkMemcpyKind(const CallExpr *Call, ASTContext &Ctx);
  void checkKernelArguments(const CallExpr *Launch, ASTContext &Ctx);
  void checkManagedReadAfterLaunch(const CallExpr *Launch, const Expr *Pointer,
                                   llvm::StringRef Kernel, ASTContext &Ctx);
  void checkMemset(const CallExpr *Call, ASTContext &Ctx);
  void checkFree(const CallExpr *Call, CudaApi Api, ASTContext &Ctx);
  void checkHostAccess(const Expr *Access, const Expr *Pointer,
                       llvm::StringRef What, ASTContext &Ctx);

  /// Whether \p Fact counts as a CUDA placement at \p Site: definitely
  /// CUDA, or chosen at run time in a function that also places data on
  /// CUDA unconditionally (then \p ForcedAt is that place) or in a program
  /// that uses CUDA (names it, as the translation unit or the project
  /// index shows).
  bool countsAsCuda(const PlacementFact &Fact, const Stmt *Site,
                    ASTContext &Ctx, const Stmt *&ForcedAt);
  /// Says why a device chosen at run time counts as cuda.
  void noteRunTimeDevice(Placement DeviceSide, const Stmt *ForcedAt);
  const Stmt *unconditionalCudaPlacement(const FunctionDecl *Function,
                                         ASTContext &Ctx);

  void noteOrigin(const Expr *Value, const PlacementFact &Fact,
                  ASTContext &Ctx);

  /// The project index: what functions and fields in other files of the
  /// program return and hold.
  const std::string ProjectIndex;
  std::shared_ptr<const ProjectFacts> Facts;
  std::shared_ptr<TranslationUnitAnalyses> Analyses;
  llvm::DenseMap<const FunctionDecl *, const Stmt *> ForcedCuda;
  /// Operations already reported as mixing devices: a variable holding the
  /// result of one carries the same bug into its later uses, which are not
  /// reported again.
  llvm::DenseSet<const CallExpr *> ReportedMixes;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_DEVICEMISMATCHCHECK_H
