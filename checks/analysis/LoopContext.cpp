//===--- LoopContext.cpp - how often a statement runs ---------------------===//

#include "analysis/LoopContext.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/ProjectFacts.h"
#include "analysis/TransferHazards.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"
#include <functional>

namespace clang::tidy::xfer {
namespace {

struct Guard {
  GuardKind Kind = GuardKind::None;
  std::optional<uint64_t> Period;
  std::string PeriodSpelling;
};

bool refersToVariable(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (isa<DeclRefExpr, MemberExpr>(E))
    return true;
  // batch_idx++ % N == 0 counts and tests in one go.
  if (const auto *Unary = dyn_cast<UnaryOperator>(E))
    return Unary->isIncrementDecrementOp() &&
           refersToVariable(Unary->getSubExpr());
  // (i + 1) and friends still count iterations.
  if (const auto *Bin = dyn_cast<BinaryOperator>(E))
    return Bin->isAdditiveOp() && (refersToVariable(Bin->getLHS()) ||
                                   refersToVariable(Bin->getRHS()));
  return false;
}

/// True if \p E names \p Field (`n`, `this->n`).
bool namesField(const Expr *E, const FieldDecl *Field) {
  const auto *Member = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
  return Member && Member->getMemberDecl() == Field;
}

/// True if \p Field is a setting of its object rather than a count: every
/// method of its class is defined here and none steps it (`++n`, `n += k`,
/// `n = n + 1`). `width % 8 == 0` tests a size, once for every call alike.
bool isUnsteppedField(const FieldDecl *Field) {
  const auto *Class = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!Class)
    return false;
  auto Steps = [&](const Expr &E) {
    if (const auto *Unary = dyn_cast<UnaryOperator>(&E))
      return Unary->isIncrementDecrementOp() &&
             namesField(Unary->getSubExpr(), Field);
    if (const auto *Compound = dyn_cast<CompoundAssignOperator>(&E))
      return namesField(Compound->getLHS(), Field);
    const auto *Assign = dyn_cast<BinaryOperator>(&E);
    return Assign && Assign->getOpcode() == BO_Assign &&
           namesField(Assign->getLHS(), Field) &&
           containsMatch<MemberExpr>(Assign->getRHS(),
                                     [&](const MemberExpr &Member) {
                                       return Member.getMemberDecl() == Field;
                                     });
  };
  for (const CXXMethodDecl *Method : Class->methods()) {
    if (Method->isImplicit() || Method->isPureVirtual() ||
        Method->isDeleted() || Method->isDefaulted())
      continue;
    const FunctionDecl *Definition = nullptr;
    if (!Method->hasBody(Definition))
      return false; // defined elsewhere: it may count
    if (containsMatch<Expr>(Definition->getBody(), Steps))
      return false;
  }
  return true;
}

/// The value of \p E when it reads a field that only its default member
/// initializer sets (`struct Options { int64_t log_interval = 1; };` in
/// this source file, never written): no other file can name a class a
/// source file defines, so every read sees that value.
std::optional<int64_t> unchangedFieldValue(const Expr *E, ASTContext &Ctx) {
  const auto *Read = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
  const auto *Field =
      Read ? dyn_cast<FieldDecl>(Read->getMemberDecl()) : nullptr;
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Field || !Field->getInClassInitializer() ||
      !SM.isInMainFile(SM.getExpansionLoc(Field->getLocation())))
    return std::nullopt;
  std::optional<int64_t> Value =
      evaluateInt(Field->getInClassInitializer(), Ctx);
  if (!Value)
    return std::nullopt;
  // Any mention but a read of the value may change it: an assignment, a
  // reference or address handed to an option parser, an aggregate
  // initializer, a constructor's initializer.
  const RecordDecl *Class = Field->getParent();
  bool MayChange = false;
  auto OnStmt = [&](const Stmt &S) {
    if (const auto *Mention = dyn_cast<MemberExpr>(&S);
        Mention && Mention->getMemberDecl() == Field) {
      const auto *Use =
          dyn_cast_or_null<ImplicitCastExpr>(parentStmt(Mention, Ctx));
      MayChange = !Use || Use->getCastKind() != CK_LValueToRValue;
    } else if (const auto *List = dyn_cast<InitListExpr>(&S)) {
      MayChange = List->getType()->getAsRecordDecl() == Class;
    }
    return MayChange ? WalkStep::Stop : WalkStep::Continue;
  };
  auto OnDecl = [&](const Decl &D) {
    if (const auto *Constructor = dyn_cast<CXXConstructorDecl>(&D))
      for (const CXXCtorInitializer *Init : Constructor->inits())
        MayChange |= Init->isWritten() && Init->getMember() == Field;
    return MayChange ? WalkStep::Stop : WalkStep::Continue;
  };
  WalkScope WithInstantiations;
  WithInstantiations.TemplateInstantiations = true;
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (SM.isInMainFile(SM.getExpansionLoc(D->getLocation())) &&
        !walkDecl(D, OnStmt, OnDecl, WithInstantiations))
      break;
  if (MayChange)
    return std::nullopt;
  return Value;
}

/// The period of `X % N`: a constant, or a setting that keeps its default.
/// The value of a local variable that its initializer sets and nothing
/// changes (`int checkpoint_every = 1;`, only ever read): every read sees it.
std::optional<int64_t> unchangedLocalValue(const Expr *E, ASTContext &Ctx) {
  const auto *Read = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *Var = Read ? dyn_cast<VarDecl>(Read->getDecl()) : nullptr;
  if (!Var || !Var->isLocalVarDecl() || Var->isStaticLocal() || !Var->getInit())
    return std::nullopt;
  std::optional<int64_t> Value = evaluateInt(Var->getInit(), Ctx);
  const auto *Function = dyn_cast<FunctionDecl>(Var->getDeclContext());
  if (!Value || !Function || !Function->getBody())
    return std::nullopt;
  // Any mention but a read of the value may change it.
  const bool MayChange = containsMatch<DeclRefExpr>(
      Function->getBody(), [&](const DeclRefExpr &Mention) {
        if (Mention.getDecl() != Var)
          return false;
        const auto *Use =
            dyn_cast_or_null<ImplicitCastExpr>(parentStmt(&Mention, Ctx));
        return !Use || Use->getCastKind() != CK_LValueToRValue;
      });
  return MayChange ? std::nullopt : Value;
}

std::optional<int64_t> periodValue(const Expr *N, ASTContext &Ctx) {
  if (std::optional<int64_t> Value = evaluateInt(N, Ctx))
    return Value;
  if (std::optional<int64_t> Value = unchangedLocalValue(N, Ctx))
    return Value;
  return unchangedFieldValue(N, Ctx);
}

/// `X % N` with X a counter: the period N.
bool isPerIterationValue(const Expr *E, const Expr *Cond,
                         const ASTContext &Ctx);

std::optional<Guard> moduloGuard(const Expr *E, const ASTContext &Ctx) {
  const auto *Rem = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (!Rem || Rem->getOpcode() != BO_Rem || !refersToVariable(Rem->getLHS()))
    return std::nullopt;
  // `img.rows % 4 != 0` of this iteration's image tests its data, not how
  // many iterations have run.
  const Expr *Dividend = Rem->getLHS()->IgnoreParenImpCasts();
  while (const auto *Member = dyn_cast<MemberExpr>(Dividend))
    Dividend = Member->getBase()->IgnoreParenImpCasts();
  if (isPerIterationValue(Dividend, E, Ctx))
    return std::nullopt;
  if (const auto *Member =
          dyn_cast<MemberExpr>(Rem->getLHS()->IgnoreParenImpCasts()))
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
        Field && isUnsteppedField(Field))
      return std::nullopt;
  Guard G;
  G.Kind = GuardKind::EveryN;
  if (std::optional<int64_t> N =
          periodValue(Rem->getRHS(), const_cast<ASTContext &>(Ctx))) {
    if (*N <= 1)
      return std::nullopt; // i % 1 == 0 holds on every iteration
    G.Period = static_cast<uint64_t>(*N);
  } else {
    G.PeriodSpelling =
        Lexer::getSourceText(CharSourceRange::getTokenRange(
                                 Rem->getRHS()->getSourceRange()),
                             Ctx.getSourceManager(), Ctx.getLangOpts())
            .str();
  }
  return G;
}

/// Rarer guards win when two apply: Once < EveryN(large) < EveryN(small).
Guard rarer(const Guard &A, const Guard &B) {
  auto Rank = [](const Guard &G) -> double {
    switch (G.Kind) {
    case GuardKind::None:
      return 1.0;
    case GuardKind::EveryN:
      return G.Period ? 1.0 / *G.Period : 0.0;
    case GuardKind::Once:
      return -1.0;
    case GuardKind::Logging:
      return 0.0;
    }
    return 1.0;
  };
  return Rank(A) <= Rank(B) ? A : B;
}

/// True for a local that holds a value computed anew on every iteration or
/// call (`int best = argmax(...)`) rather than a count of them: one declared
/// in a loop's body, or any local when \p Cond sits in no loop of its
/// function (the function's locals start afresh on every call).
bool isPerIterationValue(const Expr *E, const Expr *Cond,
                         const ASTContext &Ctx) {
  const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !Var->isLocalVarDecl() || Var->isStaticLocal())
    return false;
  auto &Mutable = const_cast<ASTContext &>(Ctx);
  auto EnclosingLoop = [&](const Stmt *S) -> std::pair<const Stmt *, bool> {
    for (const Stmt *Child = S, *P = parentStmt(S, Mutable); P;
         Child = P, P = parentStmt(P, Mutable))
      if (isLoopStmt(P))
        return {P, Child == loopBody(P)};
    return {nullptr, false};
  };
  const DeclStmt *Declaration = nullptr;
  for (const DynTypedNode &Parent : Mutable.getParents(*Var))
    if ((Declaration = Parent.get<DeclStmt>()))
      break;
  if (!Declaration)
    return false;
  auto [DeclarationLoop, InBody] = EnclosingLoop(Declaration);
  if (DeclarationLoop)
    return InBody;
  return !EnclosingLoop(Cond).first;
}

/// True if \p Side reads a scalar local or parameter, set before the loops
/// around \p Cond, that no iteration of them changes (`rank == 0` with the
/// rank read once before the frame loop): a setting of the run, which holds
/// on every iteration or on none. A use that may write it (an assignment,
/// `++`, `&rank` handed on) is a change (isLoopInvariant).
bool readsUnchangedLocal(const Expr *Side, const Expr *Cond, ASTContext &Ctx) {
  const auto *Ref = dyn_cast<DeclRefExpr>(Side->IgnoreParenImpCasts());
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !(Var->isLocalVarDecl() || isa<ParmVarDecl>(Var)) ||
      Var->isStaticLocal() || !Var->getType()->isScalarType() ||
      Var->getType()->isPointerType())
    return false;
  const Stmt *Outermost = nullptr;
  for (const Stmt *P = parentStmt(Cond, Ctx); P; P = parentStmt(P, Ctx))
    if (isLoopStmt(P))
      Outermost = P;
  if (!Outermost)
    return false;
  // Declared in the loop: a value of the iteration, not a setting.
  for (const DynTypedNode &Parent : Ctx.getParents(*Var))
    if (const auto *Declaration = Parent.get<DeclStmt>();
        Declaration && isWithin(Declaration, Outermost, Ctx))
      return false;
  return isLoopInvariant(Var, Outermost, Ctx);
}

/// True if \p Side reads a field of an object other than `this` that the
/// function holding \p Side never writes (`sim.method == 1`,
/// `cfg[0].mode == 2`): a setting of the run, not a counter.
bool readsUnchangedSetting(const Expr *Side, ASTContext &Ctx) {
  const auto *Field = dyn_cast<MemberExpr>(Side->IgnoreParenImpCasts());
  if (!Field || !isa<FieldDecl>(Field->getMemberDecl()) ||
      isa<CXXThisExpr>(Field->getBase()->IgnoreParenImpCasts()))
    return false;
  const FunctionDecl *Function = enclosingFunction(Side, Ctx);
  if (!Function || !Function->hasBody())
    return false;
  const ValueDecl *Member = Field->getMemberDecl();
  auto IsField = [&](const Expr *E) {
    const auto *Written = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
    return Written && Written->getMemberDecl() == Member;
  };
  return !containsMatch<Stmt>(Function->getBody(), [&](const Stmt &S) {
    if (std::optional<AssignmentParts> Assign = assignmentParts(S))
      return IsField(Assign->Target);
    const auto *Step = dyn_cast<UnaryOperator>(&S);
    return Step && Step->isIncrementDecrementOp() &&
           IsField(Step->getSubExpr());
  });
}

/// The guard a condition imposes on the branch taken when it is
/// \p WhenTrue.
Guard analyzeCondition(const Expr *Cond, bool WhenTrue, ASTContext &Ctx) {
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *Not = dyn_cast<UnaryOperator>(Cond);
      Not && Not->getOpcode() == UO_LNot) {
    // !(i % N): true once every N iterations.
    if (WhenTrue)
      if (std::optional<Guard> G = moduloGuard(Not->getSubExpr(), Ctx))
        return *G;
    return analyzeCondition(Not->getSubExpr(), !WhenTrue, Ctx);
  }
  const auto *Bin = dyn_cast<BinaryOperator>(Cond);
  if (!Bin)
    return {};
  if (Bin->getOpcode() == BO_LAnd && WhenTrue)
    return rarer(analyzeCondition(Bin->getLHS(), true, Ctx),
                 analyzeCondition(Bin->getRHS(), true, Ctx));
  if (Bin->getOpcode() == BO_LOr && !WhenTrue)
    return rarer(analyzeCondition(Bin->getLHS(), false, Ctx),
                 analyzeCondition(Bin->getRHS(), false, Ctx));
  // `step % eval_every == 0 || last_step`: as often as the more frequent
  // side; a bare flag beside a period marks a boundary (the last step).
  if (Bin->getOpcode() == BO_LOr && WhenTrue) {
    auto SideGuard = [&](const Expr *Side) {
      const auto *Flag = dyn_cast<DeclRefExpr>(Side->IgnoreParenImpCasts());
      if (Flag && Flag->getType()->isBooleanType())
        return Guard{GuardKind::Once, std::nullopt, ""};
      return analyzeCondition(Side, true, Ctx);
    };
    Guard Left = SideGuard(Bin->getLHS()), Right = SideGuard(Bin->getRHS());
    if (Left.Kind == GuardKind::None || Right.Kind == GuardKind::None)
      return {};
    Guard Rarer = rarer(Left, Right);
    bool LeftIsRarer = Rarer.Kind == Left.Kind && Rarer.Period == Left.Period &&
                       Rarer.PeriodSpelling == Left.PeriodSpelling;
    return LeftIsRarer ? Right : Left;
  }
  bool IsEquality = Bin->getOpcode() == BO_EQ;
  bool IsInequality = Bin->getOpcode() == BO_NE;
  if ((IsEquality && WhenTrue) || (IsInequality && !WhenTrue)) {
    for (const Expr *Side : {Bin->getLHS(), Bin->getRHS()})
      if (std::optional<Guard> G = moduloGuard(Side, Ctx))
        return *G;
    // i == 0, i == iters - 1, step + 1 == total: one iteration. Both sides
    // are counters or constants: `data.size() != expected` is a check of
    // the input, not of the iteration.
    auto CounterOrConstant = [&](const Expr *Side) {
      return refersToVariable(Side) || evaluateInt(Side, Ctx).has_value();
    };
    // `rank == 0` with the rank read before the loop: a setting too.
    auto HoldsAcrossIterations = [&](const Expr *Side) {
      return evaluateInt(Side, Ctx).has_value() ||
             readsUnchangedLocal(Side, Cond, Ctx);
    };
    // `best == 0` with `best` computed in the iteration picks one case of
    // several on every iteration; `sim.method == 1` tests a setting, which
    // holds on every iteration or on none.
    if ((refersToVariable(Bin->getLHS()) || refersToVariable(Bin->getRHS())) &&
        CounterOrConstant(Bin->getLHS()) && CounterOrConstant(Bin->getRHS()) &&
        !isPerIterationValue(Bin->getLHS(), Cond, Ctx) &&
        !isPerIterationValue(Bin->getRHS(), Cond, Ctx) &&
        !readsUnchangedSetting(Bin->getLHS(), Ctx) &&
        !readsUnchangedSetting(Bin->getRHS(), Ctx) &&
        !(HoldsAcrossIterations(Bin->getLHS()) &&
          HoldsAcrossIterations(Bin->getRHS())))
      return Guard{GuardKind::Once, std::nullopt, ""};
  }
  return {};
}

/// The variable a for loop counts with: the one its increment steps
/// (`++i`, `i += 2`).
const VarDecl *loopCounter(const Stmt *Loop) {
  const auto *For = dyn_cast<ForStmt>(Loop);
  if (!For || !For->getInc())
    return nullptr;
  const Expr *Inc = For->getInc()->IgnoreParenImpCasts();
  const Expr *Operand = nullptr;
  if (const auto *Unary = dyn_cast<UnaryOperator>(Inc))
    Operand = Unary->getSubExpr();
  else if (const auto *Compound = dyn_cast<CompoundAssignOperator>(Inc))
    Operand = Compound->getLHS();
  const auto *Ref =
      Operand ? dyn_cast<DeclRefExpr>(Operand->IgnoreParenImpCasts()) : nullptr;
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

bool refersTo(const Stmt *S, const VarDecl *Var);

/// True for `nullptr`, `NULL`, `false` and `0`.
bool isNullOrFalse(const Expr *E) {
  E = E->IgnoreParenCasts();
  if (isa<CXXNullPtrLiteralExpr, GNUNullExpr>(E))
    return true;
  if (const auto *Bool = dyn_cast<CXXBoolLiteralExpr>(E))
    return !Bool->getValue();
  if (const auto *Integer = dyn_cast<IntegerLiteral>(E))
    return Integer->getValue() == 0;
  return false;
}

/// The variable or member \p E names: `Flag`, `this->Flag`, `Object.Flag`.
const ValueDecl *namedDeclaration(const Expr *E) {
  E = E->IgnoreParenCasts();
  // An element stands for its array (`slots[i]` for `slots`, also of a
  // std::vector).
  while (true) {
    if (const auto *Element = dyn_cast<ArraySubscriptExpr>(E))
      E = Element->getBase()->IgnoreParenCasts();
    else if (const auto *Element = dyn_cast<CXXOperatorCallExpr>(E);
             Element && Element->getOperator() == OO_Subscript &&
             Element->getNumArgs() == 2)
      E = Element->getArg(0)->IgnoreParenCasts();
    else
      break;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return Ref->getDecl();
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return Member->getMemberDecl();
  return nullptr;
}

/// The variable or member a first-time test reads: `!Flag`,
/// `Flag == false`, `Pointer == nullptr`.
const ValueDecl *firstTimeSubject(const Expr *Cond) {
  Cond = Cond->IgnoreParenImpCasts();
  const Expr *Subject = nullptr;
  if (const auto *Not = dyn_cast<UnaryOperator>(Cond);
      Not && Not->getOpcode() == UO_LNot)
    Subject = Not->getSubExpr();
  else if (const auto *Bin = dyn_cast<BinaryOperator>(Cond);
           Bin && Bin->getOpcode() == BO_EQ)
    for (auto [Side, Other] : {std::pair(Bin->getLHS(), Bin->getRHS()),
                               std::pair(Bin->getRHS(), Bin->getLHS())})
      if (isNullOrFalse(Other))
        Subject = Side;
  return Subject ? namedDeclaration(Subject) : nullptr;
}

/// True if \p Then sets \p Subject in one of its own statements: assigns
/// it, or passes its address to a call (`cudaMalloc(&Buffer, Bytes)`).
bool assignsDirectly(const Stmt *Then, const ValueDecl *Subject) {
  auto IsSubject = [&](const Expr *E) {
    return namedDeclaration(E) == Subject;
  };
  auto Assigns = [&](const Stmt *S) {
    if (const auto *Assign = dyn_cast<BinaryOperator>(S))
      return Assign->getOpcode() == BO_Assign && IsSubject(Assign->getLHS());
    if (const auto *Call = dyn_cast<CallExpr>(S))
      return llvm::any_of(Call->arguments(), [&](const Expr *Arg) {
        const auto *AddressOf =
            dyn_cast<UnaryOperator>(Arg->IgnoreParenCasts());
        return AddressOf && AddressOf->getOpcode() == UO_AddrOf &&
               IsSubject(AddressOf->getSubExpr());
      });
    return false;
  };
  if (const auto *Block = dyn_cast<CompoundStmt>(Then))
    return llvm::any_of(Block->body(), Assigns);
  return Assigns(Then);
}

/// The object whose member \p E names (`output` in `output.allocated`).
const ValueDecl *memberOwner(const Expr *E) {
  const auto *Member = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
  return Member ? namedDeclaration(Member->getBase()) : nullptr;
}

/// True if \p E is a member of the object a method runs on (`allocated_`,
/// `this->rows`).
bool isOwnMember(const Expr *E) {
  const auto *Member = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
  return Member && isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts());
}

/// True if \p Then calls a method on \p Owner (on `this` when \p Owner is
/// null) whose body sets the member \p Subject (`output.allocate(rows,
/// cols)`, which sets `allocated`; `allocateResources()`, which sets
/// `m_resourcesAllocated`).
bool setsThroughMethod(const Stmt *Then, const ValueDecl *Owner,
                       const ValueDecl *Subject) {
  auto Sets = [&](const Stmt *S) {
    if (const auto *E = dyn_cast<Expr>(S))
      S = E->IgnoreImplicit();
    const auto *Call = dyn_cast<CXXMemberCallExpr>(S);
    const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
    const FunctionDecl *Definition = nullptr;
    if (!Method || !Method->hasBody(Definition))
      return false;
    const Expr *Object = Call->getImplicitObjectArgument();
    const bool OnOwner =
        Owner ? namedDeclaration(Object) == Owner
              : Object && isa<CXXThisExpr>(Object->IgnoreParenImpCasts());
    return OnOwner && assignsDirectly(Definition->getBody(), Subject);
  };
  if (const auto *Block = dyn_cast<CompoundStmt>(Then))
    return llvm::any_of(Block->body(), Sets);
  return Sets(Then);
}

/// True for lazy initialization, `if (!ready) { ...; ready = true; }`: the
/// branch sets what its condition tests, so it runs the first time only.
/// So does a buffer made again only when its shape changes: `if
/// (!out.allocated || out.rows != in.rows) out.allocate(in.rows, n);`, or
/// `if (cols != img.cols) { cols = img.cols; cudaMalloc(...); }`.
bool isFirstTimeBranch(const IfStmt *If) {
  if (If->getElse())
    return false;
  llvm::SmallVector<const Expr *, 4> Terms;
  std::function<void(const Expr *)> Flatten = [&](const Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Or = dyn_cast<BinaryOperator>(E);
        Or && Or->getOpcode() == BO_LOr) {
      Flatten(Or->getLHS());
      Flatten(Or->getRHS());
      return;
    }
    Terms.push_back(E);
  };
  Flatten(If->getCond());
  // A buffer grown when it is too small, `if (size < needed) { cudaFree(p);
  // size = needed; cudaMalloc(&p, size); }`: the branch raises what it
  // tests, so it runs while the need grows, not on every call. So does a
  // schedule of output points, `if (step >= next_log) { ...; next_log +=
  // interval; }` (also advanced in a loop of the branch).
  if (const auto *Compare = dyn_cast<BinaryOperator>(Terms.front());
      Terms.size() == 1 && Compare &&
      (Compare->getOpcode() == BO_LT || Compare->getOpcode() == BO_GT ||
       Compare->getOpcode() == BO_LE || Compare->getOpcode() == BO_GE)) {
    const Expr *Capacity =
        Compare->getOpcode() == BO_LT || Compare->getOpcode() == BO_LE
            ? Compare->getLHS()
            : Compare->getRHS();
    if (const ValueDecl *Size = namedDeclaration(Capacity);
        Size && (assignsDirectly(If->getThen(), Size) ||
                 containsMatch<Stmt>(If->getThen(), [&](const Stmt &S) {
                   const auto *Step = dyn_cast<UnaryOperator>(&S);
                   if (Step && Step->isIncrementOp())
                     return namedDeclaration(Step->getSubExpr()) == Size;
                   const auto *Assign = dyn_cast<BinaryOperator>(&S);
                   return Assign && Assign->isAssignmentOp() &&
                          namedDeclaration(Assign->getLHS()) == Size;
                 })))
      return true;
  }
  // Buffers made again when the input's shape changes, `if (cols != img.cols
  // || rows != img.rows) { free(); cols = img.cols; rows = img.rows;
  // allocate(); }`: the branch records each size it tests, so it runs when
  // the shape changes, not on every call.
  if (llvm::all_of(Terms, [&](const Expr *Term) {
        const auto *Differs = dyn_cast<BinaryOperator>(Term);
        if (!Differs || Differs->getOpcode() != BO_NE)
          return false;
        return llvm::any_of(
            std::initializer_list<const Expr *>{Differs->getLHS(),
                                                Differs->getRHS()},
            [&](const Expr *Side) {
              const ValueDecl *Recorded = namedDeclaration(Side);
              return Recorded && !isa<ParmVarDecl>(Recorded) &&
                     assignsDirectly(If->getThen(), Recorded);
            });
      }))
    return true;
  const Expr *FirstTime = nullptr;
  const ValueDecl *Subject = nullptr;
  for (const Expr *Term : Terms)
    if ((Subject = firstTimeSubject(Term))) {
      FirstTime = Term;
      break;
    }
  if (!Subject)
    return false;
  if (Terms.size() == 1 && assignsDirectly(If->getThen(), Subject))
    return true;
  // The state lives in an object the branch remakes through a method; the
  // other tests compare that object's members (its shape).
  const Expr *Tested = FirstTime;
  if (const auto *Not = dyn_cast<UnaryOperator>(FirstTime))
    Tested = Not->getSubExpr();
  else if (const auto *Bin = dyn_cast<BinaryOperator>(FirstTime))
    Tested = isNullOrFalse(Bin->getRHS()) ? Bin->getLHS() : Bin->getRHS();
  const ValueDecl *Owner = memberOwner(Tested);
  // Or the object the method runs on, remade through another of its
  // methods (`if (!m_allocated || in.cols != m_width) allocate(...)`).
  const bool OwnState = !Owner && isOwnMember(Tested);
  if (!Owner && !OwnState)
    return false;
  auto OfOwner = [&](const Expr *Side) {
    return OwnState ? isOwnMember(Side) : memberOwner(Side) == Owner;
  };
  for (const Expr *Term : Terms) {
    if (Term == FirstTime)
      continue;
    const auto *Compare = dyn_cast<BinaryOperator>(Term);
    if (!Compare || !Compare->isComparisonOp() ||
        (!OfOwner(Compare->getLHS()) && !OfOwner(Compare->getRHS())))
      return false;
  }
  return setsThroughMethod(If->getThen(), Owner, Subject) ||
         assignsDirectly(If->getThen(), Subject);
}

