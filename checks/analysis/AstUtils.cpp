//===--- AstUtils.cpp - parent-map helpers shared by the analyses ---------===//

#include "analysis/AstUtils.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace clang::tidy::xfer {

const Stmt *parentStmt(const Stmt *S, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*S);
  // An initializer's parent is its variable, whose parent is the DeclStmt.
  // An element of a braced list has two parents, the list's syntactic and
  // semantic forms, in no fixed order: any statement parent will do.
  while (!Parents.empty()) {
    const VarDecl *Var = nullptr;
    for (const DynTypedNode &Parent : Parents) {
      if (const auto *P = Parent.get<Stmt>())
        return P;
      if (!Var)
        Var = Parent.get<VarDecl>();
    }
    if (!Var || isa<ParmVarDecl>(Var))
      return nullptr;
    Parents = Ctx.getParents(*Var);
  }
  return nullptr;
}

const CXXRecordDecl *localObjectClass(const Decl *D) {
  const auto *Var = dyn_cast_or_null<VarDecl>(D);
  if (!Var || !Var->isLocalVarDecl() || Var->isStaticLocal() ||
      Var->getType()->isReferenceType() || Var->getType()->isDependentType())
    return nullptr;
  const CXXRecordDecl *Class = Var->getType()->getAsCXXRecordDecl();
  return Class && Class->hasDefinition() && !Class->isDependentType() ? Class
                                                                      : nullptr;
}

const FunctionDecl *enclosingFunction(const Stmt *S, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*S);
  while (!Parents.empty()) {
    const DynTypedNode &P = Parents[0];
    if (const auto *FD = P.get<FunctionDecl>())
      return FD;
    if (const auto *Lambda = P.get<LambdaExpr>())
      return Lambda->getCallOperator();
    Parents = Ctx.getParents(P);
  }
  return nullptr;
}

const Expr *ignoreTemporaries(const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
      E = Cleanups->getSubExpr();
    else if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(E))
      E = Temp->getSubExpr();
    else if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(E))
      E = Bind->getSubExpr();
    else
      return E;
  }
  return E;
}

const Stmt *consumerOf(const Expr *Use, ASTContext &Ctx, const Stmt **Child) {
  const Stmt *Current = Use;
  for (const Stmt *P = parentStmt(Use, Ctx); P;
       Current = P, P = parentStmt(P, Ctx)) {
    if (isa<ImplicitCastExpr, MaterializeTemporaryExpr, ParenExpr,
            CXXBindTemporaryExpr, CXXConstructExpr>(P))
      continue;
    *Child = Current;
    return P;
  }
  *Child = Current;
  return nullptr;
}

const ValueDecl *invokedVariable(const CallExpr *Call) {
  const auto *Invoke = dyn_cast<CXXOperatorCallExpr>(Call);
  if (!Invoke || Invoke->getOperator() != OO_Call || Invoke->getNumArgs() == 0)
    return nullptr;
  const auto *Ref =
      dyn_cast<DeclRefExpr>(Invoke->getArg(0)->IgnoreParenImpCasts());
  return Ref ? Ref->getDecl() : nullptr;
}

const VarDecl *rootVariable(const Expr *E) {
  while (E) {
    E = ignoreTemporaries(E)->IgnoreParenCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(Ref->getDecl());
    if (const auto *Member = dyn_cast<MemberExpr>(E))
      E = Member->getBase();
    else if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E))
      E = Subscript->getBase();
    else if (const auto *Unary = dyn_cast<UnaryOperator>(E))
      E = Unary->getSubExpr();
    else if (const auto *Bin = dyn_cast<BinaryOperator>(E);
             Bin && Bin->isAdditiveOp())
      E = Bin->getLHS()->getType()->isPointerType() ? Bin->getLHS()
                                                    : Bin->getRHS();
    else if (const auto *MemberCall = dyn_cast<CXXMemberCallExpr>(E))
      E = MemberCall->getImplicitObjectArgument();
    else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E);
             Operator && Operator->getNumArgs() > 0)
      E = Operator->getArg(0);
    else
      return nullptr;
  }
  return nullptr;
}

