//===--- DeviceInference.h - where a tensor or pointer lives --------------===//
//
// A small abstract interpretation of placements: for a tensor expression, a
// device expression (torch::Device, DeviceType, TensorOptions, "cuda:0") or a
// raw pointer, infer whether it lives on the host, on a CUDA device, or
// depends on a run-time choice. Local variables are resolved through their
// reaching definitions inside the enclosing function (a definition hides
// earlier ones where it dominates the use in the CFG, see ExecutionOrder;
// otherwise they are joined, with loop back-edges). Across functions of the
// translation unit: a parameter's placement is the join of the arguments at
// its call sites, and a call to a function defined here is evaluated through
// its return statements with the call's arguments bound to its parameters.
//
// The solver (variables, fields, parameters, calls) is DeviceInference.cpp;
// the transfer functions (what each LibTorch or CUDA operation does to its
// operands' placements, from the API catalogue) are PlacementTransfer.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_DEVICEINFERENCE_H
#define XFER_TIDY_CHECKS_ANALYSIS_DEVICEINFERENCE_H

#include "analysis/ExecutionOrder.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include <optional>
#include <string>

namespace clang::tidy::xfer {

enum class Placement {
  Unknown,   // nothing is known
  Cpu,       // host memory (pageable)
  PinnedCpu, // page-locked host memory (cudaMallocHost, pin_memory())
  Cuda,      // CUDA device memory
  MaybeCuda, // chosen at run time (device-agnostic code)
  Managed,   // cudaMallocManaged: reachable from both sides
};

/// "cpu", "cuda", "maybe-cuda", ...
llvm::StringRef placementName(Placement P);

/// True for cuda and for a device chosen at run time that may be cuda.
inline bool isDeviceSide(Placement P) {
  return P == Placement::Cuda || P == Placement::MaybeCuda;
}

/// True for host memory the host may read without a copy.
inline bool isHostPlacement(Placement P) {
  return P == Placement::Cpu || P == Placement::PinnedCpu;
}

/// Least upper bound: equal placements stay, host vs device becomes
/// MaybeCuda, pinned vs pageable becomes PinnedCpu (host memory that may be
/// pinned: a copy from it is not known to be synchronous, and unknown is not
/// evidence), anything with Unknown is Unknown.
Placement joinPlacements(Placement A, Placement B);

/// An inferred placement and the expression that decided it.
struct PlacementFact {
  Placement Where = Placement::Unknown;
  /// The expression that fixed the placement (a factory call, a .to(), a
  /// cudaMalloc, ...), for notes; null when unknown or joined.
  const Stmt *Origin = nullptr;
  /// Why, in a few words: "created by torch::randn() without a device".
  std::string Reason;
};

class ProjectFacts;

class DeviceInference {
public:
  /// \p Facts, when given, adds the callers in other translation units of
  /// the program to each parameter's placement.
  explicit DeviceInference(ASTContext &Ctx, const ProjectFacts *Facts = nullptr)
      : Ctx(Ctx), Facts(Facts), Order(Ctx) {}

  /// Placement of the argument \p Arg passed for a parameter of type
  /// \p ParamType (a tensor, device, module or pointer).
  Placement argumentPlacement(const Expr *Arg, QualType ParamType);

  /// Placement of the tensor \p E evaluates to.
  PlacementFact tensorPlacement(const Expr *E);

  /// The device a device-valued expression names. std::nullopt when \p E
  /// names no device at all (TensorOptions without .device(), a dtype).
  std::optional<PlacementFact> deviceValue(const Expr *E);

  /// Placement of the memory the raw pointer \p E points to.
  PlacementFact pointerPlacement(const Expr *E);

  /// Placement of the parameters of the torch::nn module \p E names: a
  /// module object, a ModuleHolder (torch::nn::Linear) or a std::shared_ptr
  /// to a module. Modules are built on the host and Module::to() moves them
  /// in place, so `model->to(device)` is a definition of `model`. A module
  /// passed to a function outside LibTorch may be moved there: unknown.
  PlacementFact modulePlacement(const Expr *E);
  /// True if \p S runs only where a branch around it has tested a device to
  /// be the host (`if (device == torch::kCPU)`): the program's CPU path,
  /// where a device chosen at run time is the host.
  bool runsOnlyOnTheHost(const Stmt *S);

  ASTContext &context() { return Ctx; }

  /// What runs before what in this unit's functions (one CFG per body).
  ExecutionOrder &executionOrder() { return Order; }

  /// The calls of \p Function in the translation unit's user code.
  llvm::ArrayRef<const CallExpr *> callSitesOf(const FunctionDecl *Function);

  /// Placement of what the parameter \p Param holds on entry: the join of
  /// the arguments at every call site in user code, or unknown without any.
  PlacementFact parameterPlacement(const ParmVarDecl *Param);

