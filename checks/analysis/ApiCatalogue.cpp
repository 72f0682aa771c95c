//===--- ApiCatalogue.cpp - LibTorch and CUDA runtime APIs the checks know ===//

#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/PrettyPrinter.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::xfer {

llvm::StringRef outermostNamespace(const Decl *D) {
  llvm::StringRef Name;
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      if (!NS->isInline() && NS->getIdentifier())
        Name = NS->getName();
  return Name;
}

namespace {

/// True if \p D is declared directly in namespace torch::cuda.
bool isInTorchCudaNamespace(const Decl *D) {
  const auto *Inner = dyn_cast<NamespaceDecl>(D->getDeclContext());
  return Inner && Inner->getName() == "cuda" && isInTorchNamespace(Inner);
}

bool isTensorClass(const CXXRecordDecl *RD) {
  if (!RD || !RD->getIdentifier())
    return false;
  llvm::StringRef Name = RD->getName();
  return (Name == "Tensor" || Name == "TensorBase") &&
         outermostNamespace(RD) == "at";
}

std::string methodSpelling(const FunctionDecl *FD) {
  std::string Spelling = FD->getNameAsString();
  if (const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs()) {
    PrintingPolicy Policy{LangOptions()};
    Policy.SuppressScope = false;
    Spelling += "<";
    for (unsigned I = 0; I < Args->size(); ++I) {
      if (I)
        Spelling += ", ";
      const TemplateArgument &Arg = Args->get(I);
      if (Arg.getKind() == TemplateArgument::Type)
        Spelling += Arg.getAsType().getAsString(Policy);
      else
        Spelling += "...";
    }
    Spelling += ">";
  }
  return Spelling + "()";
}

std::optional<TorchOp> torchMethodOp(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<TorchOp>>(Name)
      .Case("item", TorchOp::Item)
      .Case("equal", TorchOp::Equal)
      .Case("allclose", TorchOp::AllClose)
      .Case("is_nonzero", TorchOp::IsNonzero)
      .Case("nonzero", TorchOp::Nonzero)
      .Case("masked_select", TorchOp::MaskedSelect)
      .Case("unique_consecutive", TorchOp::Unique)
      .Case("cpu", TorchOp::Cpu)
      .Case("cuda", TorchOp::Cuda)
      .Case("to", TorchOp::To)
      .Case("copy_", TorchOp::Copy)
      .Case("pin_memory", TorchOp::PinMemory)
      .Cases("inverse", "cholesky", "pinverse", "svd", TorchOp::CheckedLinalg)
      .Default(std::nullopt);
}

/// The linear-algebra functions whose CUDA implementations synchronize with
/// the host, as PyTorch documents for each: they check the solver's error
/// flag (a singular matrix raises) or size their output on the host. The
/// `_ex` variants do not, unless asked to check errors.
bool isCheckedLinalgFunction(llvm::StringRef Name) {
  Name.consume_front("linalg_");
  return llvm::StringSwitch<bool>(Name)
      .Cases("inv", "inverse", "cholesky", "solve", true)
      .Cases("eigh", "eigvalsh", "eig", "eigvals", true)
      .Cases("svd", "svdvals", "pinv", "pinverse", "matrix_rank", true)
      .Cases("lu_factor", "ldl_factor", true)
      .Default(false);
}

std::optional<TorchOp> torchFunctionOp(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<TorchOp>>(Name)
      .Case("nonzero", TorchOp::Nonzero)
      .Case("masked_select", TorchOp::MaskedSelect)
      .Cases("unique_consecutive", "_unique", "_unique2", "unique_dim",
             TorchOp::Unique)
      .Case("equal", TorchOp::Equal)
      .Case("allclose", TorchOp::AllClose)
      .Case("is_nonzero", TorchOp::IsNonzero)
      .Case("from_blob", TorchOp::FromBlob)
      .Default(std::nullopt);
}

const Expr *ignoreImplicit(const Expr *E) {
  return E ? E->IgnoreParenImpCasts() : nullptr;
}

/// The tensor \p E is a view or slice of (`t.narrow(...)`, `t.slice(...)`,
/// `t.view(...)`), or null.
const Expr *viewedTensor(const Expr *E) {
  const auto *Call =
      dyn_cast_or_null<CXXMemberCallExpr>(ignoreCopiesAndConversions(E));
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  if (!Method || !Method->getIdentifier() || !isInTorchNamespace(Method) ||
      !isTensorType(Call->getImplicitObjectArgument()->getType()))
    return nullptr;
  bool IsView =
      llvm::StringSwitch<bool>(Method->getName())
          .Cases("narrow", "slice", "select", "view", "reshape", true)
          .Cases("squeeze", "unsqueeze", "flatten", "contiguous", true)
          .Default(false);
  return IsView ? Call->getImplicitObjectArgument() : nullptr;
}

/// True if \p E computes a boolean mask: a comparison or logical operation
/// on tensors, or a local variable initialised with one (or named a mask).
bool isBooleanMask(const Expr *E, unsigned Depth = 0) {
  E = ignoreCopiesAndConversions(E);
  if (!E || Depth > 3)
    return false;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    switch (Op->getOperator()) {
    case OO_Greater: case OO_Less: case OO_GreaterEqual: case OO_LessEqual:
    case OO_EqualEqual: case OO_ExclaimEqual: case OO_Exclaim: case OO_Tilde:
      return true;
    case OO_Amp: case OO_Pipe: case OO_AmpAmp: case OO_PipePipe:
      return isBooleanMask(Op->getArg(0), Depth + 1) ||
             isBooleanMask(Op->getArg(1), Depth + 1);
    default:
      return false;
    }
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || !FD->getIdentifier() || !isInTorchNamespace(FD))
      return false;
    return llvm::StringSwitch<bool>(FD->getName())
        .Cases("gt", "lt", "ge", "le", "eq", "ne", true)
        .Cases("greater", "less", "greater_equal", "less_equal", true)
        .Cases("logical_and", "logical_or", "logical_not", "logical_xor",
               true)
        .Cases("isnan", "isinf", "isfinite", "isin", true)
        .Default(false);
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl())) {
      bool Local = Var->hasLocalStorage() && !isa<ParmVarDecl>(Var);
      if (Local && isBooleanMask(Var->getInit(), Depth + 1))
        return true;
      // A view of another tensor (`order.narrow(0, 1, n)` of sorted
      // indices) is a mask only if that tensor is, whatever its name.
      if (const Expr *Viewed = Local ? viewedTensor(Var->getInit()) : nullptr)
        return isBooleanMask(Viewed, Depth + 1);
      return Var->getName().contains_insensitive("mask");
    }
  return false;
}

