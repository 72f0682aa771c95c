//===--- OutputFormatsTest.cpp - report formats on synthetic findings -----===//

#include "OutputFormats.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

namespace xfer {
namespace {

Finding finding(std::string File, unsigned Line, unsigned Column,
                std::string Message) {
  Finding F;
  F.CheckName = "xfer-sync-in-loop";
  F.Where.File = std::move(File);
  F.Where.Line = Line;
  F.Where.Column = Column;
  F.Message = std::move(Message);
  return F;
}

// Workflow commands: '%', CR and LF escaped everywhere, ',' and ':' in
// properties too; the cost note follows the message.
TEST(OutputFormatsTest, GithubWorkflowCommandsAreEscaped) {
  Finding F = finding("/repo/src/a,b:c.cpp", 4, 7, "100% of\r\nthe time: x");
  F.Notes.push_back({{}, "loop starts here"});
  F.Notes.push_back({{}, "measured cost: 9.16 µs per call (measured on X)"});
  Finding Outside = finding("/elsewhere/b.cpp", 2, 1, "m");
  Outside.Severity = Finding::Level::Error;
  Outside.CheckName = "clang-diagnostic-error";
  Finding Nowhere = finding("", 0, 0, "unknown argument: '-foo'");
  Nowhere.Severity = Finding::Level::Error;
  Nowhere.CheckName = "clang-diagnostic-error";

  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeGithub(OS, {F, Outside, Nowhere}, "/repo");
  EXPECT_EQ("::warning file=src/a%2Cb%3Ac.cpp,line=4,col=7,"
            "title=xfer-sync-in-loop::100%25 of%0D%0Athe time: x (measured "
            "cost: 9.16 µs per call (measured on X))\n"
            "::error file=/elsewhere/b.cpp,line=2,col=1,"
            "title=clang-diagnostic-error::m\n"
            "::error title=clang-diagnostic-error::unknown argument: '-foo'\n",
            Text);
}

TEST(OutputFormatsTest, JsonNumbersAsWritten) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeJson(OS, llvm::json::Object{{"b", 5.18}, {"a", 17700.000000000004},
                                   {"c", llvm::json::Array{0.1, 3}}});
  EXPECT_EQ("{\n  \"a\": 17700,\n  \"b\": 5.18,\n  \"c\": [\n    0.1,\n    3\n"
            "  ]\n}",
            Text);
}

} // namespace
} // namespace xfer
