//===--- ReportFiltersTest.cpp - line filters from git diff ---------------===//

#include "ReportFilters.h"
#include "gtest/gtest.h"

namespace xfer {
namespace {

TEST(ReportFiltersTest, LineFilterFromGitDiff) {
  const char *Diff = "diff --git a/src/a.cpp b/src/a.cpp\n"
                     "--- a/src/a.cpp\n"
                     "+++ b/src/a.cpp\n"
                     "@@ -3 +3 @@ void f() {\n"
                     "-  old();\n"
                     "+  changed();\n"
                     "@@ -10,0 +11,3 @@\n"
                     "+  added();\n"
                     "@@ -20,2 +23,0 @@\n"
                     "-  deleted();\n"
                     "diff --git a/gone.cpp b/gone.cpp\n"
                     "--- a/gone.cpp\n"
                     "+++ /dev/null\n"
                     "@@ -1,2 +0,0 @@\n"
                     "diff --git a/only-deletions.h b/only-deletions.h\n"
                     "--- a/only-deletions.h\n"
                     "+++ b/only-deletions.h\n"
                     "@@ -4,2 +3,0 @@\n"
                     "--- a/with space.cu\t\n"
                     "+++ b/with space.cu\t\n"
                     "@@ -0,0 +1 @@\n";
  LineFilter Filter = lineFilterFromDiff(Diff, "/repo");
  ASSERT_EQ(2u, Filter.size());
  EXPECT_EQ("/repo/src/a.cpp", Filter[0].Name);
  EXPECT_EQ((std::vector<std::pair<unsigned, unsigned>>{{3, 3}, {11, 13}}),
            Filter[0].LineRanges);
  EXPECT_EQ("/repo/with space.cu", Filter[1].Name);
  EXPECT_EQ((std::vector<std::pair<unsigned, unsigned>>{{1, 1}}),
            Filter[1].LineRanges);

  Finding F;
  F.CheckName = "xfer-sync-in-loop";
  F.Where.File = "/repo/src/a.cpp";
  F.Where.Line = 12;
  EXPECT_TRUE(passesLineFilter(F, Filter));
  F.Where.Line = 5;
  EXPECT_FALSE(passesLineFilter(F, Filter));
  F.Where.File = "/repo/src/b.cpp";
  EXPECT_FALSE(passesLineFilter(F, Filter));
  EXPECT_TRUE(passesLineFilter(F, {}));
  F.CheckName = "clang-diagnostic-error";
  EXPECT_TRUE(passesLineFilter(F, Filter));
}

} // namespace
} // namespace xfer