/// The boolean mask in the index list \p Indices (the TensorIndex array of
/// index() or index_put_()), if it holds one.
const Expr *booleanMaskIn(const Stmt *Indices) {
  if (!Indices)
    return nullptr;
  if (const auto *E = dyn_cast<Expr>(Indices);
      E && isTensorType(E->getType()))
    return isBooleanMask(E) ? E : nullptr;
  for (const Stmt *Child : Indices->children())
    if (const Expr *Mask = booleanMaskIn(Child))
      return Mask;
  return nullptr;
}

} // namespace

bool launchesNoKernel(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("view", "view_as", "reshape", "reshape_as", "detach", true)
      .Cases("select", "narrow", "slice", "t", "transpose", "permute", true)
      .Cases("expand", "expand_as", "squeeze", "unsqueeze", "flatten", true)
      .Cases("unflatten", "contiguous", "alias", "as_strided", true)
      .Cases("to", "cuda", "cpu", "pin_memory", "from_blob", true)
      .Cases("empty", "empty_like", "empty_strided", "new_empty", true)
      .Cases("requires_grad_", "set_requires_grad", true)
      .Default(false);
}

bool resizesTensor(llvm::StringRef Name) {
  if (Name.starts_with("upsample_") || Name.starts_with("max_pool") ||
      Name.starts_with("avg_pool") || Name.starts_with("fractional_max_pool"))
    return true;
  return llvm::StringSwitch<bool>(Name)
      .Cases("interpolate", "pad", "constant_pad_nd", "reflection_pad2d", true)
      .Cases("cat", "concat", "concatenate", "stack", "hstack", "vstack", true)
      .Cases("repeat", "repeat_interleave", "pixel_shuffle", true)
      .Cases("pixel_unshuffle", "unfold", "fold", true)
      .Default(false);
}

bool isInTorchNamespace(const Decl *D) {
  llvm::StringRef NS = outermostNamespace(D);
  return NS == "at" || NS == "torch";
}

bool isInLibTorch(const Decl *D) {
  return isInTorchNamespace(D) || outermostNamespace(D) == "c10";
}

bool isTensorType(QualType T) {
  if (T.isNull())
    return false;
  T = T.getNonReferenceType().getCanonicalType();
  return isTensorClass(T->getAsCXXRecordDecl());
}

bool isTensorLikeType(QualType T) {
  if (isTensorType(T))
    return true;
  if (T.isNull())
    return false;
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
  if (!Spec || !Spec->getIdentifier() || outermostNamespace(Spec) != "std")
    return false;
  llvm::StringRef Name = Spec->getName();
  if (Name != "tuple" && Name != "pair" && Name != "vector")
    return false;
  bool AnyTensor = false;
  for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray()) {
    if (Arg.getKind() == TemplateArgument::Pack) {
      for (const TemplateArgument &Element : Arg.pack_elements())
        AnyTensor |= Element.getKind() == TemplateArgument::Type &&
                     isTensorType(Element.getAsType());
      continue;
    }
    AnyTensor |= Arg.getKind() == TemplateArgument::Type &&
                 isTensorType(Arg.getAsType());
  }
  return AnyTensor;
}