/// True if a break or return follows \p Child unconditionally in the
/// compound statement \p Block.
bool isFollowedByLoopExit(const Stmt *Child, const CompoundStmt *Block) {
  bool Seen = false;
  for (const Stmt *S : Block->body()) {
    if (S == Child) {
      Seen = true;
      continue;
    }
    if (Seen && isa<BreakStmt, ReturnStmt>(S))
      return true;
  }
  return false;
}

/// True if a statement after \p Child in \p Block ends the program
/// (`exit(EXIT_SUCCESS)`, `abort()`) and nothing between them can jump
/// past it (an early `return` on success): what runs before it runs once.
bool isFollowedByProgramExit(const Stmt *Child, const CompoundStmt *Block) {
  auto NoReturn = [](const Stmt *S) {
    if (const auto *E = dyn_cast<Expr>(S))
      S = E->IgnoreImplicit();
    const auto *Call = dyn_cast<CallExpr>(S);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    return Callee && Callee->isNoReturn();
  };
  bool Seen = false;
  for (const Stmt *S : Block->body()) {
    if (S == Child) {
      // An argument of the call that ends the program (a failed check's
      // message) is evaluated on the way out.
      if (NoReturn(S))
        return true;
      Seen = true;
      continue;
    }
    if (!Seen)
      continue;
    if (NoReturn(S))
      return true;
    if (containsMatch<Stmt>(S, [](const Stmt &Inner) {
          return isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt>(Inner);
        }))
      return false;
  }
  return false;
}

/// The object or variable a flush guard tests: `pending.size()` gives
/// `pending`, `count` gives `count`.
const ValueDecl *flushSubject(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *Increment = dyn_cast<UnaryOperator>(E);
      Increment && Increment->isIncrementOp())
    E = Increment->getSubExpr()->IgnoreParenImpCasts(); // ++count >= N
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    const FunctionDecl *Callee = Member->getDirectCallee();
    if (!Callee || !Callee->getIdentifier() || Callee->getName() != "size")
      return nullptr;
    E = Member->getImplicitObjectArgument()->IgnoreParenImpCasts();
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  return Ref ? Ref->getDecl() : nullptr;
}

/// The accumulate-and-flush pattern, which batches transfers:
///   if (pending.size() == 100) { ...; pending.clear(); }
///   if (count >= 100) { ...; count = 0; }
/// The guarded block runs once every N iterations when it resets what the
/// condition tests.
std::optional<uint64_t> accumulateAndFlushPeriod(const IfStmt *If,
                                                 const ASTContext &Ctx) {
  const auto *Cond =
      dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
  if (!Cond || (Cond->getOpcode() != BO_EQ && Cond->getOpcode() != BO_GE))
    return std::nullopt;
  const ValueDecl *Subject = flushSubject(Cond->getLHS());
  std::optional<int64_t> Period = evaluateInt(Cond->getRHS(), Ctx);
  if (!Subject || !Period || *Period < 2)
    return std::nullopt;
  // Does the guarded block reset the subject?
  auto IsSubject = [&](const Expr *E) {
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return Ref && Ref->getDecl() == Subject;
  };
  bool Resets = containsMatch<Stmt>(If->getThen(), [&](const Stmt &S) {
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(&S)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      return Callee && Callee->getIdentifier() &&
             Callee->getName() == "clear" &&
             IsSubject(Call->getImplicitObjectArgument());
    }
    const auto *Assign = dyn_cast<BinaryOperator>(&S);
    return Assign && Assign->getOpcode() == BO_Assign &&
           IsSubject(Assign->getLHS());
  });
  if (!Resets)
    return std::nullopt;
  return static_cast<uint64_t>(*Period);
}

/// True for a call that writes output: the printf family, a stream
/// insertion into a std::ostream (cout, cerr, a file), or a function whose
/// name says it logs or prints.
bool writesOutput(const CallExpr *Call) {
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call)) {
    if (Operator->getOperator() != OO_LessLess || Operator->getNumArgs() != 2)
      return false;
    // std::cout, a std::ofstream: classes derived from basic_ostream.
    const CXXRecordDecl *Stream =
        Operator->getArg(0)->getType().getNonReferenceType()
            ->getAsCXXRecordDecl();
    while (Stream) {
      if (Stream->getIdentifier() && Stream->getName() == "basic_ostream")
        return true;
      const CXXRecordDecl *Base = nullptr;
      if (Stream->hasDefinition() && Stream->getNumBases())
        Base = Stream->bases_begin()->getType()->getAsCXXRecordDecl();
      Stream = Base;
    }
    return false;
  }
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->getIdentifier())
    return false;
  llvm::StringRef Name = Callee->getName();
  if (llvm::StringSwitch<bool>(Name)
          .Cases("printf", "fprintf", "puts", "fputs", "fwrite", true)
          .Default(false))
    return true;
  // Project and logging-library functions: print_stats(), logger.info(),
  // spdlog::info(). Library math (torch::log, std::log1p) is not output.
  llvm::StringRef Namespace = outermostNamespace(Callee);
  if (Namespace == "spdlog")
    return true;
  if (Namespace == "std" || isInLibTorch(Callee))
    return false;
  std::string Lower = Name.lower();
  llvm::StringRef LowerName(Lower);
  if (LowerName.contains("print") ||
      (LowerName.starts_with("log") && !LowerName.starts_with("logit") &&
       !LowerName.starts_with("log_softmax")))
    return true;
  const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
  return Method && Method->getParent()->getIdentifier() &&
         Method->getParent()->getName().lower().find("log") !=
             std::string::npos;
}

bool skipsRestOfIteration(const Stmt *S);

/// True if \p Branch writes output (see writesOutput). Output on an error
/// path that leaves the iteration (`if (!e.empty()) { log << e; break; }`)
/// does not count: a branch that runs a filter and reports its failure is
/// not a logging branch.
bool branchLogs(const Stmt *Branch) {
  bool Logs = false;
  walkStmt(Branch, [&](const Stmt &S) {
    if (isa<LambdaExpr>(S))
      return WalkStep::SkipChildren;
    if (const auto *ErrorPath = dyn_cast<IfStmt>(&S);
        ErrorPath && &S != Branch && !ErrorPath->getElse() &&
        skipsRestOfIteration(ErrorPath->getThen()))
      return WalkStep::SkipChildren;
    const auto *Call = dyn_cast<CallExpr>(&S);
    Logs = Call && writesOutput(Call);
    return Logs ? WalkStep::Stop : WalkStep::Continue;
  });
  return Logs;
}

/// `if (print) { ... printf(...); }`: a branch that logs, under a condition
/// that is not a comparison (`if (i > 0)` holds on most iterations).
bool isLoggingBranch(const IfStmt *If, const Stmt *Branch) {
  if (Branch != If->getThen() || !branchLogs(Branch))
    return false;
  const auto *Cond =
      dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
  return !Cond || !Cond->isRelationalOp();
}

/// True if \p S always leaves the rest of the iteration: continue, break,
/// return, or a block ending in one.
bool skipsRestOfIteration(const Stmt *S) {
  if (const auto *Block = dyn_cast_or_null<CompoundStmt>(S))
    return !Block->body_empty() && skipsRestOfIteration(Block->body_back());
  return isa_and_nonnull<ContinueStmt, BreakStmt, ReturnStmt>(S);
}

/// `if (cond) continue;` before \p Child in \p Block: \p Child runs only
/// when cond is false — `if (i % N != 0) continue;` is the every-N guard.
Guard guardOfEarlierSkips(const Stmt *Child, const CompoundStmt *Block,
                          ASTContext &Ctx) {
  Guard Strongest;
  for (const Stmt *S : Block->body()) {
    if (S == Child)
      break;
    const auto *If = dyn_cast<IfStmt>(S);
    if (If && !If->getElse() && skipsRestOfIteration(If->getThen()))
      Strongest = rarer(Strongest, analyzeCondition(If->getCond(),
                                                    /*WhenTrue=*/false, Ctx));
  }
  return Strongest;
}

bool isAlgorithmName(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("for_each", "for_each_n", "transform", "generate", "generate_n",
             true)
      .Cases("count_if", "find_if", "all_of", "any_of", "none_of", true)
      .Cases("accumulate", "reduce", "transform_reduce", "remove_if", true)
      .Default(false);
}

/// The std:: algorithm call that receives \p Lambda as an argument.
const CallExpr *algorithmTakingLambda(const LambdaExpr *Lambda,
                                      ASTContext &Ctx) {
  const Stmt *Child = Lambda;
  for (const Stmt *P = parentStmt(Lambda, Ctx); P;
       Child = P, P = parentStmt(P, Ctx)) {
    if (isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
            CXXConstructExpr, ExprWithCleanups>(P))
      continue;
    const auto *Call = dyn_cast<CallExpr>(P);
    if (!Call)
      return nullptr;
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getIdentifier() || !Callee->isInStdNamespace() ||
        !isAlgorithmName(Callee->getName()))
      return nullptr;
    return Call;
  }
  return nullptr;
}

/// Like parentStmt, but a lambda body leads to its LambdaExpr (the parent
/// map files the body under the lambda's call operator).
const Stmt *parentStmtOrLambda(const Stmt *S, ASTContext &Ctx) {
  if (const Stmt *P = parentStmt(S, Ctx))
    return P;
  DynTypedNodeList Parents = Ctx.getParents(*S);
  for (int Depth = 0; !Parents.empty() && Depth < 4; ++Depth) {
    if (const auto *Lambda = Parents[0].get<LambdaExpr>())
      return Lambda;
    const auto *Method = Parents[0].get<CXXMethodDecl>();
    const auto *Record = Parents[0].get<CXXRecordDecl>();
    if (Method && Method->getParent()->isLambda())
      Parents = Ctx.getParents(*Method);
    else if (Record && Record->isLambda())
      Parents = Ctx.getParents(*Record);
    else
      return nullptr;
  }
  return nullptr;
}

} // namespace

bool isNeverRepeated(const Stmt *S, const ASTContext &Ctx) {
  if (std::optional<uint64_t> Trips = constantTripCount(S, Ctx))
    return *Trips <= 1;
  const auto *Do = dyn_cast<DoStmt>(S);
  return Do && evaluateCondition(Do->getCond(), Ctx) == false;
}

namespace {

const CXXMethodDecl *methodCalledOnEachElement(const Stmt *Loop);

/// True for a class whose objects can be the parts of a model or pipeline:
/// one of the program's own, or a LibTorch module.
bool isModelPart(const CXXRecordDecl *Class) {
  const SourceManager &SM = Class->getASTContext().getSourceManager();
  return !SM.isInSystemHeader(SM.getExpansionLoc(Class->getLocation())) ||
         isModuleType(QualType(Class->getTypeForDecl(), 0));
}

/// True if \p Loop walks the parts of a model or pipeline: each iteration
/// calls a method of the next element of a container (`for (auto *Layer :
/// layers) x = Layer->forward(x);`, `for (i = layers.size() - 1; i >= 0;
/// --i) layers[i]->backward(g);`). Its trips are the parts, not steps.
bool walksContainerElements(const Stmt *Loop) {
  return methodCalledOnEachElement(Loop) != nullptr;
}

/// True if \p Loop is a range-for over a model's or an optimizer's
/// parameters (`model->parameters()`, `group.params()`,
/// `optimizer.param_groups()`): per-parameter work of one step (clipping,
/// an update), whose trips are tensors, not steps.
bool walksParameters(const Stmt *Loop) {
  const auto *Range = dyn_cast<CXXForRangeStmt>(Loop);
  return Range && Range->getRangeInit() &&
         containsMatch<CallExpr>(
             Range->getRangeInit(), [](const CallExpr &Call) {
               const FunctionDecl *Callee = Call.getDirectCallee();
               return Callee && Callee->getIdentifier() &&
                      llvm::is_contained({"parameters", "named_parameters",
                                          "params", "param_groups"},
                                         Callee->getName());
             });
}

/// True if \p Loop walks the stages of a model or pipeline of the program's
/// own polymorphic classes (`for (auto &Layer : Layers)
/// Layer->forward_prop(X)`): each of its trips is part of the same step,
/// so it sets no frequency of its own.
bool walksModelParts(const Stmt *Loop, const ASTContext &Ctx) {
  const CXXMethodDecl *Method = methodCalledOnEachElement(Loop);
  const SourceManager &SM = Ctx.getSourceManager();
  return Method && Method->getParent()->isPolymorphic() &&
         !SM.isInSystemHeader(SM.getExpansionLoc(Method->getLocation()));
}

/// The method \p Loop calls on the element of each trip, when it walks a
/// container's elements (see walksContainerElements).
const CXXMethodDecl *methodCalledOnEachElement(const Stmt *Loop) {
  const Stmt *Body = nullptr;
  // What an element is: the range-for's variable, or the container the
  // loop's bounds take the size of.
  const VarDecl *Element = nullptr;
  const ValueDecl *Container = nullptr;
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Loop)) {
    Body = Range->getBody();
    Element = Range->getLoopVariable();
  } else if (const auto *For = dyn_cast<ForStmt>(Loop)) {
    Body = For->getBody();
    auto FindSize = [&](const Stmt *S) {
      if (!S)
        return;
      walkStmt(S, [&](const Stmt &Node) {
        if (const auto *Call = dyn_cast<CXXMemberCallExpr>(&Node))
          if (const CXXMethodDecl *Method = Call->getMethodDecl();
              Method && Method->getIdentifier() && Method->getName() == "size")
            if (const ValueDecl *D =
                    namedDeclaration(Call->getImplicitObjectArgument())) {
              Container = D;
              return WalkStep::Stop;
            }
        return WalkStep::Continue;
      });
    };
    FindSize(For->getCond());
    if (!Container)
      FindSize(For->getInit());
    // `for (auto It = layers.rbegin(); It != layers.rend(); ++It)`: the
    // iterator is the element.
    if (const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
        Init && Init->isSingleDecl())
      if (const auto *Iterator = dyn_cast<VarDecl>(Init->getSingleDecl());
          Iterator && Iterator->getInit())
        if (const auto *Begin = dyn_cast<CXXMemberCallExpr>(
                Iterator->getInit()->IgnoreImplicit());
            Begin && Begin->getMethodDecl() &&
            Begin->getMethodDecl()->getIdentifier() &&
            Begin->getMethodDecl()->getName().ends_with("begin"))
          Element = Iterator;
  }
  if (!Body || (!Element && !Container))
    return nullptr;
  const CXXMethodDecl *Called = nullptr;
  walkStmt(Body, [&](const Stmt &Node) {
    const auto *Call = dyn_cast<CXXMemberCallExpr>(&Node);
    if (!Call)
      return WalkStep::Continue;
    const Expr *Object =
        Call->getImplicitObjectArgument()->IgnoreParenImpCasts();
    // layers[i]->f(), (*it)->f(), element->f() through a smart pointer:
    // peel subscripts and dereferences down to the container or element.
    while (true) {
      if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Object);
          Operator && Operator->getNumArgs() > 0 &&
          (Operator->getOperator() == OO_Subscript ||
           Operator->getOperator() == OO_Arrow ||
           Operator->getOperator() == OO_Star))
        Object = Operator->getArg(0)->IgnoreParenImpCasts();
      else if (const auto *Array = dyn_cast<ArraySubscriptExpr>(Object))
        Object = Array->getBase()->IgnoreParenImpCasts();
      else if (const auto *Deref = dyn_cast<UnaryOperator>(Object);
               Deref && Deref->getOpcode() == UO_Deref)
        Object = Deref->getSubExpr()->IgnoreParenImpCasts();
      else
        break;
    }
    const ValueDecl *D = namedDeclaration(Object);
    // The parts are objects of the program's own classes or LibTorch
    // modules: `batch.data()` of a data loader's batch, or an optimizer's
    // `param_group.options()`, walk no model.
    const CXXMethodDecl *Method = Call->getMethodDecl();
    if (D && (D == Element || D == Container) && Method &&
        isModelPart(Method->getParent())) {
      Called = Method;
      return WalkStep::Stop;
    }
    return WalkStep::Continue;
  });
  return Called;
}

/// True if \p Loop may queue device work: a kernel launch, a call into
/// LibTorch or a CUDA library, or a call into user code. A loop of host
/// arithmetic, conversions and standard library calls (converting read-back
/// values, printing) is not the batch loop of an epoch.
/// True for LibTorch calls that read a tensor's metadata on the host
/// (sizes, dtype, device) and queue nothing.
bool isTensorMetadataCall(const FunctionDecl *Callee) {
  const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
  if (!Method || !Method->getIdentifier())
    return false;
  return llvm::StringSwitch<bool>(Method->getName())
      .Cases("size", "sizes", "dim", "numel", "stride", "strides", true)
      .Cases("device", "dtype", "scalar_type", "options", "is_cuda", true)
      .Cases("defined", "ndimension", "is_contiguous", "requires_grad", true)
      .Default(false);
}

/// True for methods of c10's host containers (`sizes().begin()`, an
/// optional's value()): they read host memory and queue nothing.
bool isHostContainerMethod(const FunctionDecl *Callee) {
  const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
  const CXXRecordDecl *Class = Method ? Method->getParent() : nullptr;
  if (!Class || !Class->getIdentifier())
    return false;
  return llvm::StringSwitch<bool>(Class->getName())
      .Cases("ArrayRef", "OptionalArrayRef", "SmallVectorImpl", true)
      .Cases("SmallVector", "SmallVectorTemplateCommon", "optional", true)
      .Cases("basic_string_view", "SymInt", "Scalar", true)
      .Default(false);
}

/// One question "does running this queue device work?", memoised per
/// function, with what is known of functions defined elsewhere.
struct DeviceWorkSearch {
  const SourceManager &SM;
  const UnseenFunctions &Unseen;
  llvm::DenseMap<const FunctionDecl *, bool> Memo{};
};

bool functionQueuesDeviceWork(const FunctionDecl *Function,
                              DeviceWorkSearch &Search, unsigned Depth);

bool launchesDeviceWork(const FunctionDecl *Callee);

bool mayQueueDeviceWork(const Stmt *Loop, const SourceManager &SM) {
  UnseenFunctions MayLaunch;
  DeviceWorkSearch Search{SM, MayLaunch};
  return containsMatch<CallExpr>(Loop, [&](const CallExpr &Call) {
    const FunctionDecl *Callee = Call.getDirectCallee();
    // Collating a batch (moving, converting or creating tensors element
    // by element) is not the batch loop's compute.
    if (std::optional<TorchCall> Torch = identifyTorchCall(&Call))
      switch (Torch->Op) {
      case TorchOp::To:
      case TorchOp::Cpu:
      case TorchOp::Cuda:
      case TorchOp::Copy:
      case TorchOp::PinMemory:
      case TorchOp::Factory:
      case TorchOp::FromBlob:
        return false;
      default:
        break;
      }
    if (isa<CUDAKernelCallExpr>(Call) || !Callee)
      return true;
    if (isa<CXXConversionDecl>(Callee) || isTensorMetadataCall(Callee) ||
        isHostContainerMethod(Callee))
      return false;
    // Rows copied one by one into a batch tensor (`batch[b] = data[idx]`):
    // views and assignments into them collate, they compute nothing.
    if (isInTorchNamespace(Callee) &&
        (Callee->getOverloadedOperator() == OO_Subscript ||
         Callee->getOverloadedOperator() == OO_Equal ||
         (Callee->getIdentifier() && launchesNoKernel(Callee->getName()))))
      return false;
    // Elements of a thrust::device_vector read or written one by one
    // (`u[idx(i, j)] = 0`) are copies, not compute.
    if (readsThrustElement(&Call) ||
        (Callee->getOverloadedOperator() == OO_Subscript &&
         isa<CXXMethodDecl>(Callee) &&
         isThrustDeviceVector(cast<CXXMethodDecl>(Callee)->getParent())))
      return false;
    // User code: what its body does, where it is visible. One defined
    // elsewhere that maps numbers to a number (`flatten(i, j)`) computes
    // an index.
    if (!SM.isInSystemHeader(SM.getExpansionLoc(Callee->getLocation()))) {
      if (!Callee->hasBody() && Callee->getReturnType()->isArithmeticType() &&
          llvm::all_of(Callee->parameters(), [](const ParmVarDecl *Param) {
            return Param->getType()->isArithmeticType();
          }))
        return false;
      return functionQueuesDeviceWork(Callee, Search, 0);
    }
    if (isInLibTorch(Callee))
      return true;
    // Of the CUDA runtime, launches and library routines compute; copies
    // gather a batch, and error strings, waits and allocations compute
    // nothing.
    return launchesDeviceWork(Callee);
  });
}

