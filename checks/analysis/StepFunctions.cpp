//===--- StepFunctions.cpp - functions that run on every step -------------===//

#include "analysis/StepFunctions.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/DeviceInference.h"
#include "analysis/LoopContext.h"
#include "analysis/ProjectFacts.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::xfer {
namespace {

/// The module class a LibTorch ModuleHolder<Impl> (or a class derived from
/// one, as TORCH_MODULE declares) holds.
const CXXRecordDecl *heldModule(QualType Type) {
  const CXXRecordDecl *Record = Type->getAsCXXRecordDecl();
  for (unsigned Depth = 0; Record && Depth < 4; ++Depth) {
    if (const auto *Holder =
            dyn_cast<ClassTemplateSpecializationDecl>(Record);
        Holder && Holder->getName() == "ModuleHolder" &&
        Holder->getTemplateArgs().size() >= 1 &&
        Holder->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      return Holder->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
    if (!Record->hasDefinition() || Record->getNumBases() != 1)
      return nullptr;
    Record = Record->bases_begin()->getType()->getAsCXXRecordDecl();
  }
  return nullptr;
}

bool derivesFromTorchModule(const CXXRecordDecl *Record, unsigned Depth = 0) {
  if (!Record || !Record->hasDefinition() || Depth > 6)
    return false;
  for (const CXXBaseSpecifier &Base : Record->bases()) {
    const CXXRecordDecl *BaseRecord = Base.getType()->getAsCXXRecordDecl();
    if (!BaseRecord)
      continue;
    if (isInTorchNamespace(BaseRecord) &&
        (BaseRecord->getName() == "Module" ||
         BaseRecord->getName() == "Cloneable"))
      return true;
    if (derivesFromTorchModule(BaseRecord, Depth + 1))
      return true;
  }
  return false;
}

} // namespace

const FunctionDecl *stepCallee(const CallExpr *Call) {
  const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
  if (!Operator || Operator->getOperator() != OO_Call ||
      Operator->getNumArgs() == 0)
    return Call->getDirectCallee();
  const CXXRecordDecl *Module = heldModule(
      Operator->getArg(0)->getType().getNonReferenceType());
  if (!Module || !Module->hasDefinition())
    return Call->getDirectCallee();
  const unsigned Arguments = Operator->getNumArgs() - 1;
  for (const CXXMethodDecl *Method : Module->methods())
    if (Method->getIdentifier() && Method->getName() == "forward" &&
        Method->getMinRequiredArguments() <= Arguments &&
        Arguments <= Method->getNumParams())
      return Method;
  return Call->getDirectCallee();
}

bool isModuleForward(const FunctionDecl *Function) {
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Function);
  return Method && Method->getIdentifier() && Method->getName() == "forward" &&
         derivesFromTorchModule(Method->getParent());
}

static bool isCalledInLoopHere(const FunctionDecl *Function,
                               DeviceInference &Devices, ASTContext &Ctx,
                               bool OnEveryIteration, unsigned Depth) {
  if (!Function || Depth > 3)
    return false;
  for (const CallExpr *Site : Devices.callSitesOf(Function)) {
    ExecutionFrequency Frequency = analyzeFrequency(Site, Ctx);
    if (OnEveryIteration && Frequency.Guard != GuardKind::None)
      continue;
    // A loop that reads its input record by record is loading, not steps.
    if (Frequency.inLoop() &&
        llvm::all_of(Frequency.Loops, [](const EnclosingLoop &Loop) {
          return readsTextInput(Loop.Loop);
        }))
      continue;
    if (Frequency.inLoop() ||
        isCalledInLoopHere(enclosingFunction(Site, Ctx), Devices, Ctx,
                           OnEveryIteration, Depth + 1))
      return true;
  }
  return false;
}

bool isCalledInLoopHere(const FunctionDecl *Function, DeviceInference &Devices,
                        ASTContext &Ctx, bool OnEveryIteration) {
  return isCalledInLoopHere(Function, Devices, Ctx, OnEveryIteration, 0);
}

std::optional<std::string> stepPhrase(const FunctionDecl *Function,
                                      const ProjectFacts *Facts) {
  if (!Function)
    return std::nullopt;
  // Constructors and destructors run where objects are made and destroyed:
  // on every step only where another file makes them there (an object
  // made in a loop of this file is a finding at the object).
  if (isa<CXXConstructorDecl, CXXDestructorDecl>(Function)) {
    const StepOrigin *Origin = Facts ? Facts->stepOrigin(Function) : nullptr;
    if (!Origin)
      return std::nullopt;
    return (llvm::Twine("whenever a '") +
            cast<CXXMethodDecl>(Function)->getParent()->getName() + "' is " +
            (isa<CXXConstructorDecl>(Function) ? "created" : "destroyed") +
            ", which happens on every iteration of the loop at " + Origin->Loop)
        .str();
  }
  std::string Name = Function->getQualifiedNameAsString() + "()";
  if (Facts)
    if (const StepOrigin *Origin = Facts->stepOrigin(Function))
      return "on every call of '" + Name + "', which runs on every " +
             "iteration of the loop at " + Origin->Loop;
  if (isModuleForward(Function))
    return "on every call of '" + Name + "', once per step of the model";
  return std::nullopt;
}

} // namespace clang::tidy::xfer