bool isOpenCvMat(QualType T) {
  if (T.isNull())
    return false;
  T = T.getNonReferenceType();
  if (T->isPointerType())
    T = T->getPointeeType();
  const CXXRecordDecl *Class = T->getAsCXXRecordDecl();
  return Class && isNamed(Class, "Mat") && outermostNamespace(Class) == "cv";
}

bool isDataLoaderExample(QualType T) {
  if (T.isNull())
    return false;
  T = T.getNonReferenceType();
  if (T->isPointerType())
    T = T->getPointeeType();
  const auto *RD = T.getCanonicalType()->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier() || RD->getName() != "Example")
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(RD->getDeclContext());
  return NS && NS->getName() == "data" && outermostNamespace(RD) == "torch";
}

bool isTensorFactory(const FunctionDecl *D) {
  if (!D || !D->getIdentifier() || !isInTorchNamespace(D) ||
      isa<CXXMethodDecl>(D))
    return false;
  return llvm::StringSwitch<bool>(D->getName())
      .Cases("randn", "rand", "randint", "randperm", "zeros", "ones", true)
      .Cases("empty", "full", "arange", "linspace", "logspace", "eye", true)
      .Cases("tensor", "scalar_tensor", "normal", "range", "empty_strided",
             true)
      // Created where their argument is, unless options name a device.
      .Cases("zeros_like", "ones_like", "empty_like", "full_like", true)
      .Cases("rand_like", "randn_like", "randint_like", true)
      .Default(false);
}

bool isTensorPrint(const CallExpr *Call) {
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
  if (!Op || Op->getOperator() != OO_LessLess || Op->getNumArgs() != 2)
    return false;
  const FunctionDecl *FD = Op->getDirectCallee();
  return FD && !isa<CXXMethodDecl>(FD) &&
         isTensorType(Op->getArg(1)->getType()) &&
         !isTensorType(Op->getArg(0)->getType());
}

namespace {

/// True for an expression known to produce a 1-dim tensor: a list of
/// numbers (`torch::tensor({0.1, 0.5, 1.0})`) or a range (`arange`,
/// `linspace`, `logspace`, `randperm`), directly or through a local.
bool isOneDimTensor(const Expr *E, unsigned Depth) {
  E = ignoreCopiesAndConversions(E);
  if (!E || Depth > 4)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    return Var && Var->getInit() && !Var->getType()->isReferenceType() &&
           isOneDimTensor(Var->getInit(), Depth + 1);
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->getIdentifier() || !isInTorchNamespace(Callee) ||
      isa<CXXMethodDecl>(Callee))
    return false;
  llvm::StringRef Name = Callee->getName();
  if (llvm::is_contained({"arange", "linspace", "logspace", "randperm"}, Name))
    return true;
  if (Name != "tensor" || Call->getNumArgs() < 1)
    return false;
  // A braced list of numbers, through the ArrayRef it becomes.
  const Expr *Data = Call->getArg(0);
  while (true) {
    Data = ignoreCopiesAndConversions(Data);
    if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(Data))
      Data = List->getSubExpr();
    else if (const auto *Construct = dyn_cast<CXXConstructExpr>(Data);
             Construct && Construct->getNumArgs() == 1)
      Data = Construct->getArg(0);
    else
      break;
  }
  // Each number may reach the list through a conversion (LibTorch's
  // TensorDataContainer).
  const auto *Init = dyn_cast<InitListExpr>(Data);
  return Init && Init->getNumInits() > 1 &&
         llvm::all_of(Init->inits(), [](const Expr *Element) {
           Element = ignoreCopiesAndConversions(Element);
           while (true) {
             const auto *Construct = dyn_cast<CXXConstructExpr>(Element);
             if (!Construct || Construct->getNumArgs() != 1)
               break;
             Element = ignoreCopiesAndConversions(Construct->getArg(0));
           }
           return Element->getType()->isArithmeticType();
         });
}

} // namespace

