//===--- ProjectFactsCheck.cpp - xferindex-project-facts -------------------===//

#include "ProjectFactsCheck.h"
#include "analysis/ProjectFacts.h"
#include "analysis/UserCodeTraversal.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace clang::ast_matchers;

namespace clang::tidy::xfer {

ProjectFactsCheck::ProjectFactsCheck(llvm::StringRef Name,
                                     ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      OutputDirectory(Options.get("OutputDirectory", "")) {}

void ProjectFactsCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "OutputDirectory", OutputDirectory);
}

void ProjectFactsCheck::registerMatchers(MatchFinder *Finder) {
  walkOnlyUserCode(*Finder);
  Finder->addMatcher(translationUnitDecl().bind("unit"), this);
}

void ProjectFactsCheck::check(const MatchFinder::MatchResult &Result) {
  if (OutputDirectory.empty())
    return;
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = Ctx.getSourceManager();
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  if (!Main)
    return;
  DeviceInference Devices(Ctx);
  llvm::json::Value Facts = ProjectFacts::collect(Ctx, Devices);
  // One file per translation unit, named by its main file.
  llvm::SmallString<256> Path(OutputDirectory);
  llvm::sys::path::append(
      Path, llvm::utohexstr(llvm::xxh3_64bits(Main->getName())) + ".json");
  if (llvm::Error Failed = llvm::writeToOutput(
          Path, [&](llvm::raw_ostream &OS) {
            OS << Facts;
            return llvm::Error::success();
          }))
    configurationDiag("cannot write the project facts of %0: %1")
        << Main->getName() << llvm::toString(std::move(Failed));
}

} // namespace clang::tidy::xfer
