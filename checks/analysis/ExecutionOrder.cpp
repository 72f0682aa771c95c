//===--- ExecutionOrder.cpp - what runs before what, from clang's CFG -----===//

#include "analysis/ExecutionOrder.h"
#include "analysis/AstUtils.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/Dominators.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <utility>

namespace clang::tidy::xfer {

/// The CFG of one function or lambda body, where each statement sits in it,
/// and its dominator and post-dominator trees.
struct ExecutionOrder::BodyOrder {
  struct Position {
    const CFGBlock *Block;
    unsigned Index; // element index in the block
  };

  std::unique_ptr<CFG> Graph;
  llvm::DenseMap<const Stmt *, Position> Positions;
  CFGDomTree Dominators;
  CFGPostDomTree PostDominators;

  /// Where \p S, or the closest statement around it that the CFG lists,
  /// runs in this body; std::nullopt outside it.
  std::optional<Position> positionOf(const Stmt *S, ASTContext &Ctx) const {
    for (; S; S = parentStmt(S, Ctx))
      if (auto It = Positions.find(S); It != Positions.end())
        return It->second;
    return std::nullopt;
  }
};

namespace {

/// The function or lambda body that holds \p S, with its declaration.
std::pair<const Stmt *, const Decl *> enclosingBody(const Stmt *S,
                                                    ASTContext &Ctx) {
  DynTypedNode Child = DynTypedNode::create(*S);
  for (DynTypedNodeList Parents = Ctx.getParents(*S); !Parents.empty();
       Parents = Ctx.getParents(Child)) {
    const DynTypedNode &Parent = Parents[0];
    const auto *ChildStmt = Child.get<Stmt>();
    if (const auto *Lambda = Parent.get<LambdaExpr>();
        Lambda && ChildStmt && Lambda->getBody() == ChildStmt)
      return {ChildStmt, Lambda->getCallOperator()};
    if (const auto *Function = Parent.get<FunctionDecl>())
      return ChildStmt && Function->getBody() == ChildStmt
                 ? std::pair<const Stmt *, const Decl *>{ChildStmt, Function}
                 : std::pair<const Stmt *, const Decl *>{};
    Child = Parent;
  }
  return {};
}

bool isNoReturnCall(const Stmt *S) {
  const auto *Call = dyn_cast<CallExpr>(S);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  return Callee && Callee->isNoReturn();
}

/// True if \p Arm ends by leaving: return, break, continue, goto, throw or
/// a call that does not return.
bool leaves(const Stmt *Arm) {
  if (!Arm)
    return false;
  if (const auto *Block = dyn_cast<CompoundStmt>(Arm))
    return !Block->body_empty() && leaves(Block->body_back());
  if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(Arm))
    return leaves(Cleanups->getSubExpr());
  return isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt, CXXThrowExpr>(
             Arm) ||
         isNoReturnCall(Arm);
}

/// True if \p If is a guard clause for \p S: the arm that does not lead to
/// \p S leaves.
bool isGuardClause(const IfStmt *If, const Stmt *S, ASTContext &Ctx) {
  if (If->getThen() && isWithin(S, If->getThen(), Ctx))
    return leaves(If->getElse());
  if (If->getElse() && isWithin(S, If->getElse(), Ctx))
    return leaves(If->getThen());
  return leaves(If->getThen()) || leaves(If->getElse());
}

} // namespace

ExecutionOrder::ExecutionOrder(ASTContext &Ctx) : Ctx(Ctx) {}
ExecutionOrder::~ExecutionOrder() = default;

ExecutionOrder::BodyOrder *ExecutionOrder::orderOf(const Stmt *S) {
  auto [Body, Owner] = enclosingBody(S, Ctx);
  if (!Body)
    return nullptr;
  auto [It, Inserted] = Bodies.try_emplace(Body);
  if (!Inserted)
    return It->second.get();

  CFG::BuildOptions Options;
  Options.setAllAlwaysAdd(); // every statement gets a position
  std::unique_ptr<CFG> Graph =
      CFG::buildCFG(Owner, const_cast<Stmt *>(Body), &Ctx, Options);
  if (!Graph)
    return nullptr;
  auto Order = std::make_unique<BodyOrder>();
  for (const CFGBlock *Block : *Graph) {
    unsigned Index = 0;
    for (const CFGElement &Element : *Block) {
      if (std::optional<CFGStmt> Statement = Element.getAs<CFGStmt>())
        Order->Positions.try_emplace(Statement->getStmt(),
                                     BodyOrder::Position{Block, Index});
      ++Index;
    }
  }
  // A declaration of several variables is split into one synthetic
  // statement per variable; the original finishes with the last of them.
  for (const auto &[Synthetic, Original] : Graph->synthetic_stmts()) {
    auto Found = Order->Positions.find(Synthetic);
    if (Found == Order->Positions.end())
      continue;
    auto [Entry, New] = Order->Positions.try_emplace(Original, Found->second);
    if (!New && Entry->second.Block == Found->second.Block &&
        Entry->second.Index < Found->second.Index)
      Entry->second = Found->second;
  }
  Order->Dominators.buildDominatorTree(Graph.get());
  Order->PostDominators.buildDominatorTree(Graph.get());
  Order->Graph = std::move(Graph);
  It->second = std::move(Order);
  return It->second.get();
}