bool isZeroDimTensor(const Expr *E, unsigned Depth) {
  E = ignoreCopiesAndConversions(E);
  if (!E || Depth > 4)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    return Var && Var->getInit() && isZeroDimTensor(Var->getInit(), Depth + 1);
  }
  // One element of a list of numbers: `deltas[i]`.
  if (const auto *Element = dyn_cast<CXXOperatorCallExpr>(E);
      Element && Element->getOperator() == OO_Subscript &&
      Element->getNumArgs() == 2)
    return ignoreCopiesAndConversions(Element->getArg(1))
               ->getType()
               ->isIntegralOrEnumerationType() &&
           isOneDimTensor(Element->getArg(0), Depth + 1);
  // Arithmetic of 0-dim tensors and plain numbers (1 - lambda) stays 0-dim.
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E)) {
    bool HasTensor = false;
    for (const Expr *Arg : Operator->arguments()) {
      if (isTensorType(Arg->getType())) {
        if (!isZeroDimTensor(Arg, Depth + 1))
          return false;
        HasTensor = true;
      } else if (!ignoreCopiesAndConversions(Arg)
                      ->getType()
                      ->isArithmeticType()) {
        return false;
      }
    }
    return HasTensor;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Callee->getIdentifier())
    return false;
  llvm::StringRef Name = Callee->getName();
  // Every tensor argument 0-dim, and at least one.
  auto ZeroDimArguments = [&] {
    bool HasTensor = false;
    for (const Expr *Arg : Call->arguments()) {
      if (!isTensorType(Arg->getType()))
        continue;
      if (!isZeroDimTensor(Arg, Depth + 1))
        return false;
      HasTensor = true;
    }
    return HasTensor;
  };
  // A helper of the program that only computes with its parameters
  // (`sqrt((w + pad) * (h + pad))`), given 0-dim tensors: no tensor of
  // its own (a factory, a member, a global) can add a dimension.
  if (!isInTorchNamespace(Callee) &&
      !(isa<CXXMemberCallExpr>(Call) &&
        isTensorType(cast<CXXMemberCallExpr>(Call)
                         ->getImplicitObjectArgument()
                         ->getType()))) {
    const FunctionDecl *Definition = Callee->getDefinition();
    if (!Definition || !Definition->getBody() || !ZeroDimArguments())
      return false;
    return !containsMatch<Expr>(Definition->getBody(), [](const Expr &Use) {
      if (const auto *Inner = dyn_cast<CallExpr>(&Use))
        if (std::optional<TorchCall> Made = identifyTorchCall(Inner))
          return Made->Op == TorchOp::Factory || Made->Op == TorchOp::FromBlob;
      const ValueDecl *Named = nullptr;
      if (const auto *Ref = dyn_cast<DeclRefExpr>(&Use))
        Named = Ref->getDecl();
      else if (const auto *Member = dyn_cast<MemberExpr>(&Use))
        Named = Member->getMemberDecl();
      const auto *Var = dyn_cast_or_null<VarDecl>(Named);
      return Named && isTensorType(Named->getType()) &&
             !(Var && Var->hasLocalStorage());
    });
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    // Full reductions: t.sum(), t.mean(), ...
    bool NoExplicitArgs = llvm::all_of(Call->arguments(), [](const Expr *A) {
      return isa<CXXDefaultArgExpr>(A);
    });
    return NoExplicitArgs &&
           isTensorType(Member->getImplicitObjectArgument()->getType()) &&
           llvm::StringSwitch<bool>(Name)
               .Cases("sum", "mean", "prod", "max", "min", "norm", true)
               .Cases("amax", "amin", "all", "any", "std", "var", true)
               .Default(false);
  }
  if (Name == "scalar_tensor")
    return true;
  // Elementwise functions of 0-dim tensors.
  if (llvm::is_contained({"max", "min", "maximum", "minimum", "sqrt", "exp",
                          "log", "abs", "pow", "clamp", "sigmoid", "tanh"},
                         Name))
    return ZeroDimArguments();
  // torch::tensor(2.0): a scalar rather than a list of values.
  if (Name == "tensor" && Call->getNumArgs() >= 1) {
    // The value reaches the parameter through Scalar/ArrayRef conversions.
    const Expr *Data = ignoreCopiesAndConversions(Call->getArg(0));
    while (const auto *Construct = dyn_cast<CXXConstructExpr>(Data)) {
      if (Construct->getNumArgs() != 1)
        break;
      Data = ignoreCopiesAndConversions(Construct->getArg(0));
    }
    return Data->getType()->isArithmeticType();
  }
  return false;
}

bool isThrustDeviceVector(const CXXRecordDecl *Class) {
  return Class && Class->getIdentifier() &&
         Class->getName() == "device_vector" &&
         outermostNamespace(Class) == "thrust";
}

bool runsThrustOnDevice(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->getIdentifier() ||
      outermostNamespace(Callee) != "thrust" || isa<CXXMethodDecl>(Callee))
    return false;
  // The execution policy or the first range says where it runs.
  for (unsigned I = 0; I < std::min(2u, Call->getNumArgs()); ++I) {
    std::string Type =
        Call->getArg(I)->getType().getCanonicalType().getAsString();
    llvm::StringRef Spelled(Type);
    if (!Spelled.contains("thrust::"))
      continue;
    if (Spelled.contains("device_ptr") || Spelled.contains("device_vector") ||
        Spelled.contains("device_t") || Spelled.contains("cuda_cub::"))
      return true;
  }
  return false;
}