const Expr *ignoreCopiesAndConversions(const Expr *E) {
  while (E) {
    E = ignoreTemporaries(E);
    const auto *Construct = dyn_cast<CXXConstructExpr>(E);
    if (!Construct || isa<CXXTemporaryObjectExpr>(Construct) ||
        Construct->getNumArgs() == 0 ||
        isa<CXXDefaultArgExpr>(Construct->getArg(0)))
      return E;
    // Only the first argument may be written: Device(type, index = -1).
    for (unsigned I = 1; I < Construct->getNumArgs(); ++I)
      if (!isa<CXXDefaultArgExpr>(Construct->getArg(I)))
        return E;
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (!Ctor->isCopyOrMoveConstructor() &&
        !Ctor->isConvertingConstructor(/*AllowExplicit=*/false))
      return E;
    E = Construct->getArg(0);
  }
  return E;
}

bool isWithin(const Stmt *Inner, const Stmt *Outer, ASTContext &Ctx) {
  for (const Stmt *S = Inner; S; S = parentStmt(S, Ctx))
    if (S == Outer)
      return true;
  return false;
}

const FunctionDecl *definedCallee(const CallExpr *Call,
                                  const SourceManager &SM) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return nullptr;
  const FunctionDecl *Definition = nullptr;
  if (!Callee->hasBody(Definition) || !Definition)
    return nullptr;
  // Library internals (LibTorch's inline wrappers) are catalogued by name.
  if (SM.isInSystemHeader(SM.getExpansionLoc(Definition->getLocation())))
    return nullptr;
  return Definition;
}

std::optional<AssignmentParts> assignmentParts(const Stmt &S) {
  if (const auto *Op = dyn_cast<BinaryOperator>(&S); Op && Op->isAssignmentOp())
    return AssignmentParts{Op->getLHS(), Op->getRHS(),
                           Op->isCompoundAssignmentOp()};
  if (const auto *Call = dyn_cast<CXXOperatorCallExpr>(&S);
      Call && Call->isAssignmentOp() && Call->getNumArgs() == 2)
    return AssignmentParts{Call->getArg(0), Call->getArg(1),
                           Call->getOperator() != OO_Equal};
  return std::nullopt;
}

bool isLoopStmt(const Stmt *S) {
  return isa<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt>(S);
}

const Stmt *loopBody(const Stmt *Loop) {
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    return For->getBody();
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Loop))
    return Range->getBody();
  if (const auto *While = dyn_cast<WhileStmt>(Loop))
    return While->getBody();
  if (const auto *Do = dyn_cast<DoStmt>(Loop))
    return Do->getBody();
  // An algorithm call: its lambda's body.
  if (const auto *Call = dyn_cast<CallExpr>(Loop))
    for (const Expr *Arg : Call->arguments())
      if (const auto *Lambda =
              dyn_cast<LambdaExpr>(Arg->IgnoreImplicit()->IgnoreParens()))
        return Lambda->getBody();
  return Loop;
}

bool isRepeatedPartOfLoop(const Stmt *Child, const Stmt *Loop) {
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    return Child == For->getBody() || Child == For->getCond() ||
           Child == For->getInc() ||
           Child == For->getConditionVariableDeclStmt();
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Loop))
    return Child == Range->getBody() || Child == Range->getLoopVarStmt() ||
           Child == Range->getInc() || Child == Range->getCond();
  if (const auto *While = dyn_cast<WhileStmt>(Loop))
    return Child == While->getBody() || Child == While->getCond() ||
           Child == While->getConditionVariableDeclStmt();
  if (const auto *Do = dyn_cast<DoStmt>(Loop))
    return Child == Do->getBody() || Child == Do->getCond();
  return false;
}

bool isNamed(const NamedDecl *D, llvm::StringRef Name) {
  return D && D->getIdentifier() && D->getName() == Name;
}

std::optional<int64_t> evaluateInt(const Expr *E, const ASTContext &Ctx) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  Expr::EvalResult Result;
  if (!E->EvaluateAsInt(Result, Ctx))
    return std::nullopt;
  return Result.Val.getInt().getExtValue();
}

