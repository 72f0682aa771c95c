//===--- MissingDeclarations.h - names a missing header would declare -----===//
//
// When a third-party header is missing (cxxopts, SDL2, ROS, a library
// fetched at build time), every name it declares is an error, and clang's
// recovery spreads the damage: a class with a field of an unknown type is
// invalid, so are the classes derived from it, and a range-for over a
// variable initialised from an invalid expression is dropped with its
// body. The hot loops of such a program then yield no findings at all.
//
// After an #include that was not found, names that no declaration answers
// are declared on the fly as the header would plausibly have declared them:
// `ns::` a namespace (whose members used in the project's files are
// declared too), a name followed by another name, `*` or `&` a type,
// anything else (a call among them) a variable. The type is one class that
// converts to and from anything and has every operator, so expressions that
// only pass such values around stay valid. Files that parse without a missing
// header are not affected.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_TOOL_COMPILE_MISSINGDECLARATIONS_H
#define XFER_TIDY_TOOL_COMPILE_MISSINGDECLARATIONS_H

#include "clang/Frontend/CompilerInstance.h"
#include "clang/Sema/SemaConsumer.h"
#include "llvm/ADT/StringRef.h"
#include <memory>

namespace xfer {

/// The path under which the stand-in type's declaration is served.
llvm::StringRef missingDeclarationsHeaderPath();

/// The text of that header: the stand-in type, in a system header.
llvm::StringRef missingDeclarationsHeaderText();

/// Sets up the recovery for one parse: watches the preprocessor for
/// includes that are not found, and returns a consumer (to run beside the
/// checks') that lets Sema ask for the missing names. The header must be
/// force-included (-include missingDeclarationsHeaderPath()).
std::unique_ptr<clang::SemaConsumer>
installMissingDeclarations(clang::CompilerInstance &CI);

} // namespace xfer

#endif // XFER_TIDY_TOOL_COMPILE_MISSINGDECLARATIONS_H
