//===--- UserCodeTraversal.h - walk the user's code, not the headers' -----===//
//
// A LibTorch translation unit is ~280k lines of system headers around a few
// hundred of the user's. The checks match and ask for parents only in the
// user's code, so the AST walk (and the parent map, which covers what the
// walk covers) is narrowed to the top-level declarations outside system
// headers, as clangd does for its main file. The analyses still reach
// system declarations through the user's code.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_USERCODETRAVERSAL_H
#define XFER_TIDY_CHECKS_ANALYSIS_USERCODETRAVERSAL_H

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

namespace clang::tidy::xfer {

/// Sets \p Ctx's traversal scope to its top-level declarations outside
/// system headers (once: a scope already narrowed is left alone, so the
/// parent map is not rebuilt).
void narrowTraversalToUserCode(ASTContext &Ctx);

/// Narrows the traversal of every run of \p Finder when the walk reaches
/// the translation unit, before it descends into its declarations. Inside
/// clang-tidy the walk is shared by all enabled checks: theirs is narrowed
/// too, which changes nothing they report outside system headers.
void walkOnlyUserCode(ast_matchers::MatchFinder &Finder);

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_USERCODETRAVERSAL_H