  /// Placement of what \p Function returns, whatever its callers pass: the
  /// join of its known return values, evaluated in its own context.
  PlacementFact returnPlacement(const FunctionDecl *Function);

  /// The tensor, module and pointer fields this translation unit stores
  /// into, with the join of the known placements it stores.
  std::vector<std::pair<const FieldDecl *, Placement>> storedFieldPlacements();

private:
  enum class ValueKind { Tensor, Device, Pointer, Module, None };

  /// One write to a local variable.
  struct Definition {
    const Stmt *At;      // the statement performing the write
    const Expr *Value;   // the value written, or the allocating call
    bool RegistersPinned; // cudaHostRegister(p): same memory, now pinned
    /// v.push_back(t): adds to what the variable holds, replaces nothing.
    bool Accumulates = false;
  };
  using DefinitionList = llvm::SmallVector<Definition, 4>;

  std::optional<PlacementFact> evaluate(const Expr *E, ValueKind Kind);
  std::optional<PlacementFact> evaluateTensor(const Expr *E);
  /// A structured binding's part of the tuple, pair or struct it
  /// decomposes, read at \p Use.
  std::optional<PlacementFact> evaluateBinding(const BindingDecl *Binding,
                                               const DeclRefExpr *Use);
  /// When \p Call's tensor operands are on both the host and a device
  /// (0-dim host tensors aside), the placement of a device operand: the call
  /// throws on a GPU run, and once the host operand is moved (the fix the
  /// mismatch check asks for) its result lives there. \p Evaluated, when
  /// given, is an operand the caller has evaluated to \p EvaluatedPlacement.
  std::optional<PlacementFact>
  deviceSideOfMix(const CallExpr *Call, const Expr *Evaluated = nullptr,
                  const PlacementFact &EvaluatedPlacement = {});
  std::optional<PlacementFact> evaluateDevice(const Expr *E);
  std::optional<PlacementFact> evaluatePointer(const Expr *E);
  std::optional<PlacementFact> evaluateModule(const Expr *E);
  /// A pointer read from a struct field (`b.host`, `p->host`); see the
  /// definition for what is followed.
  std::optional<PlacementFact> evaluateFieldPointer(const MemberExpr *Use);
  /// Where the storage of the member \p Member (held by value: a scalar, an
  /// array) is, for the address \p Address of it or of an element.
  std::optional<PlacementFact> memberStorage(const MemberExpr *Member,
                                             const Expr *Address);
  std::optional<PlacementFact> resolveVariable(const VarDecl *Var,
                                               const Expr *Use,
                                               ValueKind Kind);
  /// resolveVariable for a local variable or parameter, not memoised.
  std::optional<PlacementFact> resolveLocal(const VarDecl *Var, const Expr *Use,
                                            ValueKind Kind);
  std::string localResolutionKey(const VarDecl *Var, const Expr *Use,
                                 ValueKind Kind) const;
  std::optional<PlacementFact> evaluateDefinition(const Definition &Def,
                                                  ValueKind Kind);
  /// The pinning of \p Var's memory by a cudaHostRegister before \p Use.
  std::optional<PlacementFact> registeredBefore(const VarDecl *Var,
                                                const Expr *Use);
  const DefinitionList &definitionsOf(const VarDecl *Var);
  void collectDefinitions(const FunctionDecl *Function);
  /// Evaluates a call to a function defined in this translation unit
  /// through its return statements, its parameters bound to the arguments;
  /// std::nullopt when its definition is not in this translation unit.
  std::optional<PlacementFact> evaluateUserCall(const CallExpr *Call,
                                                ValueKind Kind);
  std::optional<PlacementFact> evaluateParameter(const ParmVarDecl *Param,
                                                 ValueKind Kind);
  /// The join of the values user code stores into \p Field (writes of
  /// unknown placement add nothing), unknown without any.
  PlacementFact fieldPlacement(const FieldDecl *Field, ValueKind Kind);
  /// Where a module built by \p Ctor lives when the constructor moves the
  /// module itself (`this->to(device)`); none when it does not.
  std::optional<PlacementFact>
  movedByConstructor(const CXXConstructorDecl *Ctor);
  std::optional<PlacementFact> evaluateDeviceExpr(const Expr *E);
  /// Where the device value \p Use names is known to be from the branch it
  /// is read in: inside `if (d == torch::kCPU)` (or `d.is_cpu()`) the host,
  /// in its else-branch a GPU; the same for tests against torch::kCUDA.
  std::optional<PlacementFact> deviceFromEnclosingBranch(const Expr *Use);
  /// Whether \p If's condition tests a device value that \p IsTested
  /// accepts to be the host (true) or a GPU (false) when it holds.
  std::optional<bool>
  testsForHost(const IfStmt *If,
               llvm::function_ref<bool(const Expr *)> IsTested);
  /// Joins the placements of \p Sources evaluated as \p Kind outside any
  /// call frame, skipping the unknown ones.
  PlacementFact joinKnown(llvm::ArrayRef<const Expr *> Sources, ValueKind Kind,
                          llvm::StringRef Why);
  static ValueKind kindOfType(QualType T);

