//===--- FixItTest.cpp - the replacements the checks suggest --------------===//
//
// The annotated sources assert fixed lines (XFER-FIXES); these run the
// checks on small sources and compare the exact replacements of each fix-it
// (offsets and lengths) and the text they produce.
//
//===----------------------------------------------------------------------===//

#include "XferTidyRunner.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <string>
#include <vector>

namespace xfer::test {
namespace {

const char *const Prelude = "#include <torch/torch.h>\n"
                            "void f(int64_t N, torch::Device Dev) {\n";
const char *const Epilogue = "}\n";

/// What the checks made of one source.
struct FixOutcome {
  unsigned Warnings = 0;
  /// "<offset>:<length>:<replacement text>", in order.
  std::vector<std::string> Replacements;
  /// The function body after applying every fix.
  std::string Fixed;
};

class FixItTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("xfer-fixit", TempDir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(TempDir); }

  /// Runs \p Checks over \p Body wrapped in a function, and applies the
  /// fixes of its findings.
  FixOutcome run(llvm::StringRef Body,
                 llvm::StringRef Checks = "-*,xfer-create-on-device",
                 llvm::StringRef Config = "") {
    std::string Source = (CurrentPrelude + Body + Epilogue).str();
    llvm::SmallString<128> Path(TempDir);
    llvm::sys::path::append(Path, "input.cpp");
    {
      std::error_code EC;
      llvm::raw_fd_ostream Out(Path, EC);
      EXPECT_FALSE(EC) << EC.message();
      Out << Source;
    }
    clang::tooling::FixedCompilationDatabase Database(
        TempDir.str(),
        {"-std=c++17", "-isystem", XFER_TESTDATA_DIR "/include"});
    RunOptions Options;
    Options.Checks = Checks.str();
    // The bodies create once, outside loops: what is fixed does not depend
    // on how often it runs.
    llvm::Expected<clang::tidy::ClangTidyOptions> Parsed = parseConfigOption(
        Config.empty() ? "{CheckOptions: {xfer-create-on-device."
                         "ReportOneTimeCreations: true}}"
                       : Config);
    EXPECT_TRUE(static_cast<bool>(Parsed))
        << llvm::toString(Parsed.takeError());
    if (Parsed)
      Options.Config = std::move(*Parsed);
    Options.ResourceDir = XFER_CLANG_RESOURCE_DIR;
    RunResult Result = runChecks(Database, {std::string(Path)}, Options);
    EXPECT_TRUE(Result.UnitsWithErrors.empty());

    FixOutcome Outcome;
    clang::tooling::Replacements All;
    const size_t BodyOffset = CurrentPrelude.size();
    for (const clang::tidy::ClangTidyError &Error : Result.Diagnostics) {
      if (!llvm::StringRef(Error.DiagnosticName).starts_with("xfer-"))
        continue;
      ++Outcome.Warnings;
      for (const auto &[File, Replacements] : Error.Message.Fix)
        for (const clang::tooling::Replacement &R : Replacements) {
          Outcome.Replacements.push_back(
              std::to_string(R.getOffset() - BodyOffset) + ":" +
              std::to_string(R.getLength()) + ":" +
              R.getReplacementText().str());
          EXPECT_FALSE(static_cast<bool>(All.add(R)));
        }
    }
    llvm::Expected<std::string> Fixed =
        clang::tooling::applyAllReplacements(Source, All);
    EXPECT_TRUE(static_cast<bool>(Fixed));
    if (Fixed)
      Outcome.Fixed = llvm::StringRef(*Fixed)
                          .drop_front(BodyOffset)
                          .drop_back(llvm::StringRef(Epilogue).size())
                          .str();
    return Outcome;
  }

