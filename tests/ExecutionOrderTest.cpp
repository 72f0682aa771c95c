//===- ExecutionOrderTest.cpp - what runs before what, and AST helpers ----===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "analysis/ExecutionOrder.h"
#include "analysis/AstUtils.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "gtest/gtest.h"
#include <string>
#include <vector>

using namespace clang;
using namespace clang::ast_matchers;
using clang::tidy::xfer::ExecutionOrder;

namespace {

/// A parsed snippet whose calls to `first()`, `second()`, ... are looked up
/// by the callee's name.
class Snippet {
public:
  explicit Snippet(const std::string &Body)
      : AST(tooling::buildASTFromCodeWithArgs(
            "int first(); int second(); int third(); bool flag();\n"
            "[[noreturn]] void fail();\n" +
                Body,
            {"-std=c++17", "-fexceptions"})) {}

  ASTContext &context() { return AST->getASTContext(); }

  const CallExpr *call(llvm::StringRef Name) {
    // The matcher may reach a node twice (both forms of a braced list).
    llvm::SmallPtrSet<const CallExpr *, 2> Calls;
    for (const BoundNodes &Nodes :
         match(findAll(callExpr(callee(functionDecl(hasName(Name)))).bind("c")),
               context()))
      Calls.insert(Nodes.getNodeAs<CallExpr>("c"));
    EXPECT_EQ(1u, Calls.size()) << Name.str();
    return Calls.empty() ? nullptr : *Calls.begin();
  }

private:
  std::unique_ptr<ASTUnit> AST;
};

bool runsBefore(const std::string &Body) {
  Snippet Code(Body);
  ExecutionOrder Order(Code.context());
  return Order.alwaysRunsBefore(Code.call("first"), Code.call("second"));
}

bool unconditional(const std::string &Body) {
  Snippet Code(Body);
  ExecutionOrder Order(Code.context());
  return Order.runsWheneverFunctionRuns(Code.call("second"));
}

TEST(ExecutionOrderTest, StraightLineAndBranches) {
  EXPECT_TRUE(runsBefore("void f() { first(); second(); }"));
  EXPECT_FALSE(runsBefore("void f() { second(); first(); }"));
  EXPECT_FALSE(runsBefore("void f() { if (flag()) first(); second(); }"));
  EXPECT_TRUE(runsBefore("void f() { if (flag()) third(); first(); "
                         "second(); }"));
  EXPECT_TRUE(runsBefore("void f() { first(); if (flag()) second(); }"));
  EXPECT_FALSE(runsBefore("void f() { flag() && first(); second(); }"));
  EXPECT_TRUE(runsBefore("void f() { int x = first() + second(); }"));
}

TEST(ExecutionOrderTest, JumpsAndLoops) {
  EXPECT_FALSE(runsBefore("void f() { if (flag()) goto L; first(); "
                          "L: second(); }"));
  EXPECT_TRUE(runsBefore("void f() { if (flag()) goto L; third(); "
                         "L: first(); second(); }"));
  EXPECT_FALSE(runsBefore("void f() { while (flag()) first(); second(); }"));
  EXPECT_TRUE(runsBefore("void f() { do first(); while (flag()); second(); }"));
  EXPECT_TRUE(runsBefore("void f() { for (first(); flag();) second(); }"));
  EXPECT_TRUE(runsBefore("void f() { while (flag()) { if (flag()) continue; "
                         "first(); second(); } }"));
}

TEST(ExecutionOrderTest, LambdaBodiesAreTheirOwnFunctions) {
  EXPECT_TRUE(runsBefore("void f() { [] { first(); second(); }(); }"));
  EXPECT_FALSE(runsBefore("void f() { auto l = [] { first(); }; second(); }"));
  // A lambda body runs when it is called, which the CFG of the function
  // that creates it does not show.
  EXPECT_FALSE(runsBefore("void f() { first(); auto l = [] { second(); }; }"));
}

TEST(ExecutionOrderTest, ChoicesGuardsAndLoops) {
  EXPECT_TRUE(unconditional("void f() { first(); second(); }"));
  EXPECT_FALSE(unconditional("void f() { if (flag()) second(); }"));
  EXPECT_FALSE(unconditional("void f() { if (flag()) first(); "
                             "else second(); }"));
  EXPECT_FALSE(unconditional("void f() { flag() ? second() : first(); }"));
  EXPECT_FALSE(unconditional("void f() { flag() || second(); }"));
  EXPECT_FALSE(unconditional("void f(int k) { switch (k) { case 1: "
                             "second(); } }"));
  // Guard clauses: the other arm leaves.
  EXPECT_TRUE(unconditional("void f() { if (!flag()) return; second(); }"));
  EXPECT_TRUE(unconditional("void f() { if (!flag()) fail(); second(); }"));
  EXPECT_TRUE(unconditional("void f() { if (!flag()) throw 1; second(); }"));
  EXPECT_TRUE(unconditional("void f() { if (flag()) { second(); } "
                            "else { first(); return; } }"));
  EXPECT_FALSE(unconditional("void f() { if (flag()) { second(); return; } "
                             "first(); }"));
  // Loops do not make a choice of their own.
  EXPECT_TRUE(unconditional("void f() { for (int i = 0; i < 3; ++i) "
                            "second(); }"));
  EXPECT_TRUE(unconditional("void f() { while (flag()) { if (flag()) break; "
                            "second(); } }"));
  EXPECT_FALSE(unconditional("void f() { while (flag()) { if (flag()) "
                             "second(); } }"));
  EXPECT_TRUE(unconditional("void f() { try { second(); } catch (...) {} }"));
}

TEST(AstUtilsTest, ParentOfABracedListElementIsTheList) {
  Snippet Code("struct P { int a, b; };\n"
               "void f() { P p = {first(), second()}; }");
  const Stmt *Parent =
      clang::tidy::xfer::parentStmt(Code.call("second"), Code.context());
  ASSERT_NE(nullptr, Parent);
  EXPECT_TRUE(isa<InitListExpr>(Parent));
  const Stmt *Above = Parent;
  while (Above && !isa<DeclStmt>(Above))
    Above = clang::tidy::xfer::parentStmt(Above, Code.context());
  EXPECT_NE(nullptr, Above) << "the walk reaches the declaration";
}

TEST(AstUtilsTest, ConstantEvaluation) {
  Snippet Code("constexpr int N = 4;\n"
               "void take(int);\n"
               "void f(int k) { take(N * 2); take(-1); take(k); }");
  std::vector<const Expr *> Args;
  for (const BoundNodes &Nodes :
       match(findAll(callExpr(callee(functionDecl(hasName("take"))),
                              hasArgument(0, expr().bind("a")))),
             Code.context()))
    if (!llvm::is_contained(Args, Nodes.getNodeAs<Expr>("a")))
      Args.push_back(Nodes.getNodeAs<Expr>("a"));
  ASSERT_EQ(3u, Args.size());
  const auto *Eight = Args[0];
  const auto *MinusOne = Args[1];
  const auto *Unknown = Args[2];
  EXPECT_EQ(std::optional<int64_t>(8),
            clang::tidy::xfer::evaluateInt(Eight, Code.context()));
  EXPECT_EQ(std::optional<uint64_t>(8),
            clang::tidy::xfer::evaluateCount(Eight, Code.context()));
  EXPECT_EQ(std::optional<int64_t>(-1),
            clang::tidy::xfer::evaluateInt(MinusOne, Code.context()));
  EXPECT_EQ(std::nullopt,
            clang::tidy::xfer::evaluateCount(MinusOne, Code.context()));
  EXPECT_EQ(std::nullopt,
            clang::tidy::xfer::evaluateInt(Unknown, Code.context()));
  EXPECT_EQ(std::optional<bool>(true),
            clang::tidy::xfer::evaluateCondition(Eight, Code.context()));
}

} // namespace