std::optional<bool> readsThrustElement(const CallExpr *Call) {
  const Expr *Reference = nullptr;
  bool Read = false;
  if (const auto *Conversion = dyn_cast<CXXMemberCallExpr>(Call);
      Conversion &&
      isa_and_nonnull<CXXConversionDecl>(Conversion->getMethodDecl())) {
    Reference = Conversion->getImplicitObjectArgument();
    Read = true;
  } else if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(Call);
             Assign && Assign->getOperator() == OO_Equal &&
             Assign->getNumArgs() == 2) {
    Reference = Assign->getArg(0);
  }
  const CXXRecordDecl *Class =
      Reference ? Reference->getType()->getAsCXXRecordDecl() : nullptr;
  if (!Class || !Class->getIdentifier() ||
      Class->getName() != "device_reference" ||
      outermostNamespace(Class) != "thrust")
    return std::nullopt;
  return Read;
}

const Expr *thrustPolicyStream(const CallExpr *Call) {
  if (Call->getNumArgs() == 0)
    return nullptr;
  const auto *On = dyn_cast<CXXMemberCallExpr>(
      Call->getArg(0)->IgnoreImplicit()->IgnoreParens());
  const CXXMethodDecl *Method = On ? On->getMethodDecl() : nullptr;
  if (!Method || !Method->getIdentifier() || Method->getName() != "on" ||
      On->getNumArgs() != 1)
    return nullptr;
  return On->getArg(0);
}

llvm::StringRef thrustBlockingAlgorithmName(const CallExpr *Call) {
  if (!runsThrustOnDevice(Call))
    return {};
  const FunctionDecl *Callee = Call->getDirectCallee();
  const bool Blocks =
      llvm::StringSwitch<bool>(Callee->getName())
          // A value comes back.
          .Cases("reduce", "count", "count_if", "transform_reduce",
                 "inner_product", true)
          .Cases("all_of", "any_of", "none_of", "equal", "is_sorted",
                 "is_partitioned", true)
          .Cases("max_element", "min_element", "minmax_element", "find",
                 "find_if", "mismatch", true)
          // Temporary storage, or a count of what was kept, comes and goes.
          .Cases("inclusive_scan", "exclusive_scan", "inclusive_scan_by_key",
                 "exclusive_scan_by_key", "transform_inclusive_scan",
                 "transform_exclusive_scan", true)
          .Cases("sort", "sort_by_key", "stable_sort", "stable_sort_by_key",
                 "reduce_by_key", true)
          .Cases("copy_if", "remove_if", "remove_copy_if", "unique",
                 "unique_copy", "unique_by_key", "partition", true)
          .Default(false);
  return Blocks ? Callee->getName() : llvm::StringRef();
}