  llvm::SmallString<128> TempDir;
  /// What precedes each body: LibTorch by default.
  std::string CurrentPrelude = Prelude;
};

using Strings = std::vector<std::string>;

TEST_F(FixItTest, PassesTheDeviceAsTheOptionsArgument) {
  FixOutcome R = run("  auto T = torch::zeros({N, 2}).to(torch::kCUDA);\n");
  EXPECT_EQ(1u, R.Warnings);
  EXPECT_EQ((Strings{"30:0:, torch::kCUDA", "31:17:"}), R.Replacements);
  EXPECT_EQ("  auto T = torch::zeros({N, 2}, torch::kCUDA);\n", R.Fixed);
}

TEST_F(FixItTest, CudaBecomesTheCudaDeviceType) {
  EXPECT_EQ("  auto T = torch::tensor({1.0f, 2.0f}, torch::kCUDA);\n",
            run("  auto T = torch::tensor({1.0f, 2.0f}).cuda();\n").Fixed);
  EXPECT_EQ("  auto T = at::ones({N}, at::kCUDA);\n",
            run("  auto T = at::ones({N}).cuda();\n").Fixed);
}

TEST_F(FixItTest, AppendsTheDeviceToExistingOptions) {
  EXPECT_EQ("  auto T = torch::zeros({N,2}, "
            "torch::dtype(torch::kFloat).device(torch::kCUDA));\n",
            run("  auto T = torch::zeros({N,2}, "
                "torch::dtype(torch::kFloat)).to(torch::kCUDA);\n")
                .Fixed);
  // A dtype converted to TensorOptions implicitly is spelled out.
  EXPECT_EQ("  auto T = torch::ones({N}, "
            "torch::TensorOptions(torch::kLong).device(\"cuda:1\"));\n",
            run("  auto T = torch::ones({N}, torch::kLong).to(\"cuda:1\");\n")
                .Fixed);
}

TEST_F(FixItTest, RunTimeDevicesArePassedToo) {
  // Creating on `Dev` is what moving to `Dev` produces, whichever device it
  // names at run time.
  EXPECT_EQ("  auto T = (torch::empty({N}, Dev));\n",
            run("  auto T = (torch::empty({N})).to(Dev);\n").Fixed);
}

TEST_F(FixItTest, RandomFactoriesAreReportedButNotFixedByDefault) {
  const char *Body = "  auto T = torch::randn({N, 2}).to(torch::kCUDA);\n";
  FixOutcome Default = run(Body);
  EXPECT_EQ(1u, Default.Warnings);
  EXPECT_TRUE(Default.Replacements.empty());

  FixOutcome Enabled =
      run(Body, "-*,xfer-create-on-device",
          "{CheckOptions: {xfer-create-on-device.FixRandomFactories: true, "
          "xfer-create-on-device.ReportOneTimeCreations: true}}");
  EXPECT_EQ("  auto T = torch::randn({N, 2}, torch::kCUDA);\n",
            Enabled.Fixed);
}

TEST_F(FixItTest, NoFixWhereTheResultWouldDiffer) {
  for (const char *Body : {
           // to() also converts, or copies without blocking.
           "  auto T = torch::zeros({N}).to(torch::kCUDA, torch::kFloat);\n",
           "  auto T = torch::zeros({N}).to(torch::kCUDA, true);\n",
           // A leaf that requires grad vs a non-leaf copy of it.
           "  auto T = torch::zeros({N}, torch::dtype(torch::kFloat)"
           ".requires_grad()).cuda();\n",
           // The options already name a device.
           "  auto T = torch::zeros({N}, torch::kCPU).cuda();\n",
           // Through a variable.
           "  auto H = torch::zeros({N});\n  auto T = H.cuda();\n",
       }) {
    FixOutcome R = run(Body);
    EXPECT_EQ(1u, R.Warnings) << Body;
    EXPECT_TRUE(R.Replacements.empty()) << Body;
    EXPECT_EQ(Body, R.Fixed);
  }
}

TEST_F(FixItTest, NoFixInsideMacros) {
  const char *Body = "#define ON_GPU(T) (T).to(torch::kCUDA)\n"
                     "  auto T = ON_GPU(torch::zeros({N}));\n";
  FixOutcome R = run(Body);
  EXPECT_EQ(1u, R.Warnings);
  EXPECT_TRUE(R.Replacements.empty());
}

TEST_F(FixItTest, FixesTemplatesOnceThroughTheirPattern) {
  FixOutcome R = run("}\n"
                     "template <typename T> torch::Tensor g() {\n"
                     "  return torch::ones({4}).cuda();\n"
                     "}\n"
                     "void h() { g<int>(); g<float>();\n");
  EXPECT_EQ(1u, R.Warnings);
  EXPECT_EQ((Strings{"}\n"
                     "template <typename T> torch::Tensor g() {\n"
                     "  return torch::ones({4}, torch::kCUDA);\n"
                     "}\n"
                     "void h() { g<int>(); g<float>();\n"}),
            Strings{R.Fixed});
}

const char *const CudaPrelude = "#include <cstdlib>\n"
                                "#include <cuda_runtime.h>\n"
                                "#define CHECK(X) X\n"
                                "void f(size_t N, float *Unknown) {\n";

TEST_F(FixItTest, FreesWithTheAllocatorsOwnFunction) {
  CurrentPrelude = CudaPrelude;
  FixOutcome Out =
      run("  float *P, *D, *H;\n"
          "  cudaMallocHost((void **)&P, N);\n"
          "  cudaMalloc((void **)&D, N);\n"
          "  cudaFree(P);\n"
          "  ::cudaFreeHost(D);\n"
          "  cudaFreeHost(D);\n"
          "  CHECK(cudaFree(P));\n"
          "  H = (float *)malloc(N);\n"
          "  cudaHostRegister(H, N, 0);\n"
          "  cudaFree(H);\n",
          "-*,xfer-device-mismatch");
  // cudaFree(P) and cudaFreeHost(D) are rewritten; a qualified name, a call
  // spelled in a macro argument and registered memory are reported only.
  EXPECT_EQ(5u, Out.Warnings);
  EXPECT_EQ((Strings{"86:8:cudaFreeHost", "122:12:cudaFree"}),
            Out.Replacements);
  EXPECT_EQ("  float *P, *D, *H;\n"
            "  cudaMallocHost((void **)&P, N);\n"
            "  cudaMalloc((void **)&D, N);\n"
            "  cudaFreeHost(P);\n"
            "  ::cudaFreeHost(D);\n"
            "  cudaFree(D);\n"
            "  CHECK(cudaFree(P));\n"
            "  H = (float *)malloc(N);\n"
            "  cudaHostRegister(H, N, 0);\n"
            "  cudaFree(H);\n",
            Out.Fixed);
}

} // namespace
} // namespace xfer::test
