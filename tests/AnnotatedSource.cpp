//===--- AnnotatedSource.cpp - expectations written next to test code -----===//

#include "AnnotatedSource.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

namespace xfer::test {
namespace {

/// Resolves ":[[@LINE-1]]:7: warning: text" written on line \p Line to
/// "<line>:7: warning: text".
llvm::Expected<RenderedDiagnostic> resolveExpectation(llvm::StringRef Text,
                                                      unsigned Line,
                                                      llvm::StringRef Path) {
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
  return std::to_string(Target) + ":" + Groups[3].str() + ": " +
         Groups[4].str();
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
    } else if (Line.consume_front("CHECK-MESSAGES:")) {
      llvm::Expected<RenderedDiagnostic> D =
          resolveExpectation(Line, LineNumber, Path);
      if (!D)
        return D.takeError();
      Source.ExpectedWarnings.push_back(std::move(*D));
    } else if (Line.consume_front("CHECK-NOTES:")) {
      llvm::Expected<RenderedDiagnostic> D =
          resolveExpectation(Line, LineNumber, Path);
      if (!D)
        return D.takeError();
      Source.ExpectedNotes.push_back(std::move(*D));
      Source.ComparesNotes = true;
    }
  }
  return Source;
}

} // namespace xfer::test
