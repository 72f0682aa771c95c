//===- UserCodeTraversalTest.cpp - the checks walk only the user's code ---===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "analysis/UserCodeTraversal.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"
#include <set>
#include <string>

using namespace clang;
using namespace clang::ast_matchers;

namespace {

/// The names of the function definitions a match run visits.
class DefinitionNames : public MatchFinder::MatchCallback {
public:
  void run(const MatchFinder::MatchResult &Result) override {
    if (const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>("fn"))
      Names.insert(Function->getNameAsString());
  }
  std::set<std::string> Names;
};

std::set<std::string> visitedDefinitions(bool Narrowed) {
  std::unique_ptr<ASTUnit> AST = tooling::buildASTFromCodeWithArgs(
      "#include <library.h>\nvoid user() { library(); }\n",
      {"-isystem", "/system"}, "input.cc", "user-code-traversal-test",
      std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(),
      {{"/system/library.h", "inline void helper() {}\n"
                             "inline void library() { helper(); }\n"}});
  EXPECT_TRUE(AST);
  if (!AST)
    return {};
  DefinitionNames Callback;
  MatchFinder Finder;
  Finder.addMatcher(functionDecl(isDefinition()).bind("fn"), &Callback);
  if (Narrowed)
    tidy::xfer::walkOnlyUserCode(Finder);
  Finder.matchAST(AST->getASTContext());
  return Callback.Names;
}

// The whole translation unit without the narrowing; only the user's
// top-level declarations with it (the system header's inline functions are
// most of a LibTorch unit).
TEST(UserCodeTraversalTest, WalkSkipsSystemHeaderDeclarations) {
  EXPECT_EQ((std::set<std::string>{"helper", "library", "user"}),
            visitedDefinitions(/*Narrowed=*/false));
  EXPECT_EQ((std::set<std::string>{"user"}),
            visitedDefinitions(/*Narrowed=*/true));
}

} // namespace