/// True if a call to \p Callee launches device work: a kernel, a graph, a
/// CUDA library routine or a LibTorch operation. Runtime bookkeeping
/// (allocation, copies, streams, events, device selection) is not.
bool launchesDeviceWork(const FunctionDecl *Callee) {
  if (isInTorchNamespace(Callee))
    return !isTensorMetadataCall(Callee);
  const IdentifierInfo *Id = Callee->getIdentifier();
  if (!Id)
    return false;
  llvm::StringRef Name = Id->getName();
  if (Name.starts_with("cudaLaunch") || Name == "cudaGraphLaunch")
    return true;
  for (llvm::StringRef Library : {"cublas", "cudnn", "nccl", "cufft",
                                  "curand", "cusparse", "cusolver", "cutlass"})
    if (Name.starts_with(Library))
      return true;
  return false;
}

/// True if running \p Body queues device work, directly or through the
/// functions it calls (what those defined elsewhere do, \p Search's
/// UnseenFunctions says).
bool queuesDeviceWork(const Stmt *Body, DeviceWorkSearch &Search,
                      unsigned Depth);

bool functionQueuesDeviceWork(const FunctionDecl *Function,
                              DeviceWorkSearch &Search, unsigned Depth) {
  const FunctionDecl *Definition = Function->getDefinition();
  if (!Definition || !Definition->hasBody())
    return Search.Unseen.mayQueueDeviceWork(Function);
  if (Depth > 4)
    return true; // too deep to follow: may launch
  auto [It, Inserted] = Search.Memo.try_emplace(Definition, false);
  if (!Inserted)
    return It->second; // known, or a recursive cycle (false meanwhile)
  bool Result = queuesDeviceWork(Definition->getBody(), Search, Depth + 1);
  Search.Memo[Definition] = Result;
  return Result;
}

/// True if \p Call itself queues device work (not counting its arguments).
bool callQueuesDeviceWork(const CallExpr &Call, DeviceWorkSearch &Search,
                          unsigned Depth) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (isa<CUDAKernelCallExpr>(Call) || !Callee)
    return true; // a launch, or a call through a pointer
  if (runsThrustOnDevice(&Call))
    return true;
  if (Search.SM.isInSystemHeader(
          Search.SM.getExpansionLoc(Callee->getLocation())))
    return launchesDeviceWork(Callee);
  return launchesDeviceWork(Callee) ||
         functionQueuesDeviceWork(Callee, Search, Depth);
}

bool queuesDeviceWork(const Stmt *Body, DeviceWorkSearch &Search,
                      unsigned Depth) {
  return containsMatch<CallExpr>(Body, [&](const CallExpr &Call) {
    return callQueuesDeviceWork(Call, Search, Depth);
  });
}

/// True if \p Statement queues device work that a read-back in it would
/// wait for anew: the read-backs themselves (\p IsReadBack) and LibTorch's
/// indexing and views (`xs[i].item()`), which launch nothing, do not count.
bool queuesWorkBesideReadBacks(
    const Stmt *Statement, ASTContext &Ctx,
    llvm::function_ref<bool(const CallExpr *)> IsReadBack) {
  UnseenFunctions MayLaunch;
  DeviceWorkSearch Search{Ctx.getSourceManager(), MayLaunch};
  return containsMatch<CallExpr>(Statement, [&](const CallExpr &Call) {
    if (IsReadBack(&Call))
      return false;
    if (const FunctionDecl *Callee = Call.getDirectCallee();
        Callee && isInTorchNamespace(Callee) &&
        (Callee->getOverloadedOperator() == OO_Subscript ||
         (Callee->getIdentifier() && (launchesNoKernel(Callee->getName()) ||
                                      Callee->getName() == "index"))))
      return false;
    return callQueuesDeviceWork(Call, Search, 0);
  });
}

/// True if \p Callee reads a clock by its name: std::chrono's now(),
/// clock(), gettimeofday(), omp_get_wtime(), CUDA events, helpers named
/// *Timer*, *Second(s) or *Sec, and methods of a class named *Timer*,
/// *Clock*, *Stopwatch*, *TimeKeeper* or *TimeMeasurement*.
/// True if a function called \p Name reads a clock or drives a timer.
bool namesClockReading(llvm::StringRef Name) {
  return Name == "cudaEventRecord" || Name == "now" || Name == "clock" ||
         Name == "gettimeofday" || Name == "clock_gettime" ||
         Name == "omp_get_wtime" || Name == "MPI_Wtime" ||
         Name == "QueryPerformanceCounter" ||
         Name.contains_insensitive("tickcount") || // OpenCV
         Name.contains_insensitive("timer") ||
         Name.ends_with_insensitive("second") ||
         Name.ends_with_insensitive("seconds") ||
         Name.ends_with_insensitive("sec") ||
         Name.ends_with_insensitive("wtime");
}

bool readsClock(const FunctionDecl &Callee) {
  if (!Callee.getIdentifier())
    return false;
  if (namesClockReading(Callee.getName()))
    return true;
  const auto *Method = dyn_cast<CXXMethodDecl>(&Callee);
  if (!Method || !Method->getParent()->getIdentifier())
    return false;
  llvm::StringRef Class = Method->getParent()->getName();
  return Class.contains_insensitive("timer") ||
         Class.contains_insensitive("clock") ||
         Class.contains_insensitive("stopwatch") ||
         Class.contains_insensitive("timekeep") ||
         Class.contains_insensitive("timemeasur");
}

/// True if \p Body is a small straight-line helper: no loop and a handful
/// of statements (an activity logger's `GPUOff()` that takes a lock, reads
/// its timer and updates a counter).
bool isSmallStraightLineHelper(const Stmt *Body) {
  constexpr unsigned MaxStatements = 12;
  unsigned Statements = 0;
  bool HasLoop = false;
  walkStmt(Body, [&](const Stmt &S) {
    if (isLoopStmt(&S)) {
      HasLoop = true;
      return WalkStep::Stop;
    }
    if (isa<CompoundStmt>(S))
      Statements += cast<CompoundStmt>(S).size();
    return Statements > MaxStatements ? WalkStep::Stop : WalkStep::Continue;
  });
  return !HasLoop && Statements <= MaxStatements;
}

/// True if \p S reads a clock, also inside error-checking wrappers
/// (`check(cudaEventRecord(start))`) and inside small helpers of the
/// program that read one (`logger->GPUOff()` recording activity time), up
/// to \p Depth calls down.
bool callsTimer(const Stmt *S, unsigned Depth = 3) {
  return containsMatch<CallExpr>(S, [&](const CallExpr &Call) {
    // A timer of a header that was not found (`sdkStartTimer(&timer)` without
    // helper_timer.h) is called through the stand-in the tool declares.
    if (const auto *Stand = dyn_cast<CXXOperatorCallExpr>(&Call);
        Stand && Stand->getOperator() == OO_Call)
      if (const auto *Ref =
              dyn_cast<DeclRefExpr>(Stand->getArg(0)->IgnoreParenImpCasts());
          Ref && isa<VarDecl>(Ref->getDecl()) &&
          Ref->getDecl()->getIdentifier() &&
          namesClockReading(Ref->getDecl()->getName()))
        return true;
    const FunctionDecl *Callee = Call.getDirectCallee();
    if (!Callee)
      return false;
    if (readsClock(*Callee))
      return true;
    const FunctionDecl *Definition =
        Depth ? definedCallee(&Call, Callee->getASTContext().getSourceManager())
              : nullptr;
    if (!Definition)
      return false;
    const Stmt *Body = Definition->getBody();
    return isSmallStraightLineHelper(Body) && callsTimer(Body, Depth - 1);
  });
}

/// True if \p Call makes the host wait for the device by what it is: a
/// device-wide, stream or event wait, a blocking device-to-host copy, or a
/// LibTorch read-back (`item()`, `cpu()`, printing a tensor).
bool waitsForDevice(const CallExpr &Call, const ASTContext &Ctx) {
  if (isBareWait(&Call))
    return true;
  if (std::optional<CudaApi> Api = identifyCudaCall(&Call)) {
    if (*Api == CudaApi::MemcpyFromSymbol)
      return true;
    std::optional<unsigned> Kind = memcpyKindArgIndex(*Api);
    return (*Api == CudaApi::Memcpy || *Api == CudaApi::Memcpy2D) && Kind &&
           *Kind < Call.getNumArgs() &&
           evaluateMemcpyKind(Call.getArg(*Kind), Ctx) ==
               MemcpyDirection::DeviceToHost;
  }
  // A Thrust reduction's value comes back with a blocking copy.
  if (!thrustBlockingAlgorithmName(&Call).empty())
    return true;
  std::optional<TorchCall> Torch = identifyTorchCall(&Call);
  if (!Torch || !(Torch->Op == TorchOp::Item || Torch->Op == TorchOp::Cpu ||
                  Torch->Op == TorchOp::Print))
    return false;
  // `torch::randint(0, n, {1}).item<int64_t>()`: a value drawn on the host.
  const auto *Made = Torch->Subject
                         ? dyn_cast<CallExpr>(Torch->Subject->IgnoreImplicit())
                         : nullptr;
  std::optional<TorchCall> Factory =
      Made ? identifyTorchCall(Made) : std::nullopt;
  return !(Factory && Factory->Op == TorchOp::Factory &&
           llvm::none_of(Made->arguments(), [](const Expr *Arg) {
             if (isa<CXXDefaultArgExpr>(Arg))
               return false;
             const CXXRecordDecl *Class =
                 Arg->getType().getNonReferenceType()->getAsCXXRecordDecl();
             return Class && Class->getIdentifier() &&
                    llvm::is_contained({"TensorOptions", "Device"},
                                       Class->getName());
           }));
}

/// True if running \p S waits for the device on its way (see
/// waitsForDevice), directly or through functions of the program, up to
/// \p Depth calls down.
bool waitsForDeviceWithin(const Stmt *S, const ASTContext &Ctx,
                          unsigned Depth = 2) {
  const SourceManager &SM = Ctx.getSourceManager();
  return containsMatch<CallExpr>(S, [&](const CallExpr &Call) {
    if (waitsForDevice(Call, Ctx))
      return true;
    const FunctionDecl *Definition = Depth ? definedCallee(&Call, SM) : nullptr;
    return Definition &&
           waitsForDeviceWithin(Definition->getBody(), Ctx, Depth - 1);
  });
}

/// True if running \p S launches computation on the device: a kernel, a
/// CUDA library routine, or a LibTorch operation other than a read-back,
/// a move, an indexing view or a metadata query (a loop that only reads a
/// result back element by element computes nothing), directly or through
/// functions of the program, up to \p Depth calls down.
bool launchesCompute(const Stmt *S, const SourceManager &SM,
                     unsigned Depth = 2) {
  return containsMatch<CallExpr>(S, [&](const CallExpr &Call) {
    if (isa<CUDAKernelCallExpr>(Call))
      return true;
    const FunctionDecl *Callee = Call.getDirectCallee();
    if (!Callee)
      return false;
    if (std::optional<TorchCall> Torch = identifyTorchCall(&Call))
      return Torch->Op == TorchOp::Factory;
    if (isInTorchNamespace(Callee))
      return Callee->getOverloadedOperator() != OO_Subscript &&
             Callee->getOverloadedOperator() != OO_Equal &&
             !isa<CXXConversionDecl>(Callee) && !isTensorMetadataCall(Callee) &&
             !(Callee->getIdentifier() && launchesNoKernel(Callee->getName()));
    if (launchesDeviceWork(Callee))
      return true;
    if (SM.isInSystemHeader(SM.getExpansionLoc(Callee->getLocation())))
      return false;
    // A function of the program defined in another file may launch.
    const FunctionDecl *Definition = nullptr;
    if (!Callee->hasBody(Definition) || !Definition)
      return !Callee->getIdentifier() ||
             !namesWorkFreeHelper(Callee->getName());
    return Depth > 0 && launchesCompute(Definition->getBody(), SM, Depth - 1);
  });
}

} // namespace

bool takesTrainingStep(const Stmt *S, const SourceManager &SM,
                       llvm::DenseSet<const FunctionDecl *> &Visited,
                       unsigned Depth);

namespace {
llvm::SmallVector<std::string, 4> identifierWords(llvm::StringRef Name);
} // namespace

bool trainsInLoop(const Stmt *Loop, const SourceManager &SM) {
  llvm::DenseSet<const FunctionDecl *> Visited;
  return takesTrainingStep(Loop, SM, Visited, 0) ||
         containsMatch<CallExpr>(Loop, [](const CallExpr &Call) {
           const FunctionDecl *Callee = Call.getDirectCallee();
           return Callee && Callee->getIdentifier() &&
                  identifierWords(Callee->getName()).front() == "train";
         });
}

const Stmt *findStepLoopInside(const FunctionDecl *Function, ASTContext &Ctx) {
  const FunctionDecl *Definition = nullptr;
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Function || !Function->hasBody(Definition) || !Definition ||
      SM.isInSystemHeader(SM.getExpansionLoc(Definition->getLocation())))
    return nullptr;
  constexpr uint64_t Handful = 10;
  const Stmt *Found = nullptr;
  walkStmt(Definition->getBody(), [&](const Stmt &S) {
    if (isa<LambdaExpr>(S))
      return WalkStep::SkipChildren;
    if (!isLoopStmt(&S) || isNeverRepeated(&S, Ctx))
      return WalkStep::Continue;
    std::optional<uint64_t> Trips = constantTripCount(&S, Ctx);
    if ((Trips && *Trips <= Handful) || walksContainerElements(&S) ||
        walksParameters(&S))
      return WalkStep::Continue;
    if (trainsInLoop(&S, SM) ||
        (launchesCompute(&S, SM) && waitsForDeviceWithin(&S, Ctx))) {
      Found = &S;
      return WalkStep::Stop;
    }
    return WalkStep::Continue;
  });
  return Found;
}

bool runsTrainingEpoch(const FunctionDecl *Function, ASTContext &Ctx) {
  const Stmt *StepLoop = findStepLoopInside(Function, Ctx);
  llvm::DenseSet<const FunctionDecl *> Visited;
  return StepLoop &&
         takesTrainingStep(StepLoop, Ctx.getSourceManager(), Visited, 0);
}

namespace {

bool runsUntilDeviceSaysDone(const Stmt *Loop, ASTContext &Ctx);

/// True if \p Body queues device work other than through \p Call: a kernel
/// launch or another call that queues some.
bool queuesWorkBeside(const Stmt *Body, const CallExpr *Call, ASTContext &Ctx) {
  return containsMatch<CallExpr>(Body, [&](const CallExpr &Other) {
    return &Other != Call && !isWithin(&Other, Call, Ctx) &&
           !isWithin(Call, &Other, Ctx) &&
           queuesDeviceWork(&Other, Ctx, UnseenFunctions{});
  });
}

/// The first loop inside \p Body that does not hold \p S and runs the
/// device work of each iteration: not one under a branch (validation every
/// N steps), a host-only loop, or a macro's do-while(0). A call beside
/// \p S into a function that runs a step loop of its own (a solver's
/// iterations inside a sweep over parameters) is such a loop too: the one
/// inside the function is returned.
const Stmt *findSiblingLoop(const Stmt *Body, const Stmt *Target,
                            ASTContext &Ctx) {
  // An optimizer step after the inner loop makes the inner loop gradient
  // accumulation over micro-batches, and the enclosing loop the step loop.
  auto StepsOptimizerOutside = [&](const Stmt *Inner) {
    return containsMatch<CXXMemberCallExpr>(
        Body, [&](const CXXMemberCallExpr &Call) {
          const CXXMethodDecl *Method = Call.getMethodDecl();
          return Method && Method->getIdentifier() &&
                 Method->getName() == "step" && isInTorchNamespace(Method) &&
                 !isWithin(&Call, Inner, Ctx);
        });
  };
  const Stmt *Found = nullptr;
  std::function<WalkStep(const Stmt &)> Visit = [&](const Stmt &S) {
    // A branch runs its loops only sometimes, unless the target is in the
    // same branch (`if (ready) { for (...) train(); log(loss); }`).
    if (const auto *If = dyn_cast<IfStmt>(&S)) {
      for (const Stmt *Branch : {If->getThen(), If->getElse()})
        if (Branch && isWithin(Target, Branch, Ctx) && !Found)
          walkStmt(Branch, Visit);
      return Found ? WalkStep::Stop : WalkStep::SkipChildren;
    }
    if (isa<LambdaExpr, SwitchStmt>(S))
      return WalkStep::SkipChildren;
    // A walk over the model's layers is part of one step, not a step loop;
    // so is a solve that iterates until a value read back from the device
    // says it has converged (a pressure solve inside each time step).
    if (isLoopStmt(&S) && !isWithin(Target, &S, Ctx) &&
        !isNeverRepeated(&S, Ctx) && !walksContainerElements(&S) &&
        mayQueueDeviceWork(&S, Ctx.getSourceManager()) &&
        !StepsOptimizerOutside(&S) && !runsUntilDeviceSaysDone(&S, Ctx)) {
      Found = &S;
      return WalkStep::Stop;
    }
    if (const auto *Call = dyn_cast<CallExpr>(&S);
        Call && !isWithin(Target, Call, Ctx) && !isWithin(Call, Target, Ctx))
      // A called solve that iterates until the device says it has
      // converged is part of the step when the step queues other device
      // work beside it (`poisson()` between the time step's kernels); alone
      // with allocations around it, it is the step loop of a sweep.
      if (const Stmt *Inside = findStepLoopInside(Call->getDirectCallee(), Ctx);
          Inside && !(runsUntilDeviceSaysDone(Inside, Ctx) &&
                      queuesWorkBeside(Body, Call, Ctx))) {
        Found = Inside;
        return WalkStep::Stop;
      }
    return WalkStep::Continue;
  };
  walkStmt(Body, Visit);
  return Found;
}

std::string loopPhrase(const EnclosingLoop &Loop, const SourceManager &SM) {
  std::string Line = std::to_string(lineOf(Loop.Loop, SM));
  if (Loop.Kind == "loop")
    return "the loop at line " + Line;
  return "the " + Loop.Kind + " at line " + Line;
}

} // namespace

namespace {

/// The trip count of `for (int i = 0; i < n; ++i)` where `n` is a local
/// integer initialised with a constant that nothing in its function
/// writes.
std::optional<uint64_t> tripCountThroughUnchangedBound(const Stmt *LoopStmt,
                                                       ASTContext &Ctx) {
  const auto *For = dyn_cast<ForStmt>(LoopStmt);
  const auto *Cond =
      For && For->getCond()
          ? dyn_cast<BinaryOperator>(For->getCond()->IgnoreParenImpCasts())
          : nullptr;
  const VarDecl *Counter = loopCounter(LoopStmt);
  if (!Cond || !Counter || Cond->getOpcode() != BO_LT)
    return std::nullopt;
  const auto *CounterRef =
      dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreParenImpCasts());
  const auto *BoundRef =
      dyn_cast<DeclRefExpr>(Cond->getRHS()->IgnoreParenImpCasts());
  const auto *Bound =
      BoundRef ? dyn_cast<VarDecl>(BoundRef->getDecl()) : nullptr;
  const auto *Function =
      Bound ? dyn_cast<FunctionDecl>(Bound->getDeclContext()) : nullptr;
  if (!CounterRef || CounterRef->getDecl() != Counter || !Bound ||
      !Bound->isLocalVarDecl() || !Bound->getType()->isIntegerType() ||
      !Function || !Function->getBody())
    return std::nullopt;
  std::optional<int64_t> Start = evaluateInt(Counter->getInit(), Ctx);
  std::optional<int64_t> End = evaluateInt(Bound->getInit(), Ctx);
  if (!Start || !End || *End < *Start ||
      !isLoopInvariant(Bound, Function->getBody(), Ctx))
    return std::nullopt;
  return static_cast<uint64_t>(*End - *Start);
}

} // namespace

std::optional<uint64_t> constantTripCount(const Stmt *LoopStmt,
                                          const ASTContext &Ctx) {
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(LoopStmt)) {
    QualType T = Range->getRangeInit()->getType();
    if (const auto *Array = Ctx.getAsConstantArrayType(T))
      return Array->getSize().getZExtValue();
    return std::nullopt;
  }
  const auto *For = dyn_cast_or_null<ForStmt>(LoopStmt);
  if (!For || !For->getInit() || !For->getCond() || !For->getInc())
    return std::nullopt;

  const VarDecl *Counter = nullptr;
  std::optional<int64_t> Start;
  if (const auto *DS = dyn_cast<DeclStmt>(For->getInit());
      DS && DS->isSingleDecl())
    if (const auto *Var = dyn_cast<VarDecl>(DS->getSingleDecl())) {
      Counter = Var;
      Start = evaluateInt(Var->getInit(), Ctx);
    }
  // `for (k = 0; ...)` with a counter declared earlier.
  if (const auto *Assign = dyn_cast<BinaryOperator>(For->getInit());
      Assign && Assign->getOpcode() == BO_Assign)
    if (const auto *Ref =
            dyn_cast<DeclRefExpr>(Assign->getLHS()->IgnoreParenImpCasts())) {
      Counter = dyn_cast<VarDecl>(Ref->getDecl());
      Start = evaluateInt(Assign->getRHS(), Ctx);
    }
  if (!Counter || !Start)
    return std::nullopt;

  const auto *Inc = dyn_cast<UnaryOperator>(For->getInc()->IgnoreParens());
  if (!Inc || !Inc->isIncrementOp())
    return std::nullopt;

  const auto *Cond = dyn_cast<BinaryOperator>(For->getCond()->IgnoreParens());
  if (!Cond)
    return std::nullopt;
  auto IsCounter = [&](const Expr *E) {
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return Ref && Ref->getDecl() == Counter;
  };
  std::optional<int64_t> Bound;
  bool Inclusive = false;
  if (IsCounter(Cond->getLHS()) &&
      (Cond->getOpcode() == BO_LT || Cond->getOpcode() == BO_NE ||
       Cond->getOpcode() == BO_LE)) {
    Bound = evaluateInt(Cond->getRHS(), Ctx);
    Inclusive = Cond->getOpcode() == BO_LE;
  } else if (IsCounter(Cond->getRHS()) &&
             (Cond->getOpcode() == BO_GT || Cond->getOpcode() == BO_GE)) {
    Bound = evaluateInt(Cond->getLHS(), Ctx);
    Inclusive = Cond->getOpcode() == BO_GE;
  }
  if (!Bound)
    return std::nullopt;
  int64_t Trips = *Bound - *Start + (Inclusive ? 1 : 0);
  return Trips > 0 ? static_cast<uint64_t>(Trips) : 0;
}