  /// What the user code of the translation unit does, collected in one pass
  /// on first use (LibTorch's and other system headers are skipped).
  struct UserCodeIndex {
    /// Calls by callee (canonical declaration).
    llvm::DenseMap<const FunctionDecl *,
                   llvm::SmallVector<const CallExpr *, 4>>
        CallSites;
    /// Constructions by constructor (canonical declaration): their
    /// arguments are the constructor's parameters.
    llvm::DenseMap<const FunctionDecl *,
                   llvm::SmallVector<const CXXConstructExpr *, 4>>
        ConstructionSites;
    /// Globals that user code writes: their initializer is not their only
    /// value.
    llvm::DenseSet<const VarDecl *> AssignedGlobals;
    /// Every value assigned to such a global (canonical declaration).
    llvm::DenseMap<const VarDecl *, llvm::SmallVector<const Expr *, 2>>
        GlobalWrites;
    /// Every value stored into a field: assignments, constructor
    /// initializers, default member initializers.
    llvm::DenseMap<const FieldDecl *, llvm::SmallVector<const Expr *, 2>>
        FieldWrites;
    /// Tensor members passed to register_buffer/register_parameter: they
    /// move with their module.
    llvm::DenseSet<const FieldDecl *> RegisteredFields;
    /// Pointer members copied to the same member of another object
    /// (`cudaMemcpy(dev->buf, host->buf, n, cudaMemcpyHostToDevice)`): the
    /// type serves as a host struct and as its device mirror, so where the
    /// member points depends on the object, not on the member.
    llvm::DenseSet<const FieldDecl *> MirroredFields;
    /// Module members moved in place through an object (`net.gen->to(d)`):
    /// the moves of each, with the variable holding the object (null when
    /// it is not a variable: `this`, a pointer's target).
    struct ModuleFieldMove {
      const CXXMemberCallExpr *Move;
      const VarDecl *Object;
    };
    llvm::DenseMap<const FieldDecl *, llvm::SmallVector<ModuleFieldMove, 2>>
        ModuleFieldMoves;
    /// The program defines a LibTorch dataset that is given or keeps a
    /// device: its examples may be on the device before a loader batches
    /// them.
    bool DatasetTakesDevice;
  };
  const UserCodeIndex &userCode();

  /// Parameter values of the calls being evaluated by evaluateUserCall,
  /// innermost last.
  struct CallFrame {
    const FunctionDecl *Function;
    llvm::DenseMap<const ParmVarDecl *, PlacementFact> Arguments;
  };
  llvm::SmallVector<CallFrame, 4> Frames;
  /// What a call of a function of the program returns, by callee, kind,
  /// frame depth and the placements of its arguments: the same helper
  /// called from many places (or from helpers called from many places) is
  /// evaluated once per distinct input, not once per path to it.
  llvm::StringMap<std::optional<PlacementFact>> UserCallResults;
  std::optional<UserCodeIndex> UserCode;
  llvm::DenseMap<const ParmVarDecl *, PlacementFact> ParameterCache;
  llvm::DenseMap<const FieldDecl *, PlacementFact> FieldCache;
  llvm::DenseSet<const FieldDecl *> FieldsInProgress;
  llvm::DenseSet<const ParmVarDecl *> ParametersInProgress;

  ASTContext &Ctx;
  const ProjectFacts *Facts;
  ExecutionOrder Order;
  llvm::DenseSet<const FunctionDecl *> ScannedFunctions;
  llvm::DenseMap<const VarDecl *, DefinitionList> Definitions;
  /// Definitions being evaluated: a loop-carried definition may depend on
  /// itself, which gives no information rather than recursing forever.
  llvm::DenseSet<const Stmt *> InProgress;
  /// Answers of resolveLocal by variable, use, kind and call context.
  llvm::StringMap<std::optional<PlacementFact>> LocalResolutions;
  /// Answers cut short so far (a cycle, recursion, the budget): an answer
  /// computed while this grows is partial and not memoised.
  unsigned Cuts = 0;

  /// Bounds the work of one question asked from outside (a public query):
  /// generated code such as a single-header image decoder chains pointer
  /// definitions through helpers branch after branch, and following every
  /// path is exponential in the chain. Past the budget a definition or call
  /// adds no information (unknown), the same answer as an unanalysable one.
  class QueryBudget;
  unsigned OpenQueries = 0;
  unsigned StepsLeft = 0;
  /// Takes one step of the current query's budget; false once it is spent.
  bool takeStep();
};

/// True if \p T is a torch::nn module, a ModuleHolder or a std::shared_ptr
/// to a module (through references and cv-qualifiers).
bool isModuleType(QualType T);

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_DEVICEINFERENCE_H