const CXXRecordDecl *moduleImplClass(QualType T) {
  const CXXRecordDecl *RD =
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  if (!RD)
    return nullptr;
  // The template argument of a ModuleHolder, the type's own ModuleHolder
  // base's (TORCH_MODULE), or the class itself.
  auto ImplOf = [](const CXXRecordDecl *Holder) -> const CXXRecordDecl * {
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(Holder);
    if (!Spec || !isNamed(Spec, "ModuleHolder") ||
        Spec->getTemplateArgs().size() < 1 ||
        Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
      return nullptr;
    return Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  };
  if (const CXXRecordDecl *Impl = ImplOf(RD))
    return Impl;
  if (RD->hasDefinition())
    for (const CXXBaseSpecifier &Base : RD->getDefinition()->bases())
      if (const CXXRecordDecl *BaseRD = Base.getType()->getAsCXXRecordDecl())
        if (const CXXRecordDecl *Impl = ImplOf(BaseRD))
          return Impl;
  return RD;
}

// LibTorch modules without parameters or buffers (losses, activations,
// dropout, pooling, reshaping): they run on whatever device their inputs
// are on, so where they were built says nothing.
bool isParameterFreeModuleType(QualType T) {
  const CXXRecordDecl *Impl = moduleImplClass(T);
  if (!Impl || !Impl->getIdentifier() || !isInTorchNamespace(Impl))
    return false;
  llvm::StringRef Name = Impl->getName();
  Name.consume_back("Impl");
  if (Name.ends_with("Loss"))
    return true;
  for (llvm::StringRef Prefix :
       {"MaxPool", "AvgPool", "AdaptiveAvgPool", "AdaptiveMaxPool", "Dropout",
        "FeatureAlphaDropout"})
    if (Name.starts_with(Prefix))
      return true;
  return llvm::is_contained(
      {"ReLU",      "ReLU6",        "LeakyReLU",   "ELU",       "SELU",
       "CELU",      "GELU",         "SiLU",        "Mish",      "Sigmoid",
       "Tanh",      "Softmax",      "LogSoftmax",  "Softplus",  "Hardtanh",
       "Hardswish", "Hardsigmoid",  "Flatten",     "Unflatten", "Identity",
       "Upsample",  "PixelShuffle", "AlphaDropout"},
      Name);
}

std::optional<TorchCall> identifyTorchCall(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return std::nullopt;

  if (isTensorPrint(Call))
    return TorchCall{TorchOp::Print, ignoreImplicit(Call->getArg(1)),
                     "printing a tensor"};

  if (const auto *Method = dyn_cast<CXXMethodDecl>(FD)) {
    if (!isTensorClass(Method->getParent()))
      return std::nullopt;
    const Expr *Object = nullptr;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      Object = MC->getImplicitObjectArgument();
    else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Call))
      Object = OC->getNumArgs() ? OC->getArg(0) : nullptr;
    Object = ignoreImplicit(Object);

    if (Method->getOverloadedOperator() == OO_Subscript) {
      // Only the Tensor-index overload reads the index back to the host.
      if (Call->getNumArgs() == 2 && isTensorType(Method->getParamDecl(0)
                                                      ->getType()))
        return TorchCall{TorchOp::IndexWithTensor,
                         ignoreImplicit(Call->getArg(1)),
                         "operator[] with a tensor index"};
      return std::nullopt;
    }
    // Assigning a tensor to a view (`host[i] = device_value`, `t.slice(..)
    // = u`) copies into it; assigning to a variable only rebinds it.
    if (Method->getOverloadedOperator() == OO_Equal &&
        Method->getRefQualifier() == RQ_RValue && Call->getNumArgs() == 2 &&
        isTensorType(Call->getArg(1)->getType()))
      return TorchCall{TorchOp::Copy, Object, "assigning into a tensor view"};
    if (!Method->getIdentifier())
      return std::nullopt;
    // Boolean-mask indexing sizes its result (or its scatter) by the
    // number of true elements, which the host reads back. index_put_ with
    // a scalar value is a masked fill and does not.
    if ((Method->getName() == "index" && Call->getNumArgs() == 1) ||
        (Method->getName() == "index_put_" && Call->getNumArgs() == 2 &&
         isTensorType(Call->getArg(1)->getType())))
      // The mask decides where the count is computed; it usually comes
      // from the indexed tensor (`t.index({t > 0})`).
      if (const Expr *Mask = booleanMaskIn(Call->getArg(0)))
        return TorchCall{TorchOp::MaskIndex, ignoreImplicit(Mask),
                         Method->getName().str() + "() with a boolean mask"};
    // `host.fill_(value)` with a 0-dim tensor value: LibTorch reads the
    // value with item() when it lives on another device, like copy_.
    if (Method->getName() == "fill_" && Call->getNumArgs() == 1 &&
        isTensorType(Call->getArg(0)->getType()))
      return TorchCall{TorchOp::Copy, Object, "fill_()"};
    std::optional<TorchOp> Op = torchMethodOp(Method->getName());
    if (!Op)
      return std::nullopt;
    return TorchCall{*Op, Object, methodSpelling(Method)};
  }

  if (!FD->getIdentifier())
    return std::nullopt;
  if (isInTorchCudaNamespace(FD) && FD->getName() == "synchronize")
    return TorchCall{TorchOp::CudaSynchronize, nullptr,
                     "torch::cuda::synchronize()"};
  if (!isInTorchNamespace(FD))
    return std::nullopt;
  // clip_grad_norm_ returns the total norm as a double: it calls item().
  if (FD->getName() == "clip_grad_norm_")
    return TorchCall{TorchOp::Item, nullptr,
                     "torch::nn::utils::clip_grad_norm_()"};
  if (isTensorFactory(FD))
    return TorchCall{TorchOp::Factory, nullptr,
                     (outermostNamespace(FD) + "::" + FD->getName() + "()")
                         .str()};
  std::optional<TorchOp> Op = torchFunctionOp(FD->getName());
  if (!Op && isCheckedLinalgFunction(FD->getName()))
    Op = TorchOp::CheckedLinalg;
  if (!Op || Call->getNumArgs() == 0)
    return std::nullopt;
  const Expr *Subject = ignoreImplicit(Call->getArg(0));
  if (*Op != TorchOp::FromBlob && !isTensorType(Subject->getType()))
    return std::nullopt;
  if (*Op == TorchOp::CheckedLinalg) // torch::linalg::inv(), not torch::inv()
    return TorchCall{*Op, Subject, FD->getQualifiedNameAsString() + "()"};
  return TorchCall{*Op, Subject,
                   (outermostNamespace(FD) + "::" + FD->getName() + "()")
                       .str()};
}