/// True if \p Cond, in the body of \p Loop, holds on its last iteration
/// only: the loop walks chunks (`for (off = 0; off < total; off += n)`) and
/// the test is whether the chunk runs past the end (`off + n > total`).
bool testsLastChunk(const Expr *Cond, const Stmt *Loop) {
  const auto *For = dyn_cast<ForStmt>(Loop);
  const VarDecl *Counter = loopCounter(Loop);
  const auto *Step =
      For ? dyn_cast_or_null<CompoundAssignOperator>(For->getInc()) : nullptr;
  const auto *Bounded =
      For && For->getCond()
          ? dyn_cast<BinaryOperator>(For->getCond()->IgnoreParens())
          : nullptr;
  const auto *Test = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
  if (!Counter || !Step || Step->getOpcode() != BO_AddAssign || !Bounded ||
      !Test)
    return false;
  if (!llvm::is_contained({BO_LT, BO_LE}, Bounded->getOpcode()) ||
      !refersTo(Bounded->getLHS(), Counter))
    return false;
  const Expr *Bound = Bounded->getRHS()->IgnoreParenImpCasts();
  const Expr *Past = nullptr, *End = nullptr;
  if (llvm::is_contained({BO_GT, BO_GE}, Test->getOpcode())) {
    Past = Test->getLHS();
    End = Test->getRHS();
  } else if (llvm::is_contained({BO_LT, BO_LE}, Test->getOpcode())) {
    Past = Test->getRHS();
    End = Test->getLHS();
  } else {
    return false;
  }
  const auto *Sum = dyn_cast<BinaryOperator>(Past->IgnoreParenImpCasts());
  const auto *EndRef = dyn_cast<DeclRefExpr>(End->IgnoreParenImpCasts());
  const auto *BoundRef = dyn_cast<DeclRefExpr>(Bound);
  return Sum && Sum->getOpcode() == BO_Add && refersTo(Sum, Counter) &&
         EndRef && BoundRef && EndRef->getDecl() == BoundRef->getDecl();
}

ExecutionFrequency analyzeFrequency(const Stmt *S, ASTContext &Ctx) {
  ExecutionFrequency Result;
  // Conditions of branches around the statement, for the first loop found
  // to judge (`if (off + n > total)` is its last iteration).
  llvm::SmallVector<const Expr *, 2> BranchConditions;
  Guard Strongest;
  // Conditions that made the statement run once (`if (pass == 0)`).
  llvm::SmallVector<const Expr *, 2> OnceConditions;
  // A break/return right after the statement: it runs once per loop run, but
  // only if there is a loop to leave.
  bool ExitsLoopAfter = false;
  const Stmt *Child = S;
  for (const Stmt *P = parentStmtOrLambda(S, Ctx); P;
       P = parentStmtOrLambda(Child, Ctx)) {
    bool BeforeFirstLoop = Result.Loops.empty();
    // A static local's initializer runs once, on the first pass only.
    if (const auto *Declaration = dyn_cast<DeclStmt>(P);
        Declaration && llvm::any_of(Declaration->decls(), [](const Decl *D) {
          const auto *Var = dyn_cast<VarDecl>(D);
          return Var && Var->isStaticLocal();
        })) {
      ExecutionFrequency Once;
      Once.Guard = GuardKind::Once;
      return Once;
    }
    if (isLoopStmt(P) && isRepeatedPartOfLoop(Child, P) &&
        !isNeverRepeated(P, Ctx) && !walksModelParts(P, Ctx)) {
      if (Result.Loops.empty() &&
          llvm::any_of(BranchConditions, [&](const Expr *Cond) {
            return testsLastChunk(Cond, P);
          }))
        Strongest = rarer(Strongest, Guard{GuardKind::Once, std::nullopt, ""});
      Result.Loops.push_back({P, constantTripCount(P, Ctx), "loop"});
    } else if (const auto *If = dyn_cast<IfStmt>(P); If && BeforeFirstLoop &&
                                                     Child != If->getCond() &&
                                                     Child != If->getInit()) {
      Guard G = analyzeCondition(If->getCond(), Child == If->getThen(), Ctx);
      if (Child == If->getThen())
        if (std::optional<uint64_t> Period = accumulateAndFlushPeriod(If, Ctx))
          G = Guard{GuardKind::EveryN, Period, ""};
      if (G.Kind == GuardKind::None && isLoggingBranch(If, Child))
        G = Guard{GuardKind::Logging, std::nullopt, ""};
      if (G.Kind == GuardKind::None && Child == If->getThen() &&
          isFirstTimeBranch(If))
        G = Guard{GuardKind::Once, std::nullopt, ""};
      if (G.Kind == GuardKind::Once)
        OnceConditions.push_back(If->getCond());
      if (Child == If->getThen())
        BranchConditions.push_back(If->getCond());
      Strongest = rarer(Strongest, G);
    } else if (const auto *Block = dyn_cast<CompoundStmt>(P);
               Block && BeforeFirstLoop) {
      Strongest = rarer(Strongest, guardOfEarlierSkips(Child, Block, Ctx));
      if (isFollowedByProgramExit(Child, Block))
        Strongest = rarer(Strongest, Guard{GuardKind::Once, std::nullopt, ""});
      const Stmt *BlockParent = parentStmt(Block, Ctx);
      if (isFollowedByLoopExit(Child, Block) &&
          (!BlockParent || !isa<SwitchStmt>(BlockParent)))
        ExitsLoopAfter = true;
    } else if (const auto *Lambda = dyn_cast<LambdaExpr>(P)) {
      const CallExpr *Algorithm = algorithmTakingLambda(Lambda, Ctx);
      if (!Algorithm)
        break; // the lambda runs whenever it is called, not here
      Result.Loops.push_back(
          {Algorithm, std::nullopt,
           "std::" + Algorithm->getDirectCallee()->getName().str()});
      P = Algorithm;
    }
    Child = P;
  }
  // `for (pass = 0; pass < 2; ++pass) if (pass == 0) ...` inside a time-step
  // loop: once per run of a loop of a few passes is once per step of the
  // loop around it, not once in all.
  if (Strongest.Kind == GuardKind::Once && !ExitsLoopAfter &&
      Result.Loops.size() >= 2 && OnceConditions.size() == 1) {
    constexpr uint64_t FewPasses = 4;
    const EnclosingLoop &Passes = Result.Loops.front();
    const VarDecl *Counter = loopCounter(Passes.Loop);
    if (Counter && Passes.TripCount && *Passes.TripCount <= FewPasses &&
        refersTo(OnceConditions.front(), Counter)) {
      Result.Loops.erase(Result.Loops.begin());
      Strongest = Guard{};
    }
  }
  if (ExitsLoopAfter && !Result.Loops.empty())
    Strongest = rarer(Strongest, Guard{GuardKind::Once, std::nullopt, ""});
  // Guards are kept even outside loops: a function called in a loop may
  // only act every N calls.
  Result.Guard = Strongest.Kind;
  Result.Period = Strongest.Period;
  Result.PeriodSpelling = Strongest.PeriodSpelling;
  if (Result.Loops.empty())
    return Result;

  const Stmt *Innermost = Result.Loops.front().Loop;
  if (isLoopStmt(Innermost)) {
    // The loop itself is visited first; it holds S, so is skipped.
    if (const Stmt *Sibling = findSiblingLoop(Innermost, S, Ctx)) {
      Result.InnerSiblingLoop = Sibling;
      Result.InnerSiblingTripCount = constantTripCount(Sibling, Ctx);
      // `int batch_size = 2; ... for (i = 0; i < batch_size; ++i)`: a
      // local bound nothing changes is as good as a constant here.
      if (!Result.InnerSiblingTripCount)
        Result.InnerSiblingTripCount =
            tripCountThroughUnchangedBound(Sibling, Ctx);
      Result.InnerSiblingThroughCall = !isWithin(Sibling, Innermost, Ctx);
    }
  }
  return Result;
}

bool isTimingStatement(const Stmt *S, ASTContext &Ctx) {
  const Stmt *Child = S;
  const Stmt *Parent = parentStmt(S, Ctx);
  // Up to the statement in a block, through statement-like macro wrappers
  // (`CHECK(cudaEventSynchronize(stop))`).
  while (Parent &&
         (!isa<CompoundStmt>(Parent) || macroWrapperOfBlock(Parent, Ctx))) {
    Child = Parent;
    Parent = parentStmt(Parent, Ctx);
  }
  const auto *Block = dyn_cast_or_null<CompoundStmt>(Parent);
  if (!Block)
    return false;
  llvm::ArrayRef<Stmt *> Body(Block->body_begin(), Block->body_end());
  auto It = llvm::find(Body, Child);
  if (It == Body.end())
    return false;
  // The neighbours that do something: not the `;` after a braces macro, nor
  // a declaration that calls nothing (`float ms = 0;` before reading the
  // elapsed time).
  auto DoesNothing = [](const Stmt *Neighbour) {
    return isa<NullStmt>(Neighbour) ||
           (isa<DeclStmt>(Neighbour) &&
            !containsMatch<CallExpr>(Neighbour,
                                     [](const CallExpr &) { return true; }));
  };
  auto Before = std::make_reverse_iterator(It);
  while (Before != Body.rend() && DoesNothing(*Before))
    ++Before;
  auto After = std::next(It);
  while (After != Body.end() && DoesNothing(*After))
    ++After;
  if ((Before != Body.rend() && callsTimer(*Before)) ||
      (After != Body.end() && callsTimer(*After)))
    return true;
  // The only statement of a branch (`if (torch::cuda::is_available())
  // torch::cuda::synchronize();` before reading the clock): the branch's
  // neighbours are its own.
  const auto *Branch = dyn_cast_or_null<IfStmt>(parentStmt(Block, Ctx));
  if (Block->size() == 1 && Branch && !Branch->getElse() &&
      Branch->getThen() == Block)
    return isTimingStatement(Branch, Ctx);
  return false;
}

/// True if running \p S takes a training step: calls backward() or an
/// optimizer's step(), directly or through functions defined here.
bool takesTrainingStep(const Stmt *S, const SourceManager &SM,
                       llvm::DenseSet<const FunctionDecl *> &Visited,
                       unsigned Depth = 0) {
  return containsMatch<CallExpr>(S, [&](const CallExpr &Call) {
    const FunctionDecl *Callee = Call.getDirectCallee();
    if (!Callee || !Callee->getIdentifier())
      return false;
    llvm::StringRef Name = Callee->getName();
    if (Name == "backward" || (Name == "step" && isa<CXXMemberCallExpr>(Call) &&
                               isInTorchNamespace(Callee)))
      return true;
    if (Depth < 3 && Visited.insert(Callee).second &&
        !SM.isInSystemHeader(SM.getExpansionLoc(Callee->getLocation())))
      if (const FunctionDecl *Definition = Callee->getDefinition();
          Definition && Definition->hasBody())
        return takesTrainingStep(Definition->getBody(), SM, Visited, Depth + 1);
    return false;
  });
}

/// True if \p Body calls eval() on a LibTorch module before \p Loop.
bool switchesModuleToEval(const Stmt *Body, const Stmt *Loop, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  return containsMatch<CXXMemberCallExpr>(
      Body, [&](const CXXMemberCallExpr &Call) {
        const CXXMethodDecl *Method = Call.getMethodDecl();
        return Method && Method->getIdentifier() &&
               Method->getName() == "eval" && Method->getNumParams() == 0 &&
               isInTorchNamespace(Method) &&
               SM.isBeforeInTranslationUnit(
                   SM.getExpansionLoc(Call.getBeginLoc()),
                   SM.getExpansionLoc(Loop->getBeginLoc()));
      });
}

/// True if a function of this translation unit's own code takes a
/// training step.
bool translationUnitTrains(ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::DenseSet<const FunctionDecl *> Visited;
  std::function<bool(const DeclContext *)> Scan =
      [&](const DeclContext *DC) {
        for (const Decl *D : DC->decls()) {
          if (SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
            continue;
          if (const auto *Function = D->getAsFunction()) {
            if (Function->hasBody() &&
                takesTrainingStep(Function->getBody(), SM, Visited))
              return true;
          } else if (const auto *Nested = dyn_cast<DeclContext>(D);
                     Nested && (isa<NamespaceDecl>(D) || isa<CXXRecordDecl>(D) ||
                                isa<LinkageSpecDecl>(D))) {
            if (Scan(Nested))
              return true;
          }
        }
        return false;
      };
  return Scan(Ctx.getTranslationUnitDecl());
}

/// True if \p Loop is an evaluation pass: it takes no training step, and
/// the loop that encloses it (or, outside loops, its function) takes one
/// elsewhere in its body.
namespace {

/// The words of an identifier, split at '_' and case changes, lower case.
llvm::SmallVector<std::string, 4> identifierWords(llvm::StringRef Name) {
  llvm::SmallVector<std::string, 4> Words(1);
  for (size_t I = 0; I < Name.size(); ++I) {
    if (Name[I] == '_' ||
        (I > 0 && llvm::isUpper(Name[I]) && llvm::isLower(Name[I - 1]))) {
      Words.emplace_back();
      if (Name[I] == '_')
        continue;
    }
    Words.back() += llvm::toLower(Name[I]);
  }
  return Words;
}

/// Whether \p Name says it counts or holds a held-out set: a word of it
/// (split at '_' and case changes) is test, eval, valid, val, validation.
bool namesHeldOutSet(llvm::StringRef Name) {
  llvm::SmallVector<std::string, 4> Words = identifierWords(Name);
  return llvm::any_of(Words, [](const std::string &Word) {
    return llvm::is_contained(
        {"test", "tests", "eval", "evaluation", "valid", "validation", "val"},
        llvm::StringRef(Word));
  });
}

/// A raw CUDA trainer's test pass: a loop, in no other loop, whose
/// condition counts a test or validation set, after a loop of the same
/// function that queues device work (the training). It runs once.
bool isTestPassAfterTraining(const Stmt *Loop, const FunctionDecl *Function,
                             ASTContext &Ctx) {
  const Expr *Condition = nullptr;
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    Condition = For->getCond();
  else if (const auto *While = dyn_cast<WhileStmt>(Loop))
    Condition = While->getCond();
  if (!Condition || !Function || !Function->getBody())
    return false;
  bool CountsHeldOut = false;
  walkStmt(Condition, [&](const Stmt &S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&S))
      CountsHeldOut |= namesHeldOutSet(Ref->getDecl()->getName());
    return CountsHeldOut ? WalkStep::Stop : WalkStep::Continue;
  });
  if (!CountsHeldOut)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  bool TrainsBefore = false;
  walkStmt(Function->getBody(), [&](const Stmt &S) {
    if (&S == Loop)
      return WalkStep::Stop;
    if (isLoopStmt(&S) &&
        SM.isBeforeInTranslationUnit(S.getEndLoc(), Loop->getBeginLoc()) &&
        queuesDeviceWork(&S, Ctx, UnseenFunctions{nullptr})) {
      TrainsBefore = true;
      return WalkStep::Stop;
    }
    return WalkStep::Continue;
  });
  return TrainsBefore;
}

/// True if \p Loop stores into the rows of a tensor declared before it
/// (`obs[step] = next_obs`, `rewards.index({step, i}) = r`): it collects
/// what a training step after it reads, as a reinforcement-learning rollout
/// does, rather than evaluating.
bool fillsTensorBuffer(const Stmt *Loop, const SourceManager &SM) {
  SourceLocation Begin = SM.getExpansionLoc(Loop->getBeginLoc());
  return containsMatch<CXXOperatorCallExpr>(
      Loop, [&](const CXXOperatorCallExpr &Op) {
        if (Op.getOperator() != OO_Equal || Op.getNumArgs() != 2)
          return false;
        const VarDecl *Buffer = slicedVariable(Op.getArg(0));
        return Buffer && SM.isBeforeInTranslationUnit(
                             SM.getExpansionLoc(Buffer->getLocation()), Begin);
      });
}

} // namespace

bool isEvaluationPass(const Stmt *Loop, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const Stmt *Outer = nullptr;
  for (const Stmt *P = parentStmt(Loop, Ctx); P && !Outer;
       P = parentStmt(P, Ctx))
    if (isLoopStmt(P))
      Outer = P;
  // Outside any loop: a final test pass after the training loop of the same
  // function runs once.
  const FunctionDecl *Function = enclosingFunction(Loop, Ctx);
  if (!Outer && isTestPassAfterTraining(Loop, Function, Ctx))
    return true;
  if (!Outer && Function)
    Outer = Function->getBody();
  if (!Outer)
    return false;
  llvm::DenseSet<const FunctionDecl *> Visited;
  if (takesTrainingStep(Loop, SM, Visited))
    return false;
  // An evaluation helper of a training program: it switches a module to
  // evaluation mode (`model->eval()`) before the loop, takes no training
  // step itself, and the program trains elsewhere in this translation unit.
  // (An inference application calls eval() too, but never trains: its loop
  // stays hot.) Such a helper may collect its losses in a tensor
  // (`losses[k] = loss.item<float>()`) and still only evaluate.
  Visited.clear();
  if (Function && switchesModuleToEval(Function->getBody(), Loop, Ctx) &&
      !takesTrainingStep(Function->getBody(), SM, Visited) &&
      translationUnitTrains(Ctx))
    return true;
  if (fillsTensorBuffer(Loop, SM))
    return false;
  Visited.clear();
  return takesTrainingStep(Outer, SM, Visited);
}

namespace {
bool refersTo(const Stmt *S, const VarDecl *Var);

/// True if the body of a counted loop reads its counter, so that each
/// iteration does different work (elimination step t, frame i) rather than
/// repeating the same work to time it.
bool bodyReadsCounter(const Stmt *Loop) {
  const auto *For = dyn_cast<ForStmt>(Loop);
  const VarDecl *Counter = loopCounter(Loop);
  return Counter && For->getBody() && refersTo(For->getBody(), Counter);
}

const Expr *loopCondition(const Stmt *Loop);

/// True if an iteration of \p Loop reads a value the previous one stored:
/// a variable declared outside the body that the body assigns (`=`) and
/// reads before assigning it (ping-pong buffers swapped, the previous
/// residual kept), or that the body increments and also reads. A repetition
/// to time keeps at most counters, totals and status codes.
bool carriesValuesAcrossIterations(const Stmt *Body) {
  llvm::SmallPtrSet<const VarDecl *, 8> Inside, Read, Assigned, Carried,
      Incremented, ReadBesidesIncrement;
  walkStmt(Body, [&](const Stmt &S) {
    if (const auto *Declared = dyn_cast<DeclStmt>(&S))
      for (const Decl *D : Declared->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D))
          Inside.insert(Var);
    return WalkStep::Continue;
  });
  auto VariableOf = [&](const Expr *E) -> const VarDecl * {
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    return Var && !Inside.contains(Var) ? Var : nullptr;
  };
  // In evaluation order: an assignment's value before its target.
  std::function<void(const Stmt *)> Visit = [&](const Stmt *S) {
    if (!S)
      return;
    // Built in or a class's operator= (`next = step(current, next)` of
    // vectors).
    if (std::optional<AssignmentParts> Assign = assignmentParts(*S)) {
      const VarDecl *Target = VariableOf(Assign->Target);
      // `total = total + trial`: a running total spelled out, which nothing
      // else in the body reads (a simulation's `time = time + dt`, read
      // by the step, is state).
      const auto *Sum =
          dyn_cast<BinaryOperator>(Assign->Value->IgnoreParenImpCasts());
      unsigned Uses = 0;
      if (Target)
        walkStmt(Body, [&](const Stmt &Node) {
          if (const auto *R = dyn_cast<DeclRefExpr>(&Node);
              R && R->getDecl() == Target)
            ++Uses;
          return WalkStep::Continue;
        });
      const bool SpelledTotal =
          Target && !Assign->Compound && Sum && Sum->getOpcode() == BO_Add &&
          VariableOf(Sum->getLHS()) == Target && Uses == 2;
      if (SpelledTotal) {
        Visit(Sum->getRHS());
        return;
      }
      if (Target && !Assign->Compound) {
        Visit(Assign->Value);
        if (Read.contains(Target) && !Assigned.contains(Target))
          Carried.insert(Target);
        Assigned.insert(Target);
        return;
      }
      if (Target) {
        Visit(Assign->Value); // a running total
        return;
      }
    }
    // `std::swap(B, C)` of two variables kept across iterations: ping-pong
    // buffers.
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (Callee && Callee->getIdentifier() && Callee->getName() == "swap" &&
          Call->getNumArgs() == 2 && VariableOf(Call->getArg(0)) &&
          VariableOf(Call->getArg(1))) {
        Carried.insert(VariableOf(Call->getArg(0)));
        return;
      }
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(S);
        Unary && Unary->isIncrementDecrementOp()) {
      if (const VarDecl *Counter = VariableOf(Unary->getSubExpr())) {
        Incremented.insert(Counter);
        return;
      }
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const VarDecl *Var = VariableOf(Ref)) {
        Read.insert(Var);
        ReadBesidesIncrement.insert(Var);
      }
    for (const Stmt *Child : S->children())
      Visit(Child);
  };
  Visit(Body);
  if (!Carried.empty())
    return true;
  return llvm::any_of(Incremented, [&](const VarDecl *Counter) {
    return ReadBesidesIncrement.contains(Counter);
  });
}

/// True if each iteration of \p Loop works on other data, so that it is
/// the program's work rather than a repetition to time: the body reads the
/// counter or a range-for's element, carries values from one iteration to
/// the next, or the loop walks a sequence by storing a call's result into
/// what its condition tests (`while (batch) { ...; batch = loader.next(); }`).
bool iterationsDiffer(const Stmt *Loop) {
  if (bodyReadsCounter(Loop))
    return true;
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Loop))
    return Range->getBody() &&
           refersTo(Range->getBody(), Range->getLoopVariable());
  const Expr *Condition = loopCondition(Loop);
  const Stmt *Body = loopBody(Loop);
  if (!Condition || !Body)
    return false;
  if (carriesValuesAcrossIterations(Body))
    return true;
  llvm::SmallPtrSet<const VarDecl *, 4> Tested;
  walkStmt(Condition, [&](const Stmt &S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&S))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
        Tested.insert(Var);
    return WalkStep::Continue;
  });
  bool Walks = false;
  walkStmt(Body, [&](const Stmt &S) {
    std::optional<AssignmentParts> Assign = assignmentParts(S);
    if (!Assign || Assign->Compound)
      return WalkStep::Continue;
    const auto *Ref =
        dyn_cast<DeclRefExpr>(Assign->Target->IgnoreParenImpCasts());
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (Var && Tested.contains(Var) &&
        isa<CallExpr>(Assign->Value->IgnoreImplicit()->IgnoreParenImpCasts())) {
      Walks = true;
      return WalkStep::Stop;
    }
    return WalkStep::Continue;
  });
  return Walks;
}
} // namespace

bool namesResourceRelease(llvm::StringRef Name) {
  std::string Word;
  auto EndsReleaseWord = [&Word] {
    bool Release = llvm::is_contained(
        {"free", "dealloc", "deallocate", "destroy", "release", "cleanup",
         "teardown", "finalize", "shutdown"},
        llvm::StringRef(Word));
    Word.clear();
    return Release;
  };
  for (size_t I = 0; I < Name.size(); ++I) {
    bool WordEnds = Name[I] == '_' || (I > 0 && llvm::isUpper(Name[I]) &&
                                       llvm::isLower(Name[I - 1]));
    if (WordEnds && EndsReleaseWord())
      return true;
    if (Name[I] != '_')
      Word += llvm::toLower(Name[I]);
  }
  return EndsReleaseWord();
}

