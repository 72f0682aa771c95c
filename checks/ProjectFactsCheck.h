//===--- ProjectFactsCheck.h - xferindex-project-facts ---------------------===//
//
// Not a diagnostic check: xfer-tidy runs it over every translation unit of a
// program first, to write each unit's facts (ProjectFacts::collect) to
// OutputDirectory. Its name is outside the xfer- prefix so that `xfer-*`
// does not enable it.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_PROJECTFACTSCHECK_H
#define XFER_TIDY_CHECKS_PROJECTFACTSCHECK_H

#include "clang-tidy/ClangTidyCheck.h"

namespace clang::tidy::xfer {

class ProjectFactsCheck : public ClangTidyCheck {
public:
  ProjectFactsCheck(llvm::StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  const std::string OutputDirectory;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_PROJECTFACTSCHECK_H