std::optional<CudaApi> identifyCudaCall(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !FD->getIdentifier() ||
      !FD->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return std::nullopt;
  llvm::StringRef Name = FD->getName();
  if (!Name.starts_with("cu"))
    return std::nullopt;
  // cublas_v2.h names its functions through macros: cublasDestroy is
  // cublasDestroy_v2.
  Name.consume_back("_v2");
  return llvm::StringSwitch<std::optional<CudaApi>>(Name)
#define XFER_CUDA_API(Enumerator, Name) .Case(Name, CudaApi::Enumerator)
#include "xfer/CudaApis.def"
      .Default(std::nullopt);
}

llvm::StringRef cudaApiName(CudaApi Api) {
  switch (Api) {
#define XFER_CUDA_API(Enumerator, Name)                                        \
  case CudaApi::Enumerator:                                                    \
    return Name;
#include "xfer/CudaApis.def"
  }
  llvm_unreachable("unknown CUDA API");
}

llvm::StringRef memcpyKindName(MemcpyDirection Direction) {
  switch (Direction) {
#define XFER_CUDA_MEMCPY_KIND(Enumerator, Name)                                \
  case MemcpyDirection::Enumerator:                                            \
    return Name;
#include "xfer/CudaApis.def"
  }
  llvm_unreachable("unknown cudaMemcpyKind");
}

std::optional<unsigned> memcpyKindArgIndex(CudaApi Api) {
  switch (Api) {
  case CudaApi::Memcpy:
  case CudaApi::MemcpyAsync:
    return 3;
  case CudaApi::Memcpy2D:
  case CudaApi::Memcpy2DAsync:
    return 6;
  case CudaApi::MemcpyToArray:
  case CudaApi::MemcpyFromArray:
    return 5;
  case CudaApi::Memcpy2DToArray:
  case CudaApi::Memcpy2DFromArray:
    return 7;
  case CudaApi::MemcpyFromSymbol:
  case CudaApi::MemcpyToSymbol:
  case CudaApi::MemcpyFromSymbolAsync:
  case CudaApi::MemcpyToSymbolAsync:
    return 4;
  default:
    return std::nullopt;
  }
}

std::optional<unsigned> memcpySourceArgIndex(CudaApi Api) {
  switch (Api) {
  case CudaApi::Memcpy:
  case CudaApi::MemcpyAsync:
  case CudaApi::MemcpyFromArray:
  case CudaApi::MemcpyToSymbol:
  case CudaApi::MemcpyToSymbolAsync:
    return 1;
  case CudaApi::Memcpy2D:
  case CudaApi::Memcpy2DAsync:
  case CudaApi::Memcpy2DFromArray:
    return 2;
  case CudaApi::MemcpyToArray:
  case CudaApi::Memcpy2DToArray:
    return 3;
  default:
    return std::nullopt;
  }
}

bool isAsyncCopy(CudaApi Api) {
  return Api == CudaApi::MemcpyAsync || Api == CudaApi::Memcpy2DAsync ||
         Api == CudaApi::Memcpy3DAsync || Api == CudaApi::MemcpyPeerAsync ||
         Api == CudaApi::MemcpyToSymbolAsync ||
         Api == CudaApi::MemcpyFromSymbolAsync;
}

bool returnsCublasScalar(CudaApi Api) {
  switch (Api) {
#define XFER_CUBLAS_SCALAR_RESULT(Enumerator, Name) case CudaApi::Enumerator:
#include "xfer/CudaApis.def"
    return true;
  default:
    return false;
  }
}

bool acquiresOrReleases(CudaApi Api) {
  switch (Api) {
  case CudaApi::Malloc:
  case CudaApi::MallocManaged:
  case CudaApi::MallocPitch:
  case CudaApi::Malloc3D:
  case CudaApi::MallocArray:
  case CudaApi::Malloc3DArray:
  case CudaApi::MallocHost:
  case CudaApi::HostAlloc:
  case CudaApi::HostRegister:
  case CudaApi::Free:
  case CudaApi::FreeArray:
  case CudaApi::FreeHost:
  case CudaApi::CublasCreate:
  case CudaApi::CublasDestroy:
  case CudaApi::CufftPlan1d:
  case CudaApi::CufftPlan2d:
  case CudaApi::CufftPlan3d:
  case CudaApi::CufftPlanMany:
  case CudaApi::CufftDestroy:
    return true;
  default:
    return false;
  }
}

bool isCopy(CudaApi Api) {
  switch (Api) {
  case CudaApi::Memcpy:
  case CudaApi::Memcpy2D:
  case CudaApi::MemcpyToArray:
  case CudaApi::MemcpyFromArray:
  case CudaApi::Memcpy2DToArray:
  case CudaApi::Memcpy2DFromArray:
  case CudaApi::Memcpy3D:
  case CudaApi::MemcpyFromSymbol:
  case CudaApi::MemcpyToSymbol:
  case CudaApi::MemcpyPeer:
    return true;
  default:
    return isAsyncCopy(Api);
  }
}