bool namesErrorCheck(llvm::StringRef Name) {
  std::string Lower = Name.lower();
  llvm::StringRef Text(Lower);
  return Text.contains("error") || Text.contains("assert") ||
         Text.contains("errchk") ||
         (Text.starts_with("check") &&
          (Text.contains("cuda") || Text.contains("err") ||
           Text.contains("state") || Text.contains("status")));
}

/// True if \p Name says it reads a property (`pixelCount`, `getSize`,
/// `num_rows`): an accessor, not a step.
bool namesAccessor(llvm::StringRef Name) {
  llvm::SmallVector<std::string, 4> Words = identifierWords(Name);
  return llvm::is_contained({"count", "size", "length", "width", "height",
                             "rows", "cols", "index", "id", "name", "dim",
                             "dims", "shape", "capacity"},
                            llvm::StringRef(Words.back()));
}

bool namesWorkFreeHelper(llvm::StringRef Name) {
  return namesResourceRelease(Name) || namesErrorCheck(Name) ||
         namesAccessor(Name);
}

bool UnseenFunctions::mayQueueDeviceWork(const FunctionDecl *Function) const {
  if (Collected) {
    Collected->push_back(Function);
    return false;
  }
  if (Facts)
    if (std::optional<bool> Known = Facts->queuesDeviceWork(Function))
      return *Known;
  // Unknown: it may launch, unless its name says it releases resources (a
  // teardown loop freeing per device through such calls is not a step loop)
  // or checks an error status.
  const IdentifierInfo *Id = Function->getIdentifier();
  return !Id || !namesWorkFreeHelper(Id->getName());
}

bool queuesDeviceWork(const Stmt *Body, ASTContext &Ctx,
                      const UnseenFunctions &Unseen) {
  DeviceWorkSearch Search{Ctx.getSourceManager(), Unseen};
  return queuesDeviceWork(Body, Search, 0);
}

bool readsTextInput(const Stmt *Loop) {
  const Expr *Condition = loopCondition(Loop);
  if (!Condition)
    return false;
  bool Reads = false;
  walkStmt(Condition, [&](const Stmt &S) {
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S);
        Op && Op->getOperator() == OO_GreaterGreater && Op->getNumArgs() == 2)
      if (const CXXRecordDecl *Stream =
              Op->getArg(0)->getType()->getAsCXXRecordDecl())
        Reads |= Stream->getName().contains("istream");
    if (const auto *Call = dyn_cast<CallExpr>(&S))
      if (const FunctionDecl *Callee = Call->getDirectCallee();
          Callee && Callee->getIdentifier())
        Reads |= llvm::is_contained(
            {"getline", "fgets", "fscanf", "scanf", "sscanf", "getdelim"},
            Callee->getName());
    return Reads ? WalkStep::Stop : WalkStep::Continue;
  });
  return Reads;
}

namespace {

/// True if \p Name counts or holds streams or devices (`num_streams`,
/// `streams_number`, `nDevices`, `gpus`), not steps of them
/// (`steps_per_device`).
bool namesStreamsOrDevices(llvm::StringRef Name) {
  llvm::SmallVector<std::string, 4> Words = identifierWords(Name);
  auto Is = [&](std::initializer_list<llvm::StringRef> Set) {
    return llvm::any_of(Words, [&](const std::string &Word) {
      return llvm::is_contained(Set, llvm::StringRef(Word));
    });
  };
  return Is({"stream", "streams", "nstreams", "device", "devices", "ndevices",
             "gpu", "gpus", "ngpus", "ndev"}) &&
         !Is({"step", "steps", "iter", "iters", "iteration", "iterations",
              "epoch", "epochs", "batch", "batches", "frame", "frames"});
}

/// A loop that runs once per stream or device: its condition's bound (or
/// the range it walks) is named for them. Work inside it is spread over
/// the streams, not repeated.
bool loopsOverStreamsOrDevices(const Stmt *Loop) {
  const Expr *Range = nullptr;
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    Range = For->getCond();
  else if (const auto *RangeFor = dyn_cast<CXXForRangeStmt>(Loop))
    Range = RangeFor->getRangeInit();
  if (!Range)
    return false;
  const VarDecl *Counter = loopCounter(Loop);
  return containsMatch<DeclRefExpr>(Range,
                                    [&](const DeclRefExpr &Ref) {
                                      return Ref.getDecl() != Counter &&
                                             Ref.getDecl()->getIdentifier() &&
                                             namesStreamsOrDevices(
                                                 Ref.getDecl()->getName());
                                    }) ||
         containsMatch<MemberExpr>(Range, [&](const MemberExpr &Member) {
           return Member.getMemberDecl()->getIdentifier() &&
                  namesStreamsOrDevices(Member.getMemberDecl()->getName());
         });
}

} // namespace

namespace {

/// True if a read-back in \p Loop decides whether it goes on.
bool runsUntilDeviceSaysDone(const Stmt *Loop, ASTContext &Ctx) {
  return containsMatch<CallExpr>(loopBody(Loop), [&](const CallExpr &Call) {
    return waitsForDevice(Call, Ctx) && !isBareWait(&Call) &&
           decidesLoopExit(&Call, Loop, Ctx);
  });
}

/// The functions \p Body calls, leaving out the standard library's and
/// operators (printing, containers), which say nothing about the work.
llvm::SmallPtrSet<const FunctionDecl *, 16> workCallees(const Stmt *Body) {
  llvm::SmallPtrSet<const FunctionDecl *, 16> Callees;
  walkStmt(Body, [&](const Stmt &S) {
    if (const auto *Call = dyn_cast<CallExpr>(&S))
      if (const FunctionDecl *Callee = Call->getDirectCallee();
          Callee && !Callee->isInStdNamespace() &&
          !Callee->isOverloadedOperator() && !readsClock(*Callee))
        Callees.insert(Callee->getCanonicalDecl());
    return WalkStep::Continue;
  });
  return Callees;
}

/// True if \p Loop times its work: its body reads a clock, or clock
/// readings frame it in its block.
bool timesItsWork(const Stmt *Loop, ASTContext &Ctx) {
  if (callsTimer(loopBody(Loop)))
    return true;
  const auto *Block = dyn_cast_or_null<CompoundStmt>(parentStmt(Loop, Ctx));
  if (!Block)
    return false;
  auto It = llvm::find(Block->body(), Loop);
  return It != Block->body().begin() && It != Block->body().end() &&
         callsTimer(*std::prev(It)) && std::next(It) != Block->body().end() &&
         callsTimer(*std::next(It));
}

/// True if \p Loop averages times after a warm-up: its body skips the first
/// iterations (`if (i < 2) continue;`) and adds up a value named as a
/// duration (`sum += time;`, `total_ms += elapsed`), a benchmark of the work
/// it repeats.
bool averagesTimesAfterWarmUp(const Stmt *Loop, ASTContext &Ctx) {
  const VarDecl *Counter = loopCounter(Loop);
  const auto *Body = dyn_cast_or_null<CompoundStmt>(loopBody(Loop));
  if (!Counter || !Body)
    return false;
  auto SkipsFirstIterations = [&](const Stmt *S) {
    const auto *If = dyn_cast<IfStmt>(S);
    if (!If || If->getElse())
      return false;
    const Stmt *Then = If->getThen();
    if (const auto *Block = dyn_cast<CompoundStmt>(Then);
        Block && Block->size() == 1)
      Then = Block->body_front();
    const auto *Compare =
        dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
    if (!isa<ContinueStmt>(Then) || !Compare ||
        !llvm::is_contained({BO_LT, BO_LE}, Compare->getOpcode()))
      return false;
    const auto *Ref =
        dyn_cast<DeclRefExpr>(Compare->getLHS()->IgnoreParenImpCasts());
    return Ref && Ref->getDecl() == Counter &&
           evaluateInt(Compare->getRHS(), Ctx).has_value();
  };
  auto NamesDuration = [](const ValueDecl *D) {
    if (!D || !D->getIdentifier())
      return false;
    llvm::StringRef Name = D->getName();
    return Name.contains_insensitive("time") ||
           Name.contains_insensitive("elapsed") ||
           Name.contains_insensitive("duration") ||
           Name.ends_with_insensitive("ms") || Name.ends_with_insensitive("us");
  };
  auto AddsUpDuration = [&](const Stmt *S) {
    const auto *Add =
        dyn_cast<CompoundAssignOperator>(cast<Expr>(S)->IgnoreImplicit());
    if (!Add || Add->getOpcode() != BO_AddAssign)
      return false;
    const auto *Ref =
        dyn_cast<DeclRefExpr>(Add->getRHS()->IgnoreParenImpCasts());
    return Ref && NamesDuration(Ref->getDecl());
  };
  bool Skips = false;
  for (const Stmt *S : Body->body()) {
    if (SkipsFirstIterations(S))
      Skips = true;
    else if (Skips && isa<Expr>(S) && AddsUpDuration(S))
      return true;
  }
  return false;
}

/// True if \p Loop warms up a measurement: one of the next few statements
/// of its block (or of the block around a bare `{ ... }` holding it) is a
/// loop that times its work and calls everything \p Loop calls (the same
/// inference or pipeline run untimed first, so that the timed runs see a
/// warm device).
bool warmsUpTimedLoop(const Stmt *Loop, ASTContext &Ctx) {
  if (timesItsWork(Loop, Ctx))
    return false;
  llvm::SmallPtrSet<const FunctionDecl *, 16> Warm = workCallees(Loop);
  if (Warm.empty())
    return false;
  auto SameWorkTimed = [&](const Stmt &S) {
    if (!isLoopStmt(&S) || !timesItsWork(&S, Ctx))
      return false;
    llvm::SmallPtrSet<const FunctionDecl *, 16> Timed = workCallees(&S);
    return llvm::all_of(
        Warm, [&](const FunctionDecl *F) { return Timed.contains(F); });
  };
  constexpr unsigned Window = 6;
  const Stmt *Child = Loop;
  for (unsigned Level = 0; Level < 2; ++Level) {
    const auto *Block = dyn_cast_or_null<CompoundStmt>(parentStmt(Child, Ctx));
    if (!Block)
      return false;
    auto It = llvm::find(Block->body(), Child);
    if (It == Block->body().end())
      return false;
    unsigned Seen = 0;
    for (auto Next = std::next(It);
         Next != Block->body().end() && Seen < Window; ++Next, ++Seen) {
      // A timed loop itself, or inside a bare block or scope guard's block.
      if (SameWorkTimed(**Next))
        return true;
      if (const auto *Inner = dyn_cast<CompoundStmt>(*Next))
        if (llvm::any_of(Inner->body(),
                         [&](const Stmt *S) { return SameWorkTimed(*S); }))
          return true;
    }
    // `{ InferenceMode guard; for (...) ...; }`: look past the bare block.
    if (!isa_and_nonnull<CompoundStmt>(parentStmt(Block, Ctx)))
      return false;
    Child = Block;
  }
  return false;
}

/// True if \p Loop reads its counter only to report progress
/// (`if ((run + 1) % 5 == 0) printf(...)`), or not at all.
bool printsToConsole(const CallExpr *Call);

bool readsCounterOnlyToLog(const Stmt *Loop) {
  const VarDecl *Counter = loopCounter(Loop);
  const Stmt *Body = loopBody(Loop);
  if (!Counter || !Body)
    return true;
  bool Beyond = false;
  walkStmt(Body, [&](const Stmt &S) {
    if (const auto *If = dyn_cast<IfStmt>(&S);
        If && !If->getElse() && branchLogs(If->getThen()))
      return WalkStep::SkipChildren;
    // `printf("completed trial %d\n", iter);`: progress printed.
    if (const auto *Call = dyn_cast<CallExpr>(&S);
        Call && printsToConsole(Call))
      return WalkStep::SkipChildren;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&S);
        Ref && Ref->getDecl() == Counter) {
      Beyond = true;
      return WalkStep::Stop;
    }
    return WalkStep::Continue;
  });
  return !Beyond;
}

/// True if \p Loop repeats the same work a fixed number of times and reads
/// a clock before and after it in each run, to average its time (a solver
/// run 50 times): a benchmark. Training epochs timed one by one are not.
bool timesEachRepetition(const Stmt *Loop, ASTContext &Ctx) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(loopBody(Loop));
  if (!Body || !constantTripCount(Loop, Ctx))
    return false;
  // The clock readings frame all of the iteration's device work.
  auto Statements = Body->body();
  auto First =
      llvm::find_if(Statements, [](const Stmt *S) { return callsTimer(S); });
  auto Last = std::find_if(std::make_reverse_iterator(Statements.end()),
                           std::make_reverse_iterator(Statements.begin()),
                           [](const Stmt *S) { return callsTimer(S); });
  if (First == Statements.end() || &*Last == &*First)
    return false;
  auto QueuesWork = [&](const Stmt *S) {
    return queuesDeviceWork(S, Ctx, UnseenFunctions{});
  };
  if (std::any_of(Statements.begin(), First, QueuesWork) ||
      std::any_of(std::make_reverse_iterator(Statements.end()), Last,
                  QueuesWork))
    return false;
  if (!readsCounterOnlyToLog(Loop) || carriesValuesAcrossIterations(Body))
    return false;
  return !trainsInLoop(Loop, Ctx.getSourceManager()) &&
         !runsUntilDeviceSaysDone(Loop, Ctx);
}

} // namespace

LoopRole classifyLoop(const Stmt *Loop, ASTContext &Ctx,
                      const ProjectFacts *Facts) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (!queuesDeviceWork(Loop, Ctx, UnseenFunctions{Facts}))
    return LoopRole::SetupOrTeardown;
  // Loading: each iteration parses the next record of a text input, unless
  // it also trains on it (one sample per line of a CSV file).
  if (readsTextInput(Loop) && !trainsInLoop(Loop, SM))
    return LoopRole::SetupOrTeardown;
  // One pass per stream or device fans work out once; a loop around it,
  // if any, is what repeats.
  if (loopsOverStreamsOrDevices(Loop))
    return LoopRole::SetupOrTeardown;
  if (isEvaluationPass(Loop, Ctx))
    return LoopRole::Evaluation;
  if (warmsUpTimedLoop(Loop, Ctx) || timesEachRepetition(Loop, Ctx) ||
      averagesTimesAfterWarmUp(Loop, Ctx))
    return LoopRole::TimingHarness;
  // A loop between two clock readings repeats its work to time it.
  const auto *Block = dyn_cast_or_null<CompoundStmt>(parentStmt(Loop, Ctx));
  if (!Block)
    return LoopRole::Steady;
  constexpr unsigned Window = 3;
  auto Body = Block->body();
  auto It = llvm::find(Body, Loop);
  if (It == Body.end())
    return LoopRole::Steady;
  bool TimedBefore = false, TimedAfter = false;
  unsigned Seen = 0;
  for (auto Before = It; Before != Body.begin() && Seen < Window; ++Seen)
    TimedBefore |= callsTimer(*--Before);
  Seen = 0;
  for (auto After = std::next(It); After != Body.end() && Seen < Window;
       ++After, ++Seen)
    TimedAfter |= callsTimer(*After);
  // A timed loop whose iterations differ is the algorithm being timed, and
  // so is one that runs until a value read back from the device says it is
  // done (a colouring or a solver to convergence), one that trains (a
  // training run timed as a whole), or one that reads new input on each
  // iteration (a video's frames processed and timed for a frame rate).
  return TimedBefore && TimedAfter && !iterationsDiffer(Loop) &&
                 !runsUntilDeviceSaysDone(Loop, Ctx) &&
                 !trainsInLoop(Loop, SM) && !readsNewInput(loopBody(Loop), Ctx)
             ? LoopRole::TimingHarness
             : LoopRole::Steady;
}

namespace {

const Expr *loopCondition(const Stmt *Loop) {
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    return For->getCond();
  if (const auto *While = dyn_cast<WhileStmt>(Loop))
    return While->getCond();
  if (const auto *Do = dyn_cast<DoStmt>(Loop))
    return Do->getCond();
  return nullptr;
}

/// The variable a host value lands in: `V = call`, `T V = call`, or the
/// destination `&V` / `V` of a copy into host memory; also a structured
/// binding assigned the value (`cls = cls.cpu()`).
const ValueDecl *readBackTarget(const CallExpr *Call, ASTContext &Ctx) {
  auto VariableOf = [](const Expr *E) -> const ValueDecl * {
    // A part of a host buffer (`Host + Offset`, `&Host[i]`).
    if (const VarDecl *Buffer = slicedBuffer(E))
      return Buffer;
    E = E ? E->IgnoreParenImpCasts() : nullptr;
    if (const auto *Unary = dyn_cast_or_null<UnaryOperator>(E);
        Unary && Unary->getOpcode() == UO_AddrOf)
      E = Unary->getSubExpr()->IgnoreParenImpCasts();
    // Host buffers: `V.data()`, `V.data` (an image's pixels), `&V[0]`.
    if (const auto *Data = dyn_cast_or_null<CXXMemberCallExpr>(E);
        Data && Data->getMethodDecl() &&
        Data->getMethodDecl()->getIdentifier() &&
        Data->getMethodDecl()->getName() == "data")
      E = Data->getImplicitObjectArgument()->IgnoreParenImpCasts();
    else if (const auto *Field = dyn_cast_or_null<MemberExpr>(E);
             Field && !Field->isArrow() &&
             isa<FieldDecl>(Field->getMemberDecl()) &&
             Field->getMemberDecl()->getIdentifier() &&
             Field->getMemberDecl()->getName() == "data")
      E = Field->getBase()->IgnoreParenImpCasts();
    else if (const auto *Element = dyn_cast_or_null<ArraySubscriptExpr>(E))
      E = Element->getBase()->IgnoreParenImpCasts();
    else if (const auto *Element = dyn_cast_or_null<CXXOperatorCallExpr>(E);
             Element && Element->getOperator() == OO_Subscript)
      E = Element->getArg(0)->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
        Ref && isa<VarDecl, BindingDecl>(Ref->getDecl()))
      return Ref->getDecl();
    // A buffer a struct holds (`params.h_out`, `host->active`).
    if (const auto *Member = dyn_cast_or_null<MemberExpr>(E);
        Member && isa<FieldDecl>(Member->getMemberDecl()))
      return Member->getMemberDecl();
    return nullptr;
  };
  // cudaMemcpy(&flag, dFlag, ...): the host destination is the first
  // argument.
  if (const FunctionDecl *Callee = Call->getDirectCallee();
      Callee && Callee->getIdentifier() &&
      Callee->getName().starts_with("cudaMemcpy") && Call->getNumArgs() > 0) {
    const Expr *Destination = Call->getArg(0)->IgnoreParenImpCasts();
    while (const auto *Cast = dyn_cast<ExplicitCastExpr>(Destination))
      Destination = Cast->getSubExpr()->IgnoreParenImpCasts();
    return VariableOf(Destination);
  }
  // cublasSasum(handle, n, x, 1, &sum): the last argument. What other CUDA
  // calls return is a status, not data from the device.
  if (std::optional<CudaApi> Api = identifyCudaCall(Call))
    return returnsCublasScalar(*Api) && Call->getNumArgs() > 0
               ? VariableOf(Call->getArg(Call->getNumArgs() - 1))
               : nullptr;
  const Stmt *Child = Call;
  for (const Stmt *P = parentStmt(Call, Ctx); P;
       Child = P, P = parentStmt(P, Ctx)) {
    if (const auto *Decl = dyn_cast<DeclStmt>(P)) {
      for (const auto *D : Decl->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D);
            Var && Var->getInit() && isWithin(Call, Var->getInit(), Ctx))
          return Var;
      return nullptr;
    }
    if (const auto *Assign = dyn_cast<BinaryOperator>(P)) {
      if (Assign->getOpcode() == BO_Assign && Child == Assign->getRHS())
        return VariableOf(Assign->getLHS());
      if (!Assign->isComparisonOp() && !Assign->isAdditiveOp() &&
          !Assign->isMultiplicativeOp())
        return nullptr;
      continue;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P)) {
      if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
          Child == Op->getArg(1))
        return VariableOf(Op->getArg(0));
      continue;
    }
    if (isa<Expr>(P))
      continue;
    return nullptr;
  }
  return nullptr;
}

/// readBackTarget when it is a variable (what the termination and feedback
/// rules follow through the loop).
const VarDecl *readBackDestination(const CallExpr *Call, ASTContext &Ctx) {
  return dyn_cast_or_null<VarDecl>(readBackTarget(Call, Ctx));
}

bool refersTo(const Stmt *S, const VarDecl *Var) {
  if (!S)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S);
      Ref && Ref->getDecl()->getCanonicalDecl() == Var->getCanonicalDecl())
    return true;
  for (const Stmt *Child : S->children())
    if (refersTo(Child, Var))
      return true;
  return false;
}

/// True if \p S leaves the loop it is in (break, return, goto) or assigns a
/// variable \p Condition reads, outside nested loops and switches.
bool leavesOrStops(const Stmt *S, const Expr *Condition) {
  if (!S)
    return false;
  if (isa<BreakStmt>(S) || isa<ReturnStmt>(S) || isa<GotoStmt>(S) ||
      isa<CXXThrowExpr>(S))
    return true;
  // A call that does not return (exit(), a failed TORCH_CHECK).
  if (const auto *Call = dyn_cast<CallExpr>(S);
      Call && Call->getDirectCallee() && Call->getDirectCallee()->isNoReturn())
    return true;
  if (const auto *Assign = dyn_cast<BinaryOperator>(S);
      Assign && Assign->isAssignmentOp() && Condition)
    if (const auto *Ref =
            dyn_cast<DeclRefExpr>(Assign->getLHS()->IgnoreParenImpCasts()))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
          Var && refersTo(Condition, Var))
        return true;
  if (isLoopStmt(S) || isa<SwitchStmt>(S))
    return false;
  for (const Stmt *Child : S->children())
    if (leavesOrStops(Child, Condition))
      return true;
  return false;
}

/// True if an `if` in \p Body whose condition satisfies \p Reads leaves the
/// loop or stops it.
template <typename Predicate>
bool exitDecidedBy(const Stmt *Body, const Expr *LoopCondition,
                   Predicate Reads) {
  if (!Body || isLoopStmt(Body))
    return false;
  if (const auto *If = dyn_cast<IfStmt>(Body);
      If && Reads(If->getCond()) &&
      (leavesOrStops(If->getThen(), LoopCondition) ||
       leavesOrStops(If->getElse(), LoopCondition)))
    return true;
  for (const Stmt *Child : Body->children())
    if (exitDecidedBy(Child, LoopCondition, Reads))
      return true;
  return false;
}


} // namespace

/// \p Source and the variables \p Body computes from it, transitively: a
/// residual read into a host array, reduced to its maximum, which sets the
/// time step that advances the time the loop's condition tests. A value
/// stored through a pointer variable (`*infnorm = max;`, an output
/// parameter) is held by that pointer.
/// True if \p Value is the status code a CUDA library call returns (an
/// enumeration, such as cudaError_t or cublasStatus_t, from a function
/// whose name starts with "cu").
bool returnsCudaStatus(const Expr *Value) {
  const auto *Call =
      Value ? dyn_cast<CallExpr>(Value->IgnoreParenImpCasts()) : nullptr;
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  return Callee && Callee->getIdentifier() &&
         Callee->getName().starts_with("cu") &&
         Call->getType()->isEnumeralType();
}

