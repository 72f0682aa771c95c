//===--- AnnotatedSource.cpp - expectations written next to test code -----===//

#include "AnnotatedSource.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

namespace xfer::test {
namespace {

/// Resolves ":[[@LINE-1]]:7: warning: text" written on line \p Line to
/// "<line>:7: warning: text"; a trailing " ..." makes it a prefix.
llvm::Expected<ExpectedDiagnostic>
resolveExpectation(llvm::StringRef Text, unsigned Line, llvm::StringRef Path) {
  static const llvm::Regex Pattern(
      "^:(\\[\\[@LINE([+-][0-9]+)?\\]\\]|[0-9]+):([0-9]+): (.*)$");
  llvm::SmallVector<llvm::StringRef, 5> Groups;
  if (!Pattern.match(Text.trim(), &Groups))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s:%u: malformed expectation '%s'", Path.str().c_str(), Line,
        Text.str().c_str());
  int64_t Target = Line;
  if (Groups[1].starts_with("[[")) {
    if (!Groups[2].empty()) {
      int64_t Offset = 0;
      llvm::StringRef Digits = Groups[2].drop_front();
      Digits.getAsInteger(10, Offset);
      Target += Groups[2].front() == '-' ? -Offset : Offset;
    }
  } else {
    Groups[1].getAsInteger(10, Target);
  }
  llvm::StringRef Message = Groups[4];
  bool Prefix = Message.consume_back(" ...");
  return ExpectedDiagnostic{std::to_string(Target) + ":" + Groups[3].str() +
                                ": " + Message.str(),
                            Prefix};
}

/// The closest line before \p Index (0-based) that is not a comment, as a
/// 1-based line number; 0 if none.
unsigned codeLineAbove(llvm::ArrayRef<llvm::StringRef> Lines, unsigned Index) {
  while (Index > 0) {
    --Index;
    llvm::StringRef Line = Lines[Index].trim();
    if (!Line.empty() && !Line.starts_with("//"))
      return Index + 1;
  }
  return 0;
}

} // namespace

llvm::Expected<AnnotatedSource> parseAnnotatedSource(llvm::StringRef Path,
                                                      llvm::StringRef IncludeDir) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(), "cannot read %s",
                                   Path.str().c_str());
  AnnotatedSource Source;
  Source.Path = Path.str();
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  (*Buffer)->getBuffer().split(Lines, '\n');
  for (unsigned I = 0; I < Lines.size(); ++I) {
    llvm::StringRef Line = Lines[I].trim();
    unsigned LineNumber = I + 1;
    if (!Line.consume_front("//"))
      continue;
    Line = Line.trim();
    if (Line.consume_front("XFER-ARGS:")) {
      llvm::SmallVector<llvm::StringRef, 8> Args;
      llvm::SplitString(Line, Args);
      for (llvm::StringRef Arg : Args) {
        std::string Expanded = Arg.str();
        size_t At = Expanded.find("%include");
        if (At != std::string::npos)
          Expanded.replace(At, 8, IncludeDir.str());
        Source.CompilerArgs.push_back(Expanded);
      }
    } else if (Line.consume_front("XFER-CHECKS:")) {
      Source.Checks = Line.trim().str();
    } else if (Line.consume_front("XFER-COST-MODEL:")) {
      Source.CostModel = Line.trim().str();
    } else if (Line.consume_front("XFER-CONFIG:")) {
      Source.Config = Line.trim().str();
    } else if (Line.consume_front("XFER-WARNING:")) {
      llvm::Expected<ExpectedDiagnostic> D =
          resolveExpectation(Line, LineNumber, Path);
      if (!D)
        return D.takeError();
      Source.ExpectedWarnings.push_back(std::move(*D));
    } else if (Line.consume_front("XFER-NOTE:")) {
      llvm::Expected<ExpectedDiagnostic> D =
          resolveExpectation(Line, LineNumber, Path);
      if (!D)
        return D.takeError();
      Source.ExpectedNotes.push_back(std::move(*D));
      Source.ComparesNotes = true;
    } else if (Line.consume_front("XFER-FIXES:")) {
      unsigned Code = codeLineAbove(Lines, I);
      if (Code == 0)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "%s:%u: XFER-FIXES with no code above",
                                       Path.str().c_str(), LineNumber);
      Source.ExpectedFixes.push_back({Code, Line.trim().str()});
    } else if (Line.starts_with("CHECK-")) {
      // clang-tidy's lit names mean something else there; say so rather
      // than ignore an expectation.
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "%s:%u: unknown expectation (XFER-WARNING, XFER-NOTE, XFER-FIXES)",
          Path.str().c_str(), LineNumber);
    }
  }
  return Source;
}

} // namespace xfer::test