bool ExecutionOrder::alwaysRunsBefore(const Stmt *Earlier, const Stmt *Later) {
  BodyOrder *Order = orderOf(Earlier);
  if (!Order)
    return false;
  std::optional<BodyOrder::Position> First = Order->positionOf(Earlier, Ctx);
  std::optional<BodyOrder::Position> Second = Order->positionOf(Later, Ctx);
  if (!First || !Second)
    return false;
  if (First->Block == Second->Block)
    return First->Index < Second->Index;
  return Order->Dominators.dominates(First->Block, Second->Block);
}

bool ExecutionOrder::runsWheneverFunctionRuns(const Stmt *S) {
  BodyOrder *Order = orderOf(S);
  if (!Order)
    return true; // no control flow around it (an initializer)
  std::optional<BodyOrder::Position> Where = Order->positionOf(S, Ctx);
  if (!Where)
    return true;
  // A branch that can skip S runs before it (dominates it) and is not
  // always followed by it (S does not post-dominate it).
  for (const CFGBlock *Branch : *Order->Graph) {
    const Stmt *Terminator = Branch->getTerminatorStmt();
    if (Branch == Where->Block || !Terminator || Branch->succ_size() < 2 ||
        !Order->Dominators.dominates(Branch, Where->Block) ||
        Order->PostDominators.dominates(Where->Block, Branch))
      continue;
    if (isLoopStmt(Terminator) || isa<CXXTryStmt>(Terminator))
      continue;
    if (const auto *If = dyn_cast<IfStmt>(Terminator);
        If && isGuardClause(If, S, Ctx))
      continue;
    return false;
  }
  return true;
}

bool ExecutionOrder::everyPathBackFinds(
    const Stmt *S, llvm::function_ref<Mark(const Stmt &)> Classify) {
  BodyOrder *Order = orderOf(S);
  if (!Order)
    return false;
  std::optional<BodyOrder::Position> Where = Order->positionOf(S, Ctx);
  if (!Where)
    return false;
  const Mark Self = Classify(*S);
  // Each block is scanned from its end, except S's own from just before S.
  llvm::SmallVector<std::pair<const CFGBlock *, unsigned>, 8> Work = {
      {Where->Block, Where->Index}};
  llvm::SmallPtrSet<const CFGBlock *, 16> Seen;
  while (!Work.empty()) {
    auto [Block, End] = Work.pop_back_val();
    bool Decided = false;
    for (unsigned I = End; I-- > 0;) {
      std::optional<CFGStmt> Element = (*Block)[I].getAs<CFGStmt>();
      if (!Element)
        continue;
      Mark M = Classify(*Element->getStmt());
      if (M == Mark::Blocked)
        return false;
      if (M == Mark::Found) {
        Decided = true;
        break;
      }
    }
    if (Decided)
      continue;
    if (Block == &Order->Graph->getEntry() || Block->pred_empty())
      return false; // reached the entry with nothing found
    for (const CFGBlock::AdjacentBlock &Pred : Block->preds()) {
      const CFGBlock *Previous = Pred.getReachableBlock();
      if (!Previous)
        continue;
      if (Previous == Where->Block) {
        // Around a loop back to S's block: what follows S there, then S.
        Mark Last = Self;
        for (unsigned I = Previous->size(); I-- > Where->Index + 1;)
          if (std::optional<CFGStmt> Element = (*Previous)[I].getAs<CFGStmt>())
            if (Mark M = Classify(*Element->getStmt()); M != Mark::Neither) {
              Last = M;
              break;
            }
        if (Last != Mark::Found)
          return false;
        continue;
      }
      if (Seen.insert(Previous).second)
        Work.push_back({Previous, static_cast<unsigned>(Previous->size())});
    }
  }
  return true;
}

} // namespace clang::tidy::xfer