llvm::SmallPtrSet<const VarDecl *, 4> valuesDerivedFrom(const VarDecl *Source,
                                                         const Stmt *Body) {
  llvm::SmallVector<std::pair<const VarDecl *, const Stmt *>, 16> Assignments;
  walkStmt(
      Body,
      [&](const Stmt &S) {
        std::optional<AssignmentParts> Assign = assignmentParts(S);
        if (!Assign)
          return WalkStep::Continue;
        const Expr *Target = Assign->Target->IgnoreParenImpCasts();
        if (const auto *Deref = dyn_cast<UnaryOperator>(Target);
            Deref && Deref->getOpcode() == UO_Deref)
          Target = Deref->getSubExpr()->IgnoreParenImpCasts();
        if (const auto *Ref = dyn_cast<DeclRefExpr>(Target))
          if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
            Assignments.emplace_back(Var, Assign->Value);
        return WalkStep::Continue;
      },
      [&](const Decl &D) {
        if (const auto *Var = dyn_cast<VarDecl>(&D))
          if (const Expr *Init = Var->getInit())
            Assignments.emplace_back(Var, Init);
        return WalkStep::Continue;
      });
  // Host values only: a tensor computed with the value (the boxes left
  // after suppressing those that overlap the box read back) lives on the
  // device, and what it decides is decided there. The status a CUDA
  // library call returns (`cudaError_t st = cudaMemcpy(h, d, ...)` in a
  // checking macro) says whether the call worked, not what it copied.
  llvm::erase_if(Assignments, [](const auto &Assignment) {
    return isTensorType(Assignment.first->getType()) ||
           returnsCudaStatus(dyn_cast<Expr>(Assignment.second));
  });
  llvm::SmallPtrSet<const VarDecl *, 4> Derived{Source};
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const auto &[Var, Value] : Assignments)
      if (!Derived.contains(Var) &&
          llvm::any_of(Derived, [&, Value = Value](const VarDecl *From) {
            return refersTo(Value, From);
          }))
        Changed |= Derived.insert(Var).second;
  }
  return Derived;
}

namespace {

/// True if \p Call only shows a value to a person: a stream insertion into
/// std::cout, std::cerr or std::clog, or a print or logging call (not a
/// write to a file).
bool printsToConsole(const CallExpr *Call) {
  if (!writesOutput(Call))
    return false;
  if (const auto *Insertion = dyn_cast<CXXOperatorCallExpr>(Call)) {
    const Expr *Root = Insertion->getArg(0)->IgnoreParenImpCasts();
    while (const auto *Inner = dyn_cast<CXXOperatorCallExpr>(Root)) {
      if (Inner->getOperator() != OO_LessLess || Inner->getNumArgs() != 2)
        break;
      Root = Inner->getArg(0)->IgnoreParenImpCasts();
    }
    const auto *Stream = dyn_cast<DeclRefExpr>(Root);
    return Stream && Stream->getDecl()->getIdentifier() &&
           llvm::is_contained({"cout", "cerr", "clog"},
                              Stream->getDecl()->getName());
  }
  const FunctionDecl *Callee = Call->getDirectCallee();
  return !Callee || !Callee->getIdentifier() ||
         !llvm::is_contained({"fwrite", "fputs", "fprintf"}, Callee->getName());
}

/// True if \p Callee gives memory back (`free(host)` after printing from
/// it): releasing a buffer does not read what was copied into it.
bool releasesMemory(const FunctionDecl *Callee) {
  return Callee->getIdentifier() &&
         llvm::is_contained({"free", "cudaFreeHost", "cudaFree",
                             "cudaHostUnregister", "cudaFreeAsync"},
                            Callee->getName());
}

/// True if the LibTorch call \p Call hands a tensor's host memory to host
/// code (`data_ptr`, `accessor`, `item`): other LibTorch operations could
/// as well run on the device.
bool exposesHostData(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  return Callee && Callee->getIdentifier() &&
         llvm::is_contained({"data_ptr", "data", "accessor", "item",
                             "const_data_ptr", "mutable_data_ptr"},
                            Callee->getName());
}

/// True if \p Target, the left side of an assignment, is memory rather than
/// a variable: a member, an element, or what a pointer points at.
bool storesIntoMemory(const Expr *Target) {
  Target = Target->IgnoreParenImpCasts();
  if (const auto *Deref = dyn_cast<UnaryOperator>(Target))
    return Deref->getOpcode() == UO_Deref;
  return isa<MemberExpr, ArraySubscriptExpr>(Target);
}

/// True if \p Target and \p Use index the same named buffer (`host[0]`
/// and `host[i]`).
bool sameBuffer(const Expr *Target, const Expr *Use) {
  auto BufferOf = [](const Expr *E) -> const ValueDecl * {
    E = E->IgnoreParenImpCasts();
    while (const auto *Element = dyn_cast<ArraySubscriptExpr>(E))
      E = Element->getBase()->IgnoreParenImpCasts();
    const auto *Ref = dyn_cast<DeclRefExpr>(E);
    return Ref ? Ref->getDecl() : nullptr;
  };
  const ValueDecl *Buffer = BufferOf(Target);
  return Buffer && Buffer == BufferOf(Use);
}

/// True if host code other than a print, a LibTorch operation or an
/// overwrite takes the value \p Use refers to (or an element of it): it is
/// returned, handed to a function of the program or of a non-LibTorch
/// library (OpenCV, the C++ library), written to a file, or, with
/// \p StoreConsumes, stored in a variable or in host memory that outlives
/// the statement (`box->x = minw[i]`, `out[i] = ...`, `*result = ...`).
bool consumesOnHost(const Expr *Use, bool StoreConsumes, ASTContext &Ctx) {
  const Stmt *Child = Use;
  for (const Stmt *P = parentStmt(Use, Ctx); P;
       Child = P, P = parentStmt(P, Ctx)) {
    if (isa<ReturnStmt>(P))
      return true;
    // An element read (`host[i]`) is consumed by what takes the element.
    if (isa<ArraySubscriptExpr>(P))
      continue;
    if (isa<DeclStmt>(P))
      return StoreConsumes;
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(P);
        Cast && Cast->getType()->isVoidType())
      return false;
    if (const auto *Assign = dyn_cast<BinaryOperator>(P);
        Assign && Assign->isAssignmentOp()) {
      if (Child == Assign->getLHS())
        return false;
      // Summed into an element of its own buffer (`host[0] += host[i]`),
      // the value is still the host's to use, not handed on.
      if (StoreConsumes && storesIntoMemory(Assign->getLHS()) &&
          !sameBuffer(Assign->getLHS(), Use))
        return true;
    }
    if (const auto *Call = dyn_cast<CallExpr>(P)) {
      if (printsToConsole(Call))
        return false;
      if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
          Member && Member->getImplicitObjectArgument() &&
          Member->getImplicitObjectArgument()
                  ->IgnoreImplicit()
                  ->IgnoreParens() == Use->IgnoreImplicit()->IgnoreParens()) {
        const CXXMethodDecl *Method = Member->getMethodDecl();
        if (Method && isInLibTorch(Method))
          return exposesHostData(Call);
        return true;
      }
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call)) {
        if (Operator->getOperator() == OO_Equal && Child == Call->getArg(0))
          return false; // overwritten
        if (Operator->getOperator() == OO_LessLess)
          return true; // into a file
        if (Operator->getOperator() == OO_Subscript)
          return !(Callee && isInLibTorch(Callee));
      }
      if (!Callee || isInLibTorch(Callee) || releasesMemory(Callee))
        return false;
      // The destination of another copy is overwritten, not read.
      if (Callee->getIdentifier() &&
          Callee->getName().starts_with("cudaMemcpy") && Call->getNumArgs() &&
          Call->getArg(0)->IgnoreParenImpCasts() ==
              cast<Expr>(Child)->IgnoreParenImpCasts())
        return false;
      return true;
    }
    if (!isa<Expr>(P))
      return false;
  }
  return false;
}

} // namespace

bool readsNewInput(const Stmt *Scope, ASTContext &Ctx) {
  auto IsSourceClass = [](QualType Type) {
    const CXXRecordDecl *Class =
        Type.getNonReferenceType()->getAsCXXRecordDecl();
    if (!Class || !Class->getIdentifier())
      return false;
    llvm::StringRef Name = Class->getName();
    return Name.contains_insensitive("stream") ||
           Name.contains_insensitive("capture") ||
           Name.contains_insensitive("reader") ||
           Name.contains_insensitive("camera");
  };
  auto IsRead = [&](const CallExpr &Call) {
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call))
      return Op->getOperator() == OO_GreaterGreater && Op->getNumArgs() == 2 &&
             IsSourceClass(Op->getArg(0)->getType());
    const FunctionDecl *Callee = Call.getDirectCallee();
    if (!Callee || !Callee->getIdentifier())
      return false;
    llvm::StringRef Name = Callee->getName();
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
      return (Name.starts_with("read") ||
              llvm::is_contained({"grab", "retrieve"}, Name)) &&
             IsSourceClass(Member->getImplicitObjectArgument()->getType());
    return llvm::is_contained({"fread", "getline", "fgets", "recv", "imread"},
                              Name);
  };
  // In the body, or in the condition of the loop whose body it is
  // (`while (cap.read(frame))`).
  const Stmt *Loop = parentStmt(Scope, Ctx);
  const Expr *Condition =
      Loop && isLoopStmt(Loop) ? loopCondition(Loop) : nullptr;
  return containsMatch<CallExpr>(Scope, IsRead) ||
         (Condition && containsMatch<CallExpr>(Condition, IsRead));
}

bool streamsNewInput(const Stmt *Scope, ASTContext &Ctx) {
  constexpr int64_t HostToDevice = 1; // cudaMemcpyHostToDevice
  return readsNewInput(Scope, Ctx) &&
         containsMatch<CallExpr>(Scope, [&](const CallExpr &Call) {
           std::optional<CudaApi> Api = identifyCudaCall(&Call);
           if (!Api || !isCopy(*Api))
             return false;
           return llvm::any_of(Call.arguments(), [&](const Expr *Arg) {
             const auto *Kind =
                 dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts());
             return Kind && isa<EnumConstantDecl>(Kind->getDecl()) &&
                    evaluateInt(Arg, Ctx) == HostToDevice;
           });
         });
}

bool copiesFewBytes(const CallExpr *Copy, ASTContext &Ctx) {
  std::optional<CudaApi> Api = identifyCudaCall(Copy);
  if (!Api || !(*Api == CudaApi::Memcpy || isAsyncCopy(*Api)) ||
      Copy->getNumArgs() < 3)
    return false;
  std::optional<int64_t> Bytes = evaluateInt(Copy->getArg(2), Ctx);
  constexpr int64_t ScalarBytes = 16;
  return Bytes && *Bytes <= ScalarBytes;
}

bool consumesCopiedOutput(const CallExpr *Copy, const Stmt *Scope,
                          ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::DenseSet<const FunctionDecl *> Visited;
  if (!Scope || takesTrainingStep(Scope, SM, Visited, 0))
    return false;
  const bool FewBytes = copiesFewBytes(Copy, Ctx);
  // The result of a frame or block of new input: what the loop is for.
  if (!FewBytes && identifyCudaCall(Copy) && streamsNewInput(Scope, Ctx))
    return true;
  // A LibTorch copy handed on in the same expression (returned,
  // `ToCvImage(mask.cpu())`), else the host memory it fills, used after it
  // in the same iteration (or call).
  if (!FewBytes && identifyTorchCall(Copy) &&
      consumesOnHost(Copy, /*StoreConsumes=*/false, Ctx))
    return true;
  const ValueDecl *Destination = readBackTarget(Copy, Ctx);
  if (!Destination)
    return false;
  // A use of the destination variable, or of the field (of any object)
  // when the copy lands in a struct's buffer. Returning a member's buffer
  // (`return y_;`) hands out what the object keeps anyway: not a use.
  auto Names = [&](const Expr &Use, const ValueDecl *Target) {
    const ValueDecl *Named = nullptr;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&Use))
      Named = Ref->getDecl();
    else if (const auto *Member = dyn_cast<MemberExpr>(&Use)) {
      const Stmt *Consumer = parentStmt(&Use, Ctx);
      while (isa_and_nonnull<ImplicitCastExpr, ParenExpr>(Consumer))
        Consumer = parentStmt(Consumer, Ctx);
      if (isa_and_nonnull<ReturnStmt>(Consumer))
        return false;
      Named = Member->getMemberDecl();
    }
    return Named && Named->getCanonicalDecl() == Target->getCanonicalDecl();
  };
  auto After = [&](const Stmt &S) {
    return SM.isBeforeInTranslationUnit(Copy->getEndLoc(), S.getBeginLoc()) &&
           !isWithin(&S, Copy, Ctx);
  };
  if (FewBytes) {
    // A copy of a few bytes brings a scalar back (an energy for a running
    // sum): a value read, not the product of the iteration. Unless it is the
    // number of results the host then walks, taking each from the buffer of
    // another copy-back (`for (i < count) lines.push_back(Line(h[i]))`).
    auto TakesOtherResult = [&](const Expr &Use) {
      const auto *Element = dyn_cast<ArraySubscriptExpr>(&Use);
      if (!Element)
        return false;
      return containsMatch<CallExpr>(Scope, [&](const CallExpr &Other) {
        const ValueDecl *Results = &Other != Copy && identifyCudaCall(&Other)
                                       ? readBackTarget(&Other, Ctx)
                                       : nullptr;
        return Results && Results != Destination &&
               containsMatch<Expr>(
                   Element->getBase(),
                   [&](const Expr &Base) { return Names(Base, Results); }) &&
               consumesOnHost(Element, /*StoreConsumes=*/true, Ctx);
      });
    };
    return containsMatch<Stmt>(Scope, [&](const Stmt &Walk) {
      const Expr *Bound = isLoopStmt(&Walk) ? loopCondition(&Walk) : nullptr;
      return Bound && After(Walk) &&
             containsMatch<Expr>(
                 Bound, [&](const Expr &E) { return Names(E, Destination); }) &&
             containsMatch<Expr>(loopBody(&Walk), TakesOtherResult);
    });
  }
  return containsMatch<Expr>(Scope, [&](const Expr &Use) {
    return Names(Use, Destination) && After(Use) &&
           consumesOnHost(&Use, /*StoreConsumes=*/true, Ctx);
  });
}

namespace {

/// True if \p Value is streamed into a file: an operand of a `<<` chain on
/// an output stream other than std::cout, std::cerr and std::clog, or an
/// argument of fprintf, fputs or fwrite on a FILE other than stdout and
/// stderr.
bool streamedToFile(const Expr *Value, ASTContext &Ctx) {
  const Stmt *P = parentStmt(Value, Ctx);
  while (P && (isa<ImplicitCastExpr>(P) || isa<ParenExpr>(P) ||
               isa<ExprWithCleanups>(P) || isa<MaterializeTemporaryExpr>(P) ||
               isa<CXXFunctionalCastExpr>(P) || isa<CStyleCastExpr>(P)))
    P = parentStmt(P, Ctx);
  const auto *Call = dyn_cast_or_null<CallExpr>(P);
  if (!Call || !writesOutput(Call) || printsToConsole(Call))
    return false;
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (isa<CXXOperatorCallExpr>(Call))
    return true;
  if (!Callee || !Callee->getIdentifier() ||
      !llvm::is_contained({"fprintf", "fputs", "fwrite"}, Callee->getName()))
    return false;
  // The FILE is fprintf's first argument, fputs' and fwrite's last.
  const Expr *File = Callee->getName() == "fprintf"
                         ? Call->getArg(0)
                         : Call->getArg(Call->getNumArgs() - 1);
  const auto *Ref = dyn_cast<DeclRefExpr>(File->IgnoreParenImpCasts());
  return !Ref || !Ref->getDecl()->getIdentifier() ||
         !llvm::is_contained({"stdout", "stderr"}, Ref->getDecl()->getName());
}

} // namespace

bool writesReadBackToFile(const CallExpr *ReadBack, const Stmt *Scope,
                          ASTContext &Ctx) {
  std::optional<TorchCall> Read = identifyTorchCall(ReadBack);
  if (!Scope || !Read || Read->Op != TorchOp::Item || !Read->Subject)
    return false;
  const auto *Tensor =
      dyn_cast<DeclRefExpr>(Read->Subject->IgnoreParenImpCasts());
  if (!Tensor)
    return false;
  llvm::DenseSet<const FunctionDecl *> Visited;
  if (takesTrainingStep(Scope, Ctx.getSourceManager(), Visited, 0))
    return false;
  return containsMatch<CallExpr>(Scope, [&](const CallExpr &Call) {
    std::optional<TorchCall> Other = identifyTorchCall(&Call);
    if (!Other || Other->Op != TorchOp::Item || !Other->Subject)
      return false;
    const auto *Ref =
        dyn_cast<DeclRefExpr>(Other->Subject->IgnoreParenImpCasts());
    return Ref && Ref->getDecl() == Tensor->getDecl() &&
           streamedToFile(&Call, Ctx);
  });
}

namespace {

/// True if \p Call runs a model: a LibTorch module called or its forward(),
/// a TorchScript module's forward(), or a function of the program that
/// returns what one of those computes (`network->predict(s)`).
bool runsModel(const CallExpr *Call, unsigned Depth = 0) {
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
      Operator && Operator->getOperator() == OO_Call &&
      Operator->getNumArgs() && isModuleType(Operator->getArg(0)->getType()))
    return true;
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->getIdentifier())
    return false;
  if (const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
      Method &&
      llvm::is_contained({"forward", "run_method"}, Method->getName()))
    return isModuleType(QualType(Method->getParent()->getTypeForDecl(), 0)) ||
           isInLibTorch(Method);
  const FunctionDecl *Definition = Callee->getDefinition();
  if (Depth >= 2 || isInLibTorch(Callee) || !Definition ||
      !Definition->hasBody())
    return false;
  return containsMatch<ReturnStmt>(
      Definition->getBody(), [&](const ReturnStmt &Return) {
        return Return.getRetValue() &&
               containsMatch<CallExpr>(Return.getRetValue(),
                                       [&](const CallExpr &Inner) {
                                         return runsModel(&Inner, Depth + 1);
                                       });
      });
}

/// True if \p Value is computed from what a model run within \p Scope
/// returned: through tensor and IValue operations (`pred[1][0]`,
/// `outputs->elements()[0].toTensor()`, `output.argmax(1)`) and local
/// variables.
bool computedFromModelOutput(const Expr *Value, const Stmt *Scope,
                             llvm::SmallPtrSetImpl<const VarDecl *> &Visited,
                             ASTContext &Ctx) {
  Value = Value->IgnoreImplicit()->IgnoreParens();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Value);
      Construct && Construct->getNumArgs() == 1)
    return computedFromModelOutput(Construct->getArg(0), Scope, Visited, Ctx);
  if (const auto *Call = dyn_cast<CallExpr>(Value)) {
    if (runsModel(Call))
      return isWithin(Call, Scope, Ctx);
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
      return Member->getImplicitObjectArgument() &&
             computedFromModelOutput(Member->getImplicitObjectArgument(), Scope,
                                     Visited, Ctx);
    if (isa<CXXOperatorCallExpr>(Call))
      return Call->getNumArgs() &&
             computedFromModelOutput(Call->getArg(0), Scope, Visited, Ctx);
    const FunctionDecl *Callee = Call->getDirectCallee();
    return Callee && isInLibTorch(Callee) && Call->getNumArgs() &&
           computedFromModelOutput(Call->getArg(0), Scope, Visited, Ctx);
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(Value);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !Var->isLocalVarDecl() || !Visited.insert(Var).second)
    return false;
  if (Var->getInit() &&
      computedFromModelOutput(Var->getInit(), Scope, Visited, Ctx))
    return true;
  return containsMatch<BinaryOperator>(
             Scope,
             [&](const BinaryOperator &Op) {
               const auto *Target =
                   dyn_cast<DeclRefExpr>(Op.getLHS()->IgnoreParenImpCasts());
               return Op.getOpcode() == BO_Assign && Target &&
                      Target->getDecl() == Var &&
                      computedFromModelOutput(Op.getRHS(), Scope, Visited, Ctx);
             }) ||
         containsMatch<CXXOperatorCallExpr>(
             Scope, [&](const CXXOperatorCallExpr &Op) {
               const auto *Target =
                   Op.getNumArgs() == 2
                       ? dyn_cast<DeclRefExpr>(
                             Op.getArg(0)->IgnoreParenImpCasts())
                       : nullptr;
               return Op.getOperator() == OO_Equal && Target &&
                      Target->getDecl() == Var &&
                      computedFromModelOutput(Op.getArg(1), Scope, Visited,
                                              Ctx);
             });
}

bool computedFromModelOutput(const Expr *Value, const Stmt *Scope,
                             ASTContext &Ctx) {
  llvm::SmallPtrSet<const VarDecl *, 8> Visited;
  return computedFromModelOutput(Value, Scope, Visited, Ctx);
}

/// The expression that holds the value \p Read reads once conversions of
/// it are applied (`item().toDouble()`, `static_cast<int>(...)`).
const Expr *convertedRead(const Expr *Read, ASTContext &Ctx) {
  const Expr *Value = Read;
  for (const Stmt *P = parentStmt(Value, Ctx); P; P = parentStmt(P, Ctx)) {
    if (isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr,
            CXXBindTemporaryExpr, ExprWithCleanups, CXXFunctionalCastExpr,
            CXXStaticCastExpr, CStyleCastExpr>(P)) {
      Value = cast<Expr>(P);
      continue;
    }
    // c10::Scalar's conversions (`toDouble()`, `to<int>()`).
    if (isa<MemberExpr>(P)) {
      const auto *Member =
          dyn_cast_or_null<CXXMemberCallExpr>(parentStmt(P, Ctx));
      if (Member && Member->getCallee() == P && Member->getMethodDecl() &&
          isNamed(Member->getMethodDecl()->getParent(), "Scalar")) {
        Value = Member;
        P = Member;
        continue;
      }
    }
    break;
  }
  return Value;
}

/// True if \p Use hands the value on to host code (see consumesOnHost), and
/// is not a running sum (`total += v`), which could stay on the device.
bool handsValueToHost(const Expr *Use, ASTContext &Ctx) {
  const Stmt *P = parentStmt(Use, Ctx);
  while (isa_and_nonnull<ImplicitCastExpr, ParenExpr>(P))
    P = parentStmt(P, Ctx);
  if (isa_and_nonnull<CompoundAssignOperator>(P))
    return false;
  return consumesOnHost(Use, /*StoreConsumes=*/true, Ctx);
}

} // namespace