bool isCudaMemset(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier() || FD->getNumParams() < 1 ||
      !FD->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return false;
  return llvm::StringSwitch<bool>(FD->getName())
      .Cases("cudaMemset", "cudaMemsetAsync", "cudaMemset2D",
             "cudaMemset2DAsync", true)
      .Default(false);
}

std::optional<MemcpyDirection> evaluateMemcpyKind(const Expr *KindArg,
                                                  const ASTContext &Ctx) {
  if (!KindArg)
    return std::nullopt;
  if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(KindArg))
    KindArg = Default->getExpr();
  KindArg = KindArg->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(KindArg))
    if (const auto *Enumerator = dyn_cast<EnumConstantDecl>(Ref->getDecl())) {
      auto ByName =
          llvm::StringSwitch<std::optional<MemcpyDirection>>(
              Enumerator->getName())
#define XFER_CUDA_MEMCPY_KIND(Enumerator, Name)                                \
  .Case(Name, MemcpyDirection::Enumerator)
#include "xfer/CudaApis.def"
              .Default(std::nullopt);
      if (ByName)
        return ByName;
    }
  std::optional<int64_t> Kind = evaluateInt(KindArg, Ctx);
  if (!Kind)
    return std::nullopt;
  switch (*Kind) {
  case 0:
    return MemcpyDirection::HostToHost;
  case 1:
    return MemcpyDirection::HostToDevice;
  case 2:
    return MemcpyDirection::DeviceToHost;
  case 3:
    return MemcpyDirection::DeviceToDevice;
  case 4:
    return MemcpyDirection::Default;
  default:
    return std::nullopt;
  }
}

namespace {

/// Parameters of the torch::nn layers, by their implementation class, with
/// their default options (a Linear has a bias unless told otherwise).
std::optional<unsigned> torchLayerParameterCount(llvm::StringRef Impl) {
  return llvm::StringSwitch<std::optional<unsigned>>(Impl)
      .Cases("LinearImpl", "BilinearImpl", "Conv1dImpl", "Conv2dImpl",
             "Conv3dImpl", 2u)
      .Cases("ConvTranspose1dImpl", "ConvTranspose2dImpl",
             "ConvTranspose3dImpl", 2u)
      .Cases("BatchNorm1dImpl", "BatchNorm2dImpl", "BatchNorm3dImpl", 2u)
      .Cases("LayerNormImpl", "GroupNormImpl", 2u)
      .Cases("EmbeddingImpl", "PReLUImpl", 1u)
      .Default(std::nullopt);
}

std::optional<unsigned> moduleParameterCount(QualType Module, unsigned Depth) {
  if (Depth > 8 || Module.isNull())
    return std::nullopt;
  Module = Module.getNonReferenceType();
  if (Module->isPointerType())
    Module = Module->getPointeeType();
  const auto *Class = Module->getAsCXXRecordDecl();
  if (!Class || !Class->hasDefinition())
    return std::nullopt;
  Class = Class->getDefinition();
  // ModuleHolder<Impl> and std::shared_ptr<Impl>: the module is Impl.
  if (const auto *Specialization =
          dyn_cast<ClassTemplateSpecializationDecl>(Class);
      Specialization && Specialization->getIdentifier() &&
      (Specialization->getName() == "ModuleHolder" ||
       Specialization->getName() == "shared_ptr") &&
      Specialization->getTemplateArgs().size() > 0 &&
      Specialization->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
    return moduleParameterCount(
        Specialization->getTemplateArgs()[0].getAsType(), Depth + 1);
  if (isInTorchNamespace(Class)) {
    if (Class->getIdentifier())
      if (std::optional<unsigned> Count =
              torchLayerParameterCount(Class->getName()))
        return Count;
    // TORCH_MODULE(Linear): a class derived from ModuleHolder<LinearImpl>.
    for (const CXXBaseSpecifier &Base : Class->bases())
      if (std::optional<unsigned> Count =
              moduleParameterCount(Base.getType(), Depth + 1))
        return Count;
    return std::nullopt;
  }
  // A module of the program: the layers it holds.
  unsigned Count = 0;
  bool Found = false;
  for (const FieldDecl *Field : Class->fields())
    if (std::optional<unsigned> Inner =
            moduleParameterCount(Field->getType(), Depth + 1)) {
      Count += *Inner;
      Found = true;
    }
  return Found ? std::optional<unsigned>(Count) : std::nullopt;
}

} // namespace

std::optional<unsigned> torchModuleParameterCount(QualType Module) {
  return moduleParameterCount(Module, 0);
}

} // namespace clang::tidy::xfer
