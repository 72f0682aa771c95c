//===--- UserCodeTraversal.cpp - walk the user's code, not the headers' ---===//

#include "analysis/UserCodeTraversal.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::xfer {

void narrowTraversalToUserCode(ASTContext &Ctx) {
  std::vector<Decl *> Scope = Ctx.getTraversalScope();
  if (Scope.size() != 1 || !isa<TranslationUnitDecl>(Scope.front()))
    return; // already narrowed (by xfer-tidy, or by an earlier check)
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<Decl *> UserDecls;
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (!SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      UserDecls.push_back(D);
  Ctx.setTraversalScope(UserDecls);
}

namespace {

class NarrowOnTranslationUnit
    : public ast_matchers::MatchFinder::MatchCallback {
public:
  void run(const ast_matchers::MatchFinder::MatchResult &Result) override {
    narrowTraversalToUserCode(*Result.Context);
  }
  // Not a check: it reports nothing and keeps no state.
  StringRef getID() const override { return "xfer-user-code-traversal"; }
};

} // namespace

void walkOnlyUserCode(ast_matchers::MatchFinder &Finder) {
  static NarrowOnTranslationUnit Callback;
  Finder.addMatcher(ast_matchers::translationUnitDecl(), &Callback);
}

} // namespace clang::tidy::xfer