bool readsModelResultForHost(const CallExpr *Read, const Stmt *Scope,
                             ASTContext &Ctx) {
  std::optional<TorchCall> Item = identifyTorchCall(Read);
  if (!Scope || !Item || Item->Op != TorchOp::Item || !Item->Subject)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::DenseSet<const FunctionDecl *> Visited;
  if (takesTrainingStep(Scope, SM, Visited, 0))
    return false;
  // Once per iteration: not inside a loop of its own (one element per
  // detection is read the wrong way), and the only result read here.
  for (const Stmt *P = parentStmt(Read, Ctx); P && P != Scope;
       P = parentStmt(P, Ctx))
    if (isLoopStmt(P))
      return false;
  if (!computedFromModelOutput(Item->Subject, Scope, Ctx))
    return false;
  if (containsMatch<CallExpr>(Scope, [&](const CallExpr &Other) {
        std::optional<TorchCall> OtherItem = identifyTorchCall(&Other);
        return &Other != Read && OtherItem && OtherItem->Op == TorchOp::Item &&
               OtherItem->Subject &&
               computedFromModelOutput(OtherItem->Subject, Scope, Ctx);
      }))
    return false;
  // Handed on directly (returned, passed to the program's search), or kept
  // in a variable that host code then takes.
  const Expr *Value = convertedRead(Read, Ctx);
  const Stmt *Holder = parentStmt(Value, Ctx);
  const VarDecl *Kept = nullptr;
  if (const auto *Decl = dyn_cast_or_null<DeclStmt>(Holder);
      Decl && Decl->isSingleDecl())
    Kept = dyn_cast<VarDecl>(Decl->getSingleDecl());
  else if (const auto *Assign = dyn_cast_or_null<BinaryOperator>(Holder);
           Assign && Assign->getOpcode() == BO_Assign &&
           Assign->getRHS()->IgnoreParenImpCasts() ==
               Value->IgnoreParenImpCasts())
    if (const auto *Target =
            dyn_cast<DeclRefExpr>(Assign->getLHS()->IgnoreParenImpCasts()))
      Kept = dyn_cast<VarDecl>(Target->getDecl());
  if (!Kept)
    return handsValueToHost(Value, Ctx);
  return containsMatch<DeclRefExpr>(Scope, [&](const DeclRefExpr &Use) {
    return Use.getDecl() == Kept &&
           SM.isBeforeInTranslationUnit(Read->getEndLoc(), Use.getBeginLoc()) &&
           handsValueToHost(&Use, Ctx);
  });
}

bool feedsLoopUpload(const CallExpr *ReadBack, const Stmt *Loop,
                     DeviceInference &Devices, ASTContext &Ctx) {
  const VarDecl *Destination = readBackDestination(ReadBack, Ctx);
  if (!Destination || !isLoopStmt(Loop))
    return false;
  llvm::SmallPtrSet<const VarDecl *, 4> Derived =
      valuesDerivedFrom(Destination, loopBody(Loop));
  auto FromDerived = [&](const Expr *Source) {
    return Source && llvm::any_of(Derived, [&](const VarDecl *Var) {
             return refersTo(Source, Var);
           });
  };
  return containsMatch<CallExpr>(Loop, [&](const CallExpr &Call) {
    if (&Call == ReadBack)
      return false;
    // A move to the device, wherever the run puts it (`to(device)` with
    // `device` chosen at run time), or a CUDA copy to the device.
    if (std::optional<TorchCall> Torch = identifyTorchCall(&Call))
      return (Torch->Op == TorchOp::To || Torch->Op == TorchOp::Cuda) &&
             FromDerived(Torch->Subject);
    std::optional<Hazard> Upload = classifyHazard(&Call, Devices);
    return Upload && Upload->Kind == HazardKind::HostToDeviceCopy &&
           FromDerived(Upload->Subject);
  });
}

namespace {

/// True if \p Branch ends by leaving the function: `return`, `throw`, or a
/// call that does not return (`exit(1)`).
bool leavesFunction(const Stmt *Branch) {
  if (const auto *Block = dyn_cast_or_null<CompoundStmt>(Branch))
    return !Block->body_empty() && leavesFunction(Block->body_back());
  if (isa_and_nonnull<ReturnStmt, CXXThrowExpr>(Branch))
    return true;
  const auto *Call = dyn_cast_or_null<CallExpr>(Branch);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  return Callee && Callee->isNoReturn();
}

/// True if \p S tests or reports a CUDA error: it names cudaSuccess or a
/// cudaError_t value, calls cudaGetErrorString, throws, or writes to
/// stderr.
bool handlesCudaError(const Stmt *S) {
  return containsMatch<Stmt>(S, [](const Stmt &Node) {
    if (isa<CXXThrowExpr>(Node))
      return true;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&Node)) {
      const ValueDecl *D = Ref->getDecl();
      if (D->getIdentifier() &&
          (D->getName() == "cudaSuccess" || D->getName() == "stderr" ||
           D->getName() == "cerr"))
        return true;
      const auto *Enum = D->getType()->getAs<EnumType>();
      return Enum && Enum->getDecl()->getIdentifier() &&
             Enum->getDecl()->getName() == "cudaError";
    }
    const auto *Call = dyn_cast<CallExpr>(&Node);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    return Callee && Callee->getIdentifier() &&
           Callee->getName() == "cudaGetErrorString";
  });
}

/// `if (st != cudaSuccess) { cudaFree(d); return st; }`: a check that
/// reports a CUDA error and leaves the function.
bool isCudaErrorExit(const IfStmt *If) {
  return leavesFunction(If->getThen()) &&
         (handlesCudaError(If->getCond()) || handlesCudaError(If->getThen()));
}

/// `if (status) printf("Error %s", cudaGetErrorString(status));`: a check
/// that only reports a CUDA error and queues no work.
bool isCudaErrorReport(const IfStmt *If, ASTContext &Ctx) {
  return handlesCudaError(If->getCond()) && branchLogs(If->getThen()) &&
         !queuesDeviceWork(If->getThen(), Ctx, UnseenFunctions{});
}

} // namespace

bool isOnErrorPath(const Stmt *S, ASTContext &Ctx) {
  // A branch that ends the program or fails a check (`exit(1)`, the
  // message of a TORCH_CHECK) runs at most once.
  auto EndsInNoReturnCall = [](const Stmt *Branch) {
    if (const auto *Block = dyn_cast_or_null<CompoundStmt>(Branch))
      Branch = Block->body_empty() ? nullptr : Block->body_back();
    if (const auto *E = dyn_cast_or_null<Expr>(Branch))
      Branch = E->IgnoreImplicit();
    const auto *Call = dyn_cast_or_null<CallExpr>(Branch);
    return Call && Call->getDirectCallee() &&
           Call->getDirectCallee()->isNoReturn();
  };
  const Stmt *Child = S;
  for (const Stmt *P = parentStmt(S, Ctx); P && !isLoopStmt(P);
       Child = P, P = parentStmt(P, Ctx))
    if (const auto *If = dyn_cast<IfStmt>(P);
        If && Child == If->getThen() &&
        (isCudaErrorExit(If) || EndsInNoReturnCall(If->getThen())))
      return true;
  return false;
}

namespace {
bool decidesExitOf(const CallExpr *ReadBack, const Stmt *Loop,
                   const Stmt *DerivationScope, ASTContext &Ctx);
} // namespace

bool decidesLaterLoopExit(const CallExpr *ReadBack, const Stmt *Loop,
                          ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  // The value reaches the later loop's test through what the enclosing
  // iteration computes from it before that loop (a norm summed from
  // per-block partial sums, then divided into the solve's residual).
  return containsMatch<Stmt>(loopBody(Loop), [&](const Stmt &Later) {
    return isLoopStmt(&Later) && !isNeverRepeated(&Later, Ctx) &&
           !isWithin(ReadBack, &Later, Ctx) &&
           SM.isBeforeInTranslationUnit(ReadBack->getEndLoc(),
                                        Later.getBeginLoc()) &&
           decidesExitOf(ReadBack, &Later, loopBody(Loop), Ctx);
  });
}

bool roundTripsThroughHost(const CallExpr *ReadBack, const Stmt *Loop,
                           DeviceInference &Devices, ASTContext &Ctx) {
  const VarDecl *Destination = readBackDestination(ReadBack, Ctx);
  if (!Destination || !isLoopStmt(Loop))
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  auto After = [&](const Stmt *Earlier, const Stmt *Later) {
    return SM.isBeforeInTranslationUnit(
        SM.getExpansionLoc(Earlier->getEndLoc()),
        SM.getExpansionLoc(Later->getBeginLoc()));
  };
  // The same buffer uploaded again later in the iteration, or at the start
  // of the next one (`cudaMemcpy(d_p, p, ...)` at the top of the step)...
  auto UploadsDestination =
      [&](const CallExpr &Call) {
        // Asynchronously from pinned memory too: still the same round trip.
        if (std::optional<CudaApi> Api = identifyCudaCall(&Call)) {
          std::optional<unsigned> Source = memcpySourceArgIndex(*Api);
          std::optional<unsigned> Kind = memcpyKindArgIndex(*Api);
          if (Source && Kind && *Kind < Call.getNumArgs() &&
              evaluateMemcpyKind(Call.getArg(*Kind), Ctx) ==
                  MemcpyDirection::HostToDevice &&
              refersTo(Call.getArg(*Source), Destination))
            return true;
        }
        std::optional<Hazard> H = classifyHazard(&Call, Devices);
        return H && H->Kind == HazardKind::HostToDeviceCopy &&
               copiedVariable(H->Subject) == Destination;
      };
  const CallExpr *Upload =
      findFirst<CallExpr>(loopBody(Loop), [&](const CallExpr &Call) {
        return &Call != ReadBack && After(ReadBack, &Call) &&
               UploadsDestination(Call);
      });
  const bool UploadsAtNextStart =
      !Upload &&
      containsMatch<CallExpr>(loopBody(Loop), [&](const CallExpr &Call) {
        return &Call != ReadBack && After(&Call, ReadBack) &&
               UploadsDestination(Call);
      });
  if (!Upload && !UploadsAtNextStart)
    return false;
  // Between the read-back and the upload (the end of the iteration, when
  // the upload opens the next one).
  auto BeforeUpload = [&](const Stmt *S) {
    return !Upload || After(S, Upload);
  };
  // ...after the host rewrote its elements in between, itself or, outside
  // any branch, through a function of the program that writes through the
  // buffer (`writeOut(state, h_left)`).
  const auto *Body = dyn_cast_or_null<CompoundStmt>(loopBody(Loop));
  const bool RewrittenThroughCall =
      Body && llvm::any_of(Body->body(), [&](const Stmt *Part) {
        return !isa<IfStmt>(Part) &&
               containsMatch<CallExpr>(Part, [&](const CallExpr &Call) {
                 const FunctionDecl *Callee = Call.getDirectCallee();
                 if (!After(ReadBack, &Call) || !BeforeUpload(&Call) ||
                     identifyCudaCall(&Call) || !Callee ||
                     SM.isInSystemHeader(
                         SM.getExpansionLoc(Callee->getLocation())))
                   return false;
                 // A scalar passed by value (`expand(d_tail, tail)`) is a
                 // copy of the value.
                 for (unsigned I = 0; I < Call.getNumArgs(); ++I) {
                   const Expr *Arg = Call.getArg(I)->IgnoreParens();
                   const auto *Read = dyn_cast<ImplicitCastExpr>(Arg);
                   if (refersTo(Arg, Destination) &&
                       !(Read && Read->getCastKind() == CK_LValueToRValue &&
                         !Arg->getType()->isPointerType()) &&
                       mayWriteThroughArgument(&Call, I, Ctx))
                     return true;
                 }
                 return false;
               });
      });
  if (RewrittenThroughCall)
    return true;
  // An element written through the buffer, or through a local pointer
  // into it (`particle *p = h + i; p->x += ...`).
  auto PointsIntoDestination = [&](const Expr *Base) {
    if (refersTo(Base, Destination))
      return true;
    const auto *Ref = dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts());
    const auto *Pointer = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    return Pointer && Pointer->isLocalVarDecl() &&
           Pointer->getType()->isPointerType() && Pointer->getInit() &&
           refersTo(Pointer->getInit(), Destination);
  };
  return containsMatch<Stmt>(loopBody(Loop), [&](const Stmt &S) {
    if (!After(ReadBack, &S) || !BeforeUpload(&S))
      return false;
    std::optional<AssignmentParts> Parts = assignmentParts(S);
    if (!Parts)
      return false;
    const Expr *Target = Parts->Target->IgnoreParenImpCasts();
    // `h[i].x = ...`, `p->x = ...`: a field of an element.
    if (const auto *Member = dyn_cast<MemberExpr>(Target)) {
      if (Member->isArrow())
        return PointsIntoDestination(Member->getBase());
      Target = Member->getBase()->IgnoreParenImpCasts();
    }
    const Expr *Base = nullptr;
    if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(Target))
      Base = Subscript->getBase();
    else if (const auto *Deref = dyn_cast<UnaryOperator>(Target);
             Deref && Deref->getOpcode() == UO_Deref)
      Base = Deref->getSubExpr();
    return Base && PointsIntoDestination(Base);
  });
}

namespace {

/// The field of a local struct that is the host destination of a copy
/// (`cudaMemcpy(HostMem.flags, ...)`, `&state.count`).
const MemberExpr *hostBufferField(const CallExpr *Copy) {
  std::optional<CudaApi> Api = identifyCudaCall(Copy);
  if (!Api || Copy->getNumArgs() == 0)
    return nullptr;
  const Expr *Destination = Copy->getArg(0)->IgnoreParenCasts();
  if (const auto *AddressOf = dyn_cast<UnaryOperator>(Destination);
      AddressOf && AddressOf->getOpcode() == UO_AddrOf)
    Destination = AddressOf->getSubExpr()->IgnoreParenImpCasts();
  const auto *Field = dyn_cast<MemberExpr>(Destination);
  if (!Field || !isa<FieldDecl>(Field->getMemberDecl()))
    return nullptr;
  const auto *Base =
      dyn_cast<DeclRefExpr>(Field->getBase()->IgnoreParenImpCasts());
  const auto *Holder = Base ? dyn_cast<VarDecl>(Base->getDecl()) : nullptr;
  return Holder && Holder->hasLocalStorage() ? Field : nullptr;
}

/// True if \p S reads the same field of the same variable as \p Field.
bool readsField(const Stmt *S, const MemberExpr *Field) {
  return containsMatch<MemberExpr>(S, [&](const MemberExpr &Member) {
    const auto *Base =
        dyn_cast<DeclRefExpr>(Member.getBase()->IgnoreParenImpCasts());
    return Member.getMemberDecl() == Field->getMemberDecl() && Base &&
           Base->getDecl() ==
               cast<DeclRefExpr>(Field->getBase()->IgnoreParenImpCasts())
                   ->getDecl();
  });
}

} // namespace

bool decidesLoopExit(const CallExpr *ReadBack, const Stmt *Loop,
                     ASTContext &Ctx) {
  return isLoopStmt(Loop) && decidesExitOf(ReadBack, Loop, loopBody(Loop), Ctx);
}

namespace {

/// decidesLoopExit, with the values computed from the read-back collected
/// in \p DerivationScope (the loop's body, or the body of a loop around it).
bool decidesExitOf(const CallExpr *ReadBack, const Stmt *Loop,
                   const Stmt *DerivationScope, ASTContext &Ctx) {
  if (!isLoopStmt(Loop))
    return false;
  // cudaMemcpyAsync(&residual, ...); cudaStreamSynchronize(stream): the
  // wait completes the read-back whose value the loop's test needs.
  if (isBareWait(ReadBack) &&
      waitsBesideReadBack(ReadBack, Ctx, [&](const CallExpr *Other) {
        std::optional<CudaApi> Api = identifyCudaCall(Other);
        return Other != ReadBack && Api && isAsyncCopy(*Api) &&
               decidesExitOf(Other, Loop, DerivationScope, Ctx);
      }))
    return true;
  const Expr *Condition = loopCondition(Loop);
  // Read right in the loop's condition, or in an if that leaves the loop.
  if (Condition && isWithin(ReadBack, Condition, Ctx))
    return true;
  const Stmt *Body = loopBody(Loop);
  if (exitDecidedBy(Body, Condition, [&](const Expr *Cond) {
        return isWithin(ReadBack, Cond, Ctx);
      }))
    return true;
  auto DecidesExit = [&](const VarDecl *Destination) {
    llvm::SmallPtrSet<const VarDecl *, 4> Derived =
        valuesDerivedFrom(Destination, DerivationScope);
    // `for (t = 0; t < end; t += dt)`: the increment carries the value to
    // the variable the condition tests.
    if (const auto *For = dyn_cast<ForStmt>(Loop); For && For->getInc()) {
      llvm::SmallPtrSet<const VarDecl *, 4> Stepped;
      for (const VarDecl *Var : Derived)
        for (const VarDecl *Next : valuesDerivedFrom(Var, For->getInc()))
          Stepped.insert(Next);
      Derived.insert(Stepped.begin(), Stepped.end());
    }
    auto ReadsDerived = [&](const Stmt *S) {
      return llvm::any_of(Derived,
                          [&](const VarDecl *Var) { return refersTo(S, Var); });
    };
    return (Condition && ReadsDerived(Condition)) ||
           exitDecidedBy(Body, Condition, ReadsDerived);
  };
  if (const VarDecl *Destination = readBackDestination(ReadBack, Ctx))
    return DecidesExit(Destination);
  // `cudaMemcpy(host.active, dev.active, ...)`, then a total of
  // `host.active[i]` tested by the loop: the struct holding the buffer
  // stands for it.
  if (const MemberExpr *Field = hostBufferField(ReadBack)) {
    auto ReadsFieldOrDerived = [&](const Stmt *S) {
      if (readsField(S, Field))
        return true;
      bool Derived = false;
      walkStmt(DerivationScope, [&](const Stmt &Part) {
        std::optional<AssignmentParts> Assign = assignmentParts(Part);
        const auto *Ref =
            Assign
                ? dyn_cast<DeclRefExpr>(Assign->Target->IgnoreParenImpCasts())
                : nullptr;
        const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
        if (Var && readsField(Assign->Value, Field) &&
            llvm::any_of(
                valuesDerivedFrom(Var, DerivationScope),
                [&](const VarDecl *From) { return refersTo(S, From); }))
          Derived = true;
        return Derived ? WalkStep::Stop : WalkStep::Continue;
      });
      return Derived;
    };
    return (Condition && ReadsFieldOrDerived(Condition)) ||
           exitDecidedBy(Body, Condition, ReadsFieldOrDerived);
  }
  // A function that reads back inside and hands its verdict out through an
  // argument: step(params, state) ... while (state.errorTooLarge).
  const FunctionDecl *Callee = ReadBack->getDirectCallee();
  if (!Callee)
    return false;
  for (unsigned I = 0, E = std::min(ReadBack->getNumArgs(),
                                    Callee->getNumParams());
       I < E; ++I) {
    QualType Param = Callee->getParamDecl(I)->getType();
    const Expr *Arg = ReadBack->getArg(I)->IgnoreParenImpCasts();
    if (const auto *AddressOf = dyn_cast<UnaryOperator>(Arg);
        AddressOf && AddressOf->getOpcode() == UO_AddrOf)
      Arg = AddressOf->getSubExpr()->IgnoreParenImpCasts();
    else if (!Param->isReferenceType() ||
             Param.getNonReferenceType().isConstQualified())
      continue;
    const auto *Ref = dyn_cast<DeclRefExpr>(Arg);
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (Var && DecidesExit(Var))
      return true;
  }
  // ...or through a global it reads back into (`cudaMemcpyFromSymbol(
  // &del_t_h, del_t, ...)` in `timestep_interval()`, then `t += del_t_h`).
  const FunctionDecl *Definition = Callee->getDefinition();
  return Definition && Definition->hasBody() &&
         containsMatch<CallExpr>(
             Definition->getBody(), [&](const CallExpr &Inner) {
               const auto *Global = dyn_cast_or_null<VarDecl>(
                   identifyCudaCall(&Inner) ? readBackTarget(&Inner, Ctx)
                                            : nullptr);
               return Global && Global->hasGlobalStorage() &&
                      !Global->isStaticLocal() && DecidesExit(Global);
             });
}

} // namespace

bool waitsForManagedExitTest(const CallExpr *Wait, const Stmt *Loop,
                             DeviceInference &Devices, bool WaitsInside) {
  // cudaDeviceSynchronize(); if (prev == *count) break; with `count` in
  // managed memory a kernel writes: the wait is what makes the value the
  // loop's exit test reads valid on the host.
  if ((!WaitsInside && !isBareWait(Wait)) || !isLoopStmt(Loop))
    return false;
  // Through a call, the wait covers the value only if the callee works on
  // it (resets it and launches the reduction that writes it); a call that
  // waits for other work leaves it as it was.
  const FunctionDecl *Callee =
      WaitsInside ? definedCallee(Wait, Devices.context().getSourceManager())
                  : nullptr;
  if (WaitsInside && !Callee)
    return false;
  auto ReadsManaged = [&](const Stmt *S) {
    return S && containsMatch<Expr>(S, [&](const Expr &E) {
             if (const auto *Ref = dyn_cast<DeclRefExpr>(&E)) {
               const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
               return Var && isManagedVariable(Var) &&
                      (!Callee || refersTo(Callee->getBody(), Var));
             }
             if (WaitsInside)
               return false;
             const Expr *Pointer = nullptr;
             if (const auto *Deref = dyn_cast<UnaryOperator>(&E);
                 Deref && Deref->getOpcode() == UO_Deref)
               Pointer = Deref->getSubExpr();
             else if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(&E))
               Pointer = Subscript->getBase();
             return Pointer && Pointer->getType()->isPointerType() &&
                    Devices.pointerPlacement(Pointer).Where ==
                        Placement::Managed;
           });
  };
  const Expr *Condition = loopCondition(Loop);
  return ReadsManaged(Condition) ||
         exitDecidedBy(loopBody(Loop), Condition,
                       [&](const Expr *Cond) { return ReadsManaged(Cond); });
}

bool decidesStepExit(const CallExpr *ReadBack, const FunctionDecl *Method,
                     ASTContext &Ctx) {
  const auto *Member = dyn_cast_or_null<CXXMethodDecl>(Method);
  if (!Member || !Member->hasBody())
    return false;
  const VarDecl *Destination = readBackDestination(ReadBack, Ctx);
  if (!Destination)
    return false;
  const Stmt *Body = Member->getBody();
  llvm::SmallPtrSet<const VarDecl *, 4> Derived =
      valuesDerivedFrom(Destination, Body);
  // The members of this object the method stores the value into.
  llvm::SmallPtrSet<const FieldDecl *, 2> Stored;
  walkStmt(Body, [&](const Stmt &S) {
    std::optional<AssignmentParts> Assign = assignmentParts(S);
    if (!Assign)
      return WalkStep::Continue;
    const auto *Field =
        dyn_cast<MemberExpr>(Assign->Target->IgnoreParenImpCasts());
    if (Field && isa<CXXThisExpr>(Field->getBase()->IgnoreParenImpCasts()) &&
        llvm::any_of(Derived, [&](const VarDecl *Var) {
          return refersTo(Assign->Value, Var);
        }))
      if (const auto *Decl = dyn_cast<FieldDecl>(Field->getMemberDecl()))
        Stored.insert(Decl);
    return WalkStep::Continue;
  });
  if (Stored.empty())
    return false;
  for (const CXXMethodDecl *Predicate : Member->getParent()->methods()) {
    const FunctionDecl *Definition = nullptr;
    if (Predicate == Member || !Predicate->getReturnType()->isBooleanType() ||
        !Predicate->hasBody(Definition))
      continue;
    if (containsMatch<MemberExpr>(
            Definition->getBody(), [&](const MemberExpr &Use) {
              const auto *Field = dyn_cast<FieldDecl>(Use.getMemberDecl());
              return Field && Stored.contains(Field);
            }))
      return true;
  }
  return false;
}