std::optional<uint64_t> evaluateCount(const Expr *E, const ASTContext &Ctx) {
  std::optional<int64_t> Value = evaluateInt(E, Ctx);
  if (!Value || *Value < 0)
    return std::nullopt;
  return static_cast<uint64_t>(*Value);
}

std::optional<bool> evaluateCondition(const Expr *E, const ASTContext &Ctx) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  bool Value = false;
  if (!E->EvaluateAsBooleanCondition(Value, Ctx))
    return std::nullopt;
  return Value;
}

bool isBeforeInSource(const Stmt *A, const Stmt *B, const SourceManager &SM) {
  return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(A->getEndLoc()),
                                      SM.getExpansionLoc(B->getBeginLoc()));
}

unsigned lineOf(const Stmt *S, const SourceManager &SM) {
  return SM.getExpansionLineNumber(S->getBeginLoc());
}

bool isManagedVariable(const VarDecl *Var) {
  if (Var->hasAttr<HIPManagedAttr>())
    return true;
  if (!Var->hasGlobalStorage())
    return false;
  const ASTContext &Ctx = Var->getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Begin = SM.getExpansionLoc(Var->getBeginLoc());
  SourceLocation Name = SM.getExpansionLoc(Var->getLocation());
  if (Begin.isInvalid() || Name.isInvalid() ||
      SM.getFileID(Begin) != SM.getFileID(Name))
    return false;
  llvm::StringRef Text = Lexer::getSourceText(
      CharSourceRange::getCharRange(Begin, Name), SM, Ctx.getLangOpts());
  return Text.contains("__managed__");
}

bool isMacroStatementWrapper(const Stmt *S, ASTContext &Ctx) {
  if (const auto *Do = dyn_cast_or_null<DoStmt>(S))
    return evaluateCondition(Do->getCond(), Ctx) == false;
  const auto *Braces = dyn_cast_or_null<CompoundStmt>(S);
  const SourceManager &SM = Ctx.getSourceManager();
  return Braces && Braces->getLBracLoc().isMacroID() &&
         Braces->getRBracLoc().isMacroID() &&
         SM.isMacroBodyExpansion(Braces->getLBracLoc()) &&
         isa_and_nonnull<CompoundStmt>(parentStmt(Braces, Ctx));
}

const Stmt *macroWrapperOfBlock(const Stmt *Block, ASTContext &Ctx) {
  if (!isa_and_nonnull<CompoundStmt>(Block))
    return nullptr;
  if (isMacroStatementWrapper(Block, Ctx))
    return Block;
  const Stmt *Parent = parentStmt(Block, Ctx);
  return isMacroStatementWrapper(Parent, Ctx) ? Parent : nullptr;
}

bool isInsideMacroStatementWrapper(const Stmt *S, ASTContext &Ctx) {
  return macroWrapperOfBlock(parentStmt(S, Ctx), Ctx) != nullptr;
}

std::optional<PlaceInBlock> placeInBlock(const CallExpr *Call,
                                         ASTContext &Ctx) {
  const Stmt *Statement = Call;
  for (const Stmt *P = parentStmt(Call, Ctx); P;
       Statement = P, P = parentStmt(P, Ctx)) {
    // Inside `CHECK(call)` expanding to `do { ... } while (0)`: the macro's
    // statement is the one in the user's block.
    if (const Stmt *Wrapper = macroWrapperOfBlock(P, Ctx)) {
      Statement = P = Wrapper;
      continue;
    }
    if (const auto *Block = dyn_cast<CompoundStmt>(P)) {
      llvm::ArrayRef<Stmt *> Body(Block->body_begin(), Block->body_end());
      auto At = llvm::find(Body, Statement);
      if (At == Body.end())
        return std::nullopt;
      return PlaceInBlock{Body, At};
    }
    if (!isa<Expr>(P) && !isa<DeclStmt>(P) &&
        !(isa<IfStmt>(P) && isInsideMacroStatementWrapper(P, Ctx)))
      return std::nullopt;
  }
  return std::nullopt;
}

} // namespace clang::tidy::xfer