namespace {

/// True for `X % 1 == 0`: a counter guard whose period is 1 holds on every
/// iteration.
bool holdsOnEveryIteration(const Expr *Cond, ASTContext &Ctx) {
  const auto *Equal = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
  if (!Equal || Equal->getOpcode() != BO_EQ)
    return false;
  for (auto [Side, Other] : {std::pair(Equal->getLHS(), Equal->getRHS()),
                             std::pair(Equal->getRHS(), Equal->getLHS())}) {
    const auto *Rem = dyn_cast<BinaryOperator>(Side->IgnoreParenImpCasts());
    if (Rem && Rem->getOpcode() == BO_Rem &&
        periodValue(Rem->getRHS(), Ctx) == std::optional<int64_t>(1) &&
        evaluateInt(Other, Ctx) == std::optional<int64_t>(0))
      return true;
  }
  return false;
}

/// True for a statement that runs whole when it runs: an expression or a
/// declaration, not a branch or a loop.
bool isStraightLine(const Stmt *S, ASTContext &Ctx) {
  return isa<Expr, DeclStmt>(S) || isMacroStatementWrapper(S, Ctx);
}

/// The calls \p IsBlockingReadBack accepts in \p Statement, in source
/// order.
llvm::SmallVector<const CallExpr *, 4>
readBacksIn(const Stmt *Statement, ASTContext &Ctx,
            llvm::function_ref<bool(const CallExpr *)> IsBlockingReadBack) {
  llvm::SmallVector<const CallExpr *, 4> Found;
  containsMatch<CallExpr>(Statement, [&](const CallExpr &Call) {
    if (IsBlockingReadBack(&Call))
      Found.push_back(&Call);
    return false;
  });
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::sort(Found, [&](const CallExpr *A, const CallExpr *B) {
    return SM.isBeforeInTranslationUnit(A->getExprLoc(), B->getExprLoc());
  });
  return Found;
}

/// The read-backs of \p Statement (the one holding \p ReadBack) that run
/// after it (\p Later) or before it, in source order.
llvm::SmallVector<const CallExpr *, 4> readBacksBesideInStatement(
    const CallExpr *ReadBack, const Stmt *Statement, bool Later,
    ASTContext &Ctx,
    llvm::function_ref<bool(const CallExpr *)> IsBlockingReadBack) {
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::SmallVector<const CallExpr *, 4> Beside;
  for (const CallExpr *Other : readBacksIn(Statement, Ctx, IsBlockingReadBack))
    if (Other != ReadBack &&
        SM.isBeforeInTranslationUnit(ReadBack->getExprLoc(),
                                     Other->getExprLoc()) == Later)
      Beside.push_back(Other);
  return Beside;
}

} // namespace

namespace {

/// waitsBesideReadBack, looking after \p Sync only unless \p LookBack.
bool readBackBeside(
    const CallExpr *Sync, ASTContext &Ctx,
    llvm::function_ref<bool(const CallExpr *)> IsBlockingReadBack,
    bool LookBack) {
  std::optional<PlaceInBlock> Where = placeInBlock(Sync, Ctx);
  // A declaration is beside a copy only when it keeps the wait's status
  // (`cudaError_t st = cudaDeviceSynchronize();`).
  auto KeepsStatus = [&](const Stmt *S) {
    const auto *Declaration = dyn_cast<DeclStmt>(S);
    const auto *Var = Declaration && Declaration->isSingleDecl()
                          ? dyn_cast<VarDecl>(Declaration->getSingleDecl())
                          : nullptr;
    return Var && Var->getInit() &&
           Var->getInit()->IgnoreParenImpCasts() == Sync;
  };
  if (!Where || (isa<DeclStmt>(*Where->At) && !KeepsStatus(*Where->At)))
    return false;
  auto HasReadBack = [&](const Stmt *S) {
    return S && containsMatch<CallExpr>(S, [&](const CallExpr &Call) {
             return IsBlockingReadBack(&Call);
           });
  };
  // `CHECK(cudaMemcpy(...))` whose macro waits after the call it checks.
  if (isMacroStatementWrapper(*Where->At, Ctx) && HasReadBack(*Where->At))
    return true;
  // Walks one way from the sync until a read-back or device work. A branch
  // or loop ends the walk (a read-back every N iterations is not beside the
  // wait on the others), once its condition, which always runs, is seen; a
  // branch taken on every iteration (`if (step % 1 == 0)`, an output period
  // set to 1) is walked into.
  std::function<bool(llvm::ArrayRef<Stmt *>)> FindsReadBackAfter;
  // `{ cudaError_t e = cudaGetLastError(); if (e != cudaSuccess) exit(1); }`,
  // an error-check macro's block: no device work, the walk goes through.
  std::function<bool(const Stmt *)> ChecksErrorOnly = [&](const Stmt *S) {
    if (const auto *Block = dyn_cast<CompoundStmt>(S))
      return llvm::all_of(Block->body(), ChecksErrorOnly);
    if (const auto *If = dyn_cast<IfStmt>(S))
      return !If->getElse() && !HasReadBack(If->getCond()) &&
             (isCudaErrorExit(If) || isCudaErrorReport(If, Ctx));
    return isStraightLine(S, Ctx) && !HasReadBack(S) &&
           !queuesDeviceWork(S, Ctx, UnseenFunctions{});
  };
  auto FindsReadBack = [&](auto Begin, auto End) {
    constexpr bool Forward = std::is_pointer_v<decltype(Begin)>;
    for (auto It = Begin; It != End; ++It) {
      if (isa<NullStmt>(*It) ||
          (isa<CompoundStmt>(*It) && ChecksErrorOnly(*It)))
        continue;
      if (!isStraightLine(*It, Ctx)) {
        const auto *If = dyn_cast<IfStmt>(*It);
        // `if (st != cudaSuccess) { cudaFree(d); return st; }`: the error
        // check leaves on failure; the normal path goes on to the copy.
        if (If && !If->getElse() && !HasReadBack(If->getCond()) &&
            (isCudaErrorExit(If) || isCudaErrorReport(If, Ctx)))
          continue;
        if (Forward && If && !If->getElse() &&
            holdsOnEveryIteration(If->getCond(), Ctx))
          if (const auto *Then = dyn_cast<CompoundStmt>(If->getThen()))
            return HasReadBack(If->getCond()) ||
                   FindsReadBackAfter(llvm::ArrayRef<Stmt *>(Then->body_begin(),
                                                             Then->body_end()));
        return If && HasReadBack(If->getCond());
      }
      if (HasReadBack(*It))
        return true;
      if (queuesDeviceWork(*It, Ctx, UnseenFunctions{}))
        return false;
    }
    return false;
  };
  FindsReadBackAfter = [&](llvm::ArrayRef<Stmt *> Body) {
    return FindsReadBack(Body.begin(), Body.end());
  };
  return FindsReadBack(std::next(Where->At), Where->Body.end()) ||
         (LookBack && FindsReadBack(std::make_reverse_iterator(Where->At),
                                    Where->Body.rend()));
}

} // namespace

bool waitsBesideReadBack(
    const CallExpr *Sync, ASTContext &Ctx,
    llvm::function_ref<bool(const CallExpr *)> IsBlockingReadBack) {
  return readBackBeside(Sync, Ctx, IsBlockingReadBack, /*LookBack=*/true);
}

bool isFollowedByBlockingTransfer(const CallExpr *Call,
                                  DeviceInference &Devices) {
  return readBackBeside(
      Call, Devices.context(),
      [&](const CallExpr *Other) {
        return Other != Call && isBlockingTransfer(Other, Devices);
      },
      /*LookBack=*/false);
}

bool endsFunctionWithWait(const CallExpr *Wait, ASTContext &Ctx) {
  std::optional<PlaceInBlock> Where = placeInBlock(Wait, Ctx);
  const FunctionDecl *Function = enclosingFunction(Wait, Ctx);
  const auto *Body =
      Function ? dyn_cast_or_null<CompoundStmt>(Function->getBody()) : nullptr;
  if (!isBareWait(Wait) || !Where || !Body ||
      Where->Body.data() != Body->body_begin())
    return false;
  // After it only host code: releasing buffers, reporting errors, returning.
  return llvm::all_of(
      llvm::make_range(std::next(Where->At), Where->Body.end()),
      [&](const Stmt *S) {
        return !queuesDeviceWork(S, Ctx, UnseenFunctions{}) &&
               !containsMatch<CallExpr>(S, [&](const CallExpr &Call) {
                 std::optional<CudaApi> Api = identifyCudaCall(&Call);
                 return Api && (isCopy(*Api) || isAsyncCopy(*Api));
               });
      });
}

bool callersTransferRightAfter(const FunctionDecl *Function,
                               DeviceInference &Devices,
                               const ProjectFacts *Facts) {
  if (Facts)
    if (std::optional<bool> Indexed = Facts->callsFollowedByTransfer(Function))
      return *Indexed;
  llvm::ArrayRef<const CallExpr *> Calls = Devices.callSitesOf(Function);
  return !Calls.empty() && llvm::all_of(Calls, [&](const CallExpr *Call) {
    return isFollowedByBlockingTransfer(Call, Devices);
  });
}

bool completesAsyncReadBack(
    const CallExpr *Wait, ASTContext &Ctx,
    llvm::function_ref<bool(const CallExpr *)> IsOutput) {
  if (!isBareWait(Wait))
    return false;
  return waitsBesideReadBack(Wait, Ctx, [&](const CallExpr *Other) {
    std::optional<CudaApi> Api = identifyCudaCall(Other);
    if (Other == Wait || !Api || !isAsyncCopy(*Api))
      return false;
    std::optional<unsigned> KindArg = memcpyKindArgIndex(*Api);
    return KindArg && *KindArg < Other->getNumArgs() &&
           evaluateMemcpyKind(Other->getArg(*KindArg), Ctx) ==
               MemcpyDirection::DeviceToHost &&
           IsOutput(Other);
  });
}

bool waitsBesideBlockingTransfer(const CallExpr *Wait, DeviceInference &Devices,
                                 bool CallOnlyWaits) {
  return (CallOnlyWaits || isBareWait(Wait)) &&
         waitsBesideReadBack(
             Wait, Devices.context(), [&](const CallExpr *Other) {
               return Other != Wait && isBlockingTransfer(Other, Devices);
             });
}

namespace {

/// True if \p Stream names the legacy default stream (absent, 0, null).
bool isDefaultStream(const Expr *Stream, ASTContext &Ctx) {
  if (!Stream || isa<CXXDefaultArgExpr>(Stream))
    return true;
  return Stream->IgnoreParenCasts()->isNullPointerConstant(
             Ctx, Expr::NPC_ValueDependentIsNotNull) ||
         evaluateInt(Stream, Ctx) == std::optional<int64_t>(0);
}

/// Whether the first device work \p S queues runs on the legacy default
/// stream: a kernel launched without a stream, a blocking copy, or the same
/// first thing in a function defined here that \p S calls.
std::optional<bool> firstWorkOnDefaultStream(const Stmt *S, ASTContext &Ctx,
                                             unsigned Depth) {
  std::optional<bool> Found;
  walkStmt(S, [&](const Stmt &Node) {
    // A thrust::device_vector made with a size or contents allocates and
    // fills it on the default stream.
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(&Node)) {
      if (isThrustDeviceVector(Construct->getConstructor()->getParent()) &&
          llvm::any_of(Construct->arguments(), [](const Expr *A) {
            return !isa<CXXDefaultArgExpr>(A);
          })) {
        Found = true;
        return WalkStep::Stop;
      }
      return WalkStep::Continue;
    }
    const auto *Call = dyn_cast<CallExpr>(&Node);
    if (!Call)
      return WalkStep::Continue;
    // A Thrust algorithm runs on the default stream unless its policy names
    // another (`thrust::cuda::par.on(stream)`).
    if (runsThrustOnDevice(Call)) {
      const Expr *Stream = thrustPolicyStream(Call);
      Found = !Stream || isDefaultStream(Stream, Ctx);
      return WalkStep::Stop;
    }
    if (const auto *Launch = dyn_cast<CUDAKernelCallExpr>(Call)) {
      const CallExpr *Config = Launch->getConfig();
      Found = !Config || Config->getNumArgs() < 4 ||
              isDefaultStream(Config->getArg(3), Ctx);
      return WalkStep::Stop;
    }
    if (std::optional<CudaApi> Api = identifyCudaCall(Call)) {
      if (*Api == CudaApi::Memcpy || *Api == CudaApi::Memcpy2D) {
        Found = true;
        return WalkStep::Stop;
      }
      return WalkStep::Continue;
    }
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Definition = nullptr;
    if (Depth < 3 && Callee && Callee->hasBody(Definition) &&
        !Ctx.getSourceManager().isInSystemHeader(
            Ctx.getSourceManager().getExpansionLoc(Definition->getLocation())))
      if ((Found =
               firstWorkOnDefaultStream(Definition->getBody(), Ctx, Depth + 1)))
        return WalkStep::Stop;
    return WalkStep::Continue;
  });
  return Found;
}

} // namespace

bool handsOffToDefaultStream(const CallExpr *Wait, ASTContext &Ctx) {
  std::optional<CudaApi> Api = identifyCudaCall(Wait);
  if (!Api || *Api != CudaApi::StreamSynchronize || Wait->getNumArgs() < 1 ||
      isDefaultStream(Wait->getArg(0), Ctx))
    return false;
  std::optional<PlaceInBlock> Where = placeInBlock(Wait, Ctx);
  if (!Where)
    return false;
  for (auto It = std::next(Where->At); It != Where->Body.end(); ++It) {
    if (!isStraightLine(*It, Ctx))
      return false;
    if (std::optional<bool> OnDefault = firstWorkOnDefaultStream(*It, Ctx, 0))
      return *OnDefault;
  }
  return false;
}

llvm::SmallVector<const CallExpr *, 4>
readBacksAfter(const CallExpr *ReadBack, ASTContext &Ctx,
               llvm::function_ref<bool(const CallExpr *)> IsBlockingReadBack) {
  llvm::SmallVector<const CallExpr *, 4> After;
  std::optional<PlaceInBlock> Where = placeInBlock(ReadBack, Ctx);
  if (!Where)
    return After;
  // Later in its own statement: `print(a.item(), b.item())`.
  After = readBacksBesideInStatement(ReadBack, *Where->At, /*Later=*/true, Ctx,
                                     IsBlockingReadBack);
  // Then the statements after it, up to the first that queues device work
  // or branches (a read inside an `if` may not happen; followsReadBack()
  // stops there too).
  for (auto It = std::next(Where->At); It != Where->Body.end(); ++It) {
    // A statement that queues work (`forward(x).item()`) starts a new wait.
    if (!isStraightLine(*It, Ctx) ||
        queuesWorkBesideReadBacks(*It, Ctx, IsBlockingReadBack))
      break;
    llvm::append_range(After, readBacksIn(*It, Ctx, IsBlockingReadBack));
  }
  return After;
}

bool followsReadBack(
    const CallExpr *ReadBack, ASTContext &Ctx,
    llvm::function_ref<bool(const CallExpr *)> IsBlockingReadBack) {
  // readBacksAfter() read backwards: an earlier read-back in its own
  // statement, or one in an earlier statement with no work in between.
  std::optional<PlaceInBlock> Where = placeInBlock(ReadBack, Ctx);
  if (!Where)
    return false;
  if (!readBacksBesideInStatement(ReadBack, *Where->At, /*Later=*/false, Ctx,
                                  IsBlockingReadBack)
           .empty())
    return true;
  if (queuesWorkBesideReadBacks(*Where->At, Ctx, IsBlockingReadBack))
    return false;
  for (auto It = std::make_reverse_iterator(Where->At);
       It != Where->Body.rend(); ++It) {
    if (!isStraightLine(*It, Ctx))
      return false;
    if (containsMatch<CallExpr>(*It, [&](const CallExpr &Call) {
          return IsBlockingReadBack(&Call);
        }))
      return true;
    if (queuesWorkBesideReadBacks(*It, Ctx, IsBlockingReadBack))
      return false;
  }
  return false;
}

double ExecutionFrequency::relativeFrequency() const {
  if (Loops.empty())
    return 0.0;
  double Rate = 1.0;
  switch (Guard) {
  case GuardKind::None:
    break;
  case GuardKind::EveryN:
    Rate = Period ? 1.0 / static_cast<double>(*Period) : 0.0;
    break;
  case GuardKind::Once:
    // Once per run of the loop costs what it would cost outside the loop,
    // however few iterations the loop has.
    Rate = 0.0;
    break;
  case GuardKind::Logging:
    // Logging is throttled by the author's condition; its rate is unknown.
    Rate = 0.0;
    break;
  }
  return isEpochLevel() ? 0.0 : Rate;
}

bool ExecutionFrequency::isEpochLevel() const {
  // Beside an inner loop of a handful of rounds (four chunks, a few
  // launches) the statement still runs on every step that matters.
  constexpr uint64_t Handful = 10;
  return InnerSiblingLoop &&
         (!InnerSiblingTripCount || *InnerSiblingTripCount > Handful);
}

std::optional<uint64_t> ExecutionFrequency::totalExecutions() const {
  if (Loops.empty())
    return 1;
  uint64_t Total = 1;
  for (const EnclosingLoop &Loop : Loops) {
    if (!Loop.TripCount)
      return std::nullopt;
    Total *= *Loop.TripCount;
  }
  switch (Guard) {
  case GuardKind::None:
    return Total;
  case GuardKind::EveryN:
    if (!Period)
      return std::nullopt;
    return (Total + *Period - 1) / *Period;
  case GuardKind::Once:
    return Total / *Loops.front().TripCount;
  case GuardKind::Logging:
    return std::nullopt;
  }
  return std::nullopt;
}

std::string describeFrequency(const ExecutionFrequency &F,
                              const SourceManager &SM) {
  if (F.Loops.empty())
    return "once";
  const EnclosingLoop &Inner = F.Loops.front();
  std::string Where = loopPhrase(Inner, SM);
  if (F.InnerSiblingLoop && F.InnerSiblingThroughCall)
    return "once per iteration of " + Where +
           ", beside a call that runs the loop at " +
           llvm::sys::path::filename(SM.getFilename(SM.getExpansionLoc(
                                         F.InnerSiblingLoop->getBeginLoc())))
               .str() +
           ":" + std::to_string(lineOf(F.InnerSiblingLoop, SM));
  if (F.InnerSiblingLoop)
    return "once per iteration of " + Where + ", outside its inner loop at "
           "line " + std::to_string(lineOf(F.InnerSiblingLoop, SM));
  switch (F.Guard) {
  case GuardKind::EveryN:
    if (F.Period)
      return "once every " + std::to_string(*F.Period) + " iterations of " +
             Where;
    return "once every '" + F.PeriodSpelling + "' iterations of " + Where;
  case GuardKind::Once:
    return "once per run of " + Where;
  case GuardKind::Logging:
    return "on the iterations that log, in " + Where;
  case GuardKind::None:
    break;
  }
  if (F.Loops.size() > 1) {
    if (std::optional<uint64_t> Total = F.totalExecutions()) {
      std::string Lines;
      for (auto It = F.Loops.rbegin(); It != F.Loops.rend(); ++It) {
        if (!Lines.empty())
          Lines += It + 1 == F.Loops.rend() ? " and " : ", ";
        Lines += std::to_string(lineOf(It->Loop, SM));
      }
      return "on each of " + std::to_string(*Total) +
             " iterations of the nested loops at lines " + Lines;
    }
  }
  if (Inner.TripCount)
    return "on each of " + std::to_string(*Inner.TripCount) +
           " iterations of " + Where;
  return "on every iteration of " + Where;
}

/// True for a CUDA copy or fill: cudaMemcpy* (to symbols and peers too,
/// blocking or not), cudaMemset*, cudaMemPrefetchAsync.
static bool queuesCopyOrFill(const CallExpr &Call) {
  if (std::optional<CudaApi> Api = identifyCudaCall(&Call); Api && isCopy(*Api))
    return true;
  const FunctionDecl *Callee = Call.getDirectCallee();
  return isCudaMemset(Callee) || isNamed(Callee, "cudaMemPrefetchAsync");
}

namespace {

/// True if \p Call runs a function of the program that waits for the whole
/// device in a statement of its own (not under a branch) and queues no
/// device work after it: an error-check helper (`checkCUDAError(msg)`)
/// that starts with cudaDeviceSynchronize.
bool endsWithDeviceWait(const CallExpr &Call, ASTContext &Ctx,
                        const ProjectFacts *Facts) {
  const FunctionDecl *Definition = definedCallee(&Call, Ctx.getSourceManager());
  const auto *Body = Definition
                         ? dyn_cast_or_null<CompoundStmt>(Definition->getBody())
                         : nullptr;
  if (!Body)
    return false;
  bool Waited = false;
  for (const Stmt *S : Body->body()) {
    const auto *Wait = dyn_cast<CallExpr>(S);
    std::optional<CudaApi> Api = Wait ? identifyCudaCall(Wait) : std::nullopt;
    if (Api && (*Api == CudaApi::DeviceSynchronize ||
                *Api == CudaApi::ThreadSynchronize)) {
      Waited = true;
      continue;
    }
    if (Waited && queuesDeviceWork(S, Ctx, UnseenFunctions{Facts}))
      return false;
  }
  return Waited;
}

} // namespace

bool followsWaitOnEveryPath(const CallExpr *Wait, ExecutionOrder &Order,
                            ASTContext &Ctx, const ProjectFacts *Facts) {
  using Mark = ExecutionOrder::Mark;
  // A wait for one stream or event covers only a later wait for the same
  // stream (or event): waiting on stream 0 leaves stream 1's work, and the
  // rest of the device's, running. Device-wide waits and blocking
  // read-backs cover every later wait.
  auto WaitsForOne = [](const CallExpr &Call) {
    std::optional<CudaApi> Api = identifyCudaCall(&Call);
    return Api && (*Api == CudaApi::StreamSynchronize ||
                   *Api == CudaApi::EventSynchronize);
  };
  auto Covers = [&](const CallExpr &Earlier) {
    if (!WaitsForOne(Earlier))
      return true;
    if (!WaitsForOne(*Wait) ||
        identifyCudaCall(&Earlier) != identifyCudaCall(Wait) ||
        !Earlier.getNumArgs() || !Wait->getNumArgs())
      return false;
    auto Spelling = [&](const Expr *E) {
      return Lexer::getSourceText(
                 CharSourceRange::getTokenRange(E->getSourceRange()),
                 Ctx.getSourceManager(), Ctx.getLangOpts())
          .str();
    };
    return Spelling(Earlier.getArg(0)) == Spelling(Wait->getArg(0));
  };
  return Order.everyPathBackFinds(Wait, [&](const Stmt &S) {
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (!Call)
      return Mark::Neither;
    if (waitsForDevice(*Call, Ctx))
      return Covers(*Call) ? Mark::Found : Mark::Neither;
    if (endsWithDeviceWait(*Call, Ctx, Facts))
      return Mark::Found;
    // Copies and fills are work a wait waits for, though not computation.
    if (queuesCopyOrFill(*Call))
      return Mark::Blocked;
    return queuesDeviceWork(Call, Ctx, UnseenFunctions{Facts}) ? Mark::Blocked
                                                               : Mark::Neither;
  });
}

} // namespace clang::tidy::xfer
