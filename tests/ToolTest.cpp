//===--- ToolTest.cpp - the xfer-tidy command and the clang-tidy plugin ---===//
//
// Runs the built executables as a user would: exit statuses, error
// messages, report formats, compilation databases written for nvcc, real
// LibTorch and CUDA headers, and the plugin loaded into clang-tidy-19.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <set>

namespace {

struct RunOutcome {
  int Status = -1;
  std::string Out, Err;
};

std::string readFile(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  return Buffer ? (*Buffer)->getBuffer().str() : std::string();
}

RunOutcome run(llvm::StringRef Program, std::vector<std::string> Args) {
  llvm::SmallString<128> OutPath, ErrPath;
  llvm::sys::fs::createTemporaryFile("xfer-out", "txt", OutPath);
  llvm::sys::fs::createTemporaryFile("xfer-err", "txt", ErrPath);
  std::vector<llvm::StringRef> Argv{Program};
  for (const std::string &Arg : Args)
    Argv.push_back(Arg);
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, OutPath.str(),
                                                ErrPath.str()};
  RunOutcome R;
  R.Status = llvm::sys::ExecuteAndWait(Program, Argv, std::nullopt, Redirects,
                                       /*SecondsToWait=*/600);
  R.Out = readFile(OutPath);
  R.Err = readFile(ErrPath);
  llvm::sys::fs::remove(OutPath);
  llvm::sys::fs::remove(ErrPath);
  return R;
}

const std::string Tool = XFER_BINARY_DIR "/tool/xfer-tidy";
const std::string Plugin = XFER_BINARY_DIR "/checks/libXferTidy.so";
const std::string StubInclude = XFER_TESTDATA_DIR "/include";

class ToolTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("xfer-tool", Dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  std::string write(llvm::StringRef Name, llvm::StringRef Contents) {
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    OS << Contents;
    return Path.str().str();
  }

  llvm::SmallString<256> Dir;
};

// The warning and note lines of a text report, in order.
std::string warningText(llvm::StringRef Output) {
  std::string Text;
  llvm::SmallVector<llvm::StringRef, 32> All;
  Output.split(All, '\n');
  for (llvm::StringRef Line : All)
    if (Line.contains(": warning: ") || Line.contains(": note: "))
      Text += Line.str() + "\n";
  return Text;
}

const char *HazardSource = R"cpp(#include <cuda_runtime.h>
void launch(float *Device); void step(float *Device, float *Host) {
  for (int I = 0; I < 10; ++I)
    cudaMemcpy(Host, Device, 4, cudaMemcpyDeviceToHost), launch(Device);
}
)cpp";

const char *CleanSource = R"cpp(#include <cuda_runtime.h>
void step(float *Device, float *Host) {
  cudaMemcpy(Host, Device, 4, cudaMemcpyDeviceToHost);
}
)cpp";

const char *CopyWarning =
    ":4:5: warning: 'cudaMemcpy' copies device memory to the host on each of "
    "10 iterations of the loop at line 3: the copy waits for all queued "
    "device work and crosses the host link each time [xfer-copy-in-loop]";

TEST_F(ToolTest, ExitStatusZeroWithoutFindings) {
  std::string File = write("clean.cpp", CleanSource);
  RunOutcome R = run(Tool, {File, "--", "-isystem", StubInclude});
  EXPECT_EQ(0, R.Status) << R.Err;
  EXPECT_EQ("", R.Out);
  EXPECT_NE(std::string::npos, R.Err.find("0 findings in 1 file"));
}

TEST_F(ToolTest, ExitStatusOneWithFindings) {
  std::string File = write("hazard.cpp", HazardSource);
  RunOutcome R = run(Tool, {File, "--", "-isystem", StubInclude});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find(File + CopyWarning)) << R.Out;
  EXPECT_NE(std::string::npos, R.Out.find(":3:3: note: loop starts here"));
}

// train.cpp takes its device as a parameter; main.cpp picks CUDA. Analysed
// alone, train.cpp shows no CUDA use and stays silent; in one run with
// main.cpp it is part of a CUDA program.
TEST_F(ToolTest, CudaUseInAnotherFileOfTheRunCounts) {
  std::string Train = write("train.cpp", R"cpp(#include <torch/torch.h>
float train(torch::Device D, int Steps) {
  auto W = torch::ones({4}, D);
  float Sum = 0;
  for (int I = 0; I < Steps; ++I)
    Sum += W.sum().item<float>();
  return Sum;
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include <torch/torch.h>
float train(torch::Device D, int Steps);
int main() { return train(torch::Device(torch::kCUDA), 10) > 0; }
)cpp");
  const std::string Warning =
      "train.cpp:6:20: warning: 'item<float>()' synchronizes with the GPU on "
      "every iteration of the loop at line 5";
  RunOutcome Alone = run(Tool, {Train, "--", "-std=c++17", "-isystem",
                               StubInclude});
  EXPECT_EQ(0, Alone.Status) << Alone.Out << Alone.Err;
  RunOutcome Together = run(Tool, {Train, Main, "--", "-std=c++17",
                                  "-isystem", StubInclude});
  EXPECT_EQ(1, Together.Status) << Together.Err;
  EXPECT_NE(std::string::npos, Together.Out.find(Warning)) << Together.Out;
}

// A parameter of a function no caller in its own file passes takes the
// placement callers in other files pass (through the project index the
// first pass writes); --no-index analyses each file on its own.
TEST_F(ToolTest, ParametersTakeTheirCallersPlacementAcrossFiles) {
  std::string Loss = write("loss.cpp", R"cpp(#include <torch/torch.h>
float report(torch::Tensor L, int Steps) {
  float Sum = 0;
  for (int I = 0; I < Steps; ++I)
    Sum += L.mean().item<float>();
  return Sum;
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include <torch/torch.h>
float report(torch::Tensor L, int Steps);
int main() { return report(torch::ones({4}, torch::kCUDA), 3) > 0; }
)cpp");
  std::string Index = Dir.str().str() + "/index.json";
  const std::string Warning =
      "loss.cpp:5:21: warning: 'item<float>()' synchronizes with the GPU on "
      "every iteration of the loop at line 4";
  RunOutcome Together =
      run(Tool, {"--index=" + Index, Loss, Main, "--", "-std=c++17",
                 "-isystem", StubInclude});
  EXPECT_EQ(1, Together.Status) << Together.Err;
  EXPECT_NE(std::string::npos, Together.Out.find(Warning)) << Together.Out;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Written =
      llvm::MemoryBuffer::getFile(Index);
  ASSERT_TRUE(static_cast<bool>(Written));
  EXPECT_NE(std::string::npos,
            (*Written)->getBuffer().find("\"report/2\":[\"cuda\",null]"))
      << (*Written)->getBuffer().str();

  RunOutcome Separately = run(Tool, {"--no-index", Loss, Main, "--",
                                     "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(0, Separately.Status) << Separately.Out << Separately.Err;
}

TEST_F(ToolTest, ChecksOptionFilters) {
  std::string File = write("hazard.cpp", HazardSource);
  RunOutcome R = run(Tool, {"--checks=-*,xfer-sync-in-loop", File, "--", "-isystem",
                     StubInclude});
  EXPECT_EQ(0, R.Status) << R.Out << R.Err;
}

TEST_F(ToolTest, MissingSourceIsAnInputError) {
  RunOutcome R = run(Tool, {Dir.str().str() + "/absent.cpp", "--"});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find("absent.cpp: no such file"))
      << R.Err;
}

TEST_F(ToolTest, NoInputIsAUsageError) {
  RunOutcome R = run(Tool, {});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find("no input")) << R.Err;
}

TEST_F(ToolTest, MissingCompilationDatabase) {
  RunOutcome R = run(Tool, {"-p", Dir.str().str()});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos,
            R.Err.find("compile_commands.json: no compilation database"))
      << R.Err;
}

TEST_F(ToolTest, MalformedCompilationDatabase) {
  write("compile_commands.json", "[{\"directory\": \"/\", \"file\": ");
  RunOutcome R = run(Tool, {"-p", Dir.str().str()});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find("malformed compilation database"))
      << R.Err;
}

TEST_F(ToolTest, UnparsableSourceStillGetsFindingsAndStatusTwo) {
  std::string File = write(
      "broken.cpp", std::string(HazardSource) + "int broken = ;\n");
  RunOutcome R = run(Tool, {File, "--", "-isystem", StubInclude});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Out.find(File + CopyWarning)) << R.Out;
  EXPECT_NE(std::string::npos, R.Out.find(":6:14: error: expected expression"))
      << R.Out;
  EXPECT_NE(std::string::npos,
            R.Err.find("broken.cpp: compiler errors; findings may be "
                       "incomplete"))
      << R.Err;
}

TEST_F(ToolTest, JsonReport) {
  std::string File = write("hazard.cpp", HazardSource);
  RunOutcome R = run(Tool, {"--format=json", File, "--", "-isystem", StubInclude});
  ASSERT_EQ(1, R.Status) << R.Err;
  llvm::Expected<llvm::json::Value> Report = llvm::json::parse(R.Out);
  ASSERT_TRUE(static_cast<bool>(Report)) << llvm::toString(Report.takeError());
  const llvm::json::Array *Findings =
      Report->getAsObject()->getArray("findings");
  ASSERT_TRUE(Findings);
  ASSERT_EQ(1u, Findings->size());
  const llvm::json::Object &F = *(*Findings)[0].getAsObject();
  EXPECT_EQ("xfer-copy-in-loop", F.getString("check").value_or(""));
  EXPECT_EQ(4, F.getInteger("line").value_or(0));
  EXPECT_EQ(5, F.getInteger("column").value_or(0));
  EXPECT_EQ(File, F.getString("file").value_or(""));
  // The loop, then the measured cost from the built-in model.
  const llvm::json::Array &Notes = *F.getArray("notes");
  ASSERT_EQ(2u, Notes.size());
  EXPECT_EQ("loop starts here",
            Notes[0].getAsObject()->getString("message").value_or(""));
  EXPECT_TRUE(Notes[1]
                  .getAsObject()
                  ->getString("message")
                  .value_or("")
                  .starts_with("measured cost: "));
  EXPECT_TRUE(F.getObject("properties")->getNumber("latencyMicroseconds"));
}

TEST_F(ToolTest, SarifReport) {
  std::string File = write("hazard.cpp", HazardSource);
  RunOutcome R = run(Tool, {"--format=sarif", File, "--", "-isystem", StubInclude});
  ASSERT_EQ(1, R.Status) << R.Err;
  llvm::Expected<llvm::json::Value> Log = llvm::json::parse(R.Out);
  ASSERT_TRUE(static_cast<bool>(Log)) << llvm::toString(Log.takeError());
  const llvm::json::Object &Root = *Log->getAsObject();
  EXPECT_EQ("2.1.0", Root.getString("version").value_or(""));
  const llvm::json::Object &Run0 =
      *(*Root.getArray("runs"))[0].getAsObject();
  const llvm::json::Array &Results = *Run0.getArray("results");
  ASSERT_EQ(1u, Results.size());
  const llvm::json::Object &Result = *Results[0].getAsObject();
  EXPECT_EQ("xfer-copy-in-loop", Result.getString("ruleId").value_or(""));
  const llvm::json::Object &Region =
      *(*Result.getArray("locations"))[0]
           .getAsObject()
           ->getObject("physicalLocation")
           ->getObject("region");
  EXPECT_EQ(4, Region.getInteger("startLine").value_or(0));
  EXPECT_EQ(5, Region.getInteger("startColumn").value_or(0));
}

TEST_F(ToolTest, OutputFileIsWrittenWhole) {
  std::string File = write("hazard.cpp", HazardSource);
  std::string Report = Dir.str().str() + "/report.json";
  RunOutcome R = run(Tool, {"--format=json", "--output=" + Report, File, "--",
                     "-isystem", StubInclude});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_EQ("", R.Out);
  EXPECT_TRUE(static_cast<bool>(llvm::json::parse(readFile(Report))));

  // An output in a directory that does not exist: a clear error, no file.
  std::string Unwritable = Dir.str().str() + "/missing/report.json";
  R = run(Tool, {"--output=" + Unwritable, File, "--", "-isystem",
                 StubInclude});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find("cannot write")) << R.Err;
  EXPECT_FALSE(llvm::sys::fs::exists(Unwritable));
}

TEST_F(ToolTest, ParallelJobsGiveTheSameFindings) {
  std::string A = write("a.cpp", HazardSource);
  std::string B = write("b.cpp", HazardSource);
  RunOutcome Serial = run(Tool, {A, B, "--", "-isystem", StubInclude});
  RunOutcome Parallel = run(Tool, {"-j", "2", A, B, "--", "-isystem", StubInclude});
  EXPECT_EQ(1, Serial.Status);
  EXPECT_EQ(Serial.Out, Parallel.Out);
}

TEST_F(ToolTest, ClangTidyConfigurationFileIsHonoured) {
  write(".clang-tidy", "Checks: '-xfer-copy-in-loop'\n");
  std::string File = write("hazard.cpp", HazardSource);
  RunOutcome R = run(Tool, {File, "--", "-isystem", StubInclude});
  EXPECT_EQ(0, R.Status) << R.Out << R.Err;
}

TEST_F(ToolTest, MalformedCostModelIsAnInputErrorNamingTheField) {
  std::string File = write("hazard.cpp", HazardSource);
  std::string Model = write("costs.json", R"({"schema_version": 1,
    "provenance": {"device": "x"}, "patterns": {"torch.item": {"points":
    [{"median_us": "fast"}]}}})");
  RunOutcome R = run(Tool, {"--cost-model=" + Model, File, "--", "-isystem",
                            StubInclude});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find("costs.json: patterns.torch.item"))
      << R.Err;
  EXPECT_EQ("", R.Out);
}

TEST_F(ToolTest, CostFiguresInJsonAndSarif) {
  std::string File = write("hazard.cpp", HazardSource);
  std::vector<std::string> Common{
      "--cost-model=" XFER_TESTDATA_DIR "/cost-models/test-subset-h200.json",
      File, "--", "-isystem", StubInclude};
  std::vector<std::string> JsonArgs{"--format=json"};
  JsonArgs.insert(JsonArgs.end(), Common.begin(), Common.end());
  RunOutcome R = run(Tool, JsonArgs);
  ASSERT_EQ(1, R.Status) << R.Err;
  llvm::Expected<llvm::json::Value> Report = llvm::json::parse(R.Out);
  ASSERT_TRUE(static_cast<bool>(Report)) << llvm::toString(Report.takeError());
  const llvm::json::Object &F =
      *(*Report->getAsObject()->getArray("findings"))[0].getAsObject();
  const llvm::json::Object &Properties = *F.getObject("properties");
  // A 4-byte device-to-host cudaMemcpy, 10 iterations: 7.21 µs each.
  EXPECT_DOUBLE_EQ(7.21,
                   Properties.getNumber("latencyMicroseconds").value_or(0));
  EXPECT_EQ(10, Properties.getInteger("executions").value_or(0));
  EXPECT_NE(std::string::npos, Properties.getString("measuredOn")
                                   .value_or("")
                                   .find("NVIDIA H200"));

  std::vector<std::string> SarifArgs{"--format=sarif"};
  SarifArgs.insert(SarifArgs.end(), Common.begin(), Common.end());
  R = run(Tool, SarifArgs);
  ASSERT_EQ(1, R.Status) << R.Err;
  llvm::Expected<llvm::json::Value> Log = llvm::json::parse(R.Out);
  ASSERT_TRUE(static_cast<bool>(Log));
  const llvm::json::Object &Result =
      *(*(*Log->getAsObject()->getArray("runs"))[0]
             .getAsObject()
             ->getArray("results"))[0]
           .getAsObject();
  EXPECT_DOUBLE_EQ(7.21, Result.getObject("properties")
                             ->getNumber("latencyMicroseconds")
                             .value_or(0));
}

// xfer-launch-bound-loop's note: the saving of one iteration is its
// latency, with the per-launch saving and the launches alongside.
TEST_F(ToolTest, LaunchSavingFiguresInJson) {
  std::string File = write("launches.cpp", R"cpp(#include <cuda_runtime.h>
void kernel(float *Data);
void step(float *Data) {
  void *Args[] = {&Data};
  for (int I = 0; I < 100; ++I)
    for (int K = 0; K < 10; ++K)
      cudaLaunchKernel((const void *)kernel, dim3(1), dim3(256), Args, 0, 0);
}
)cpp");
  RunOutcome R = run(
      Tool, {"--format=json", "--checks=-*,xfer-launch-bound-loop",
             "--cost-model=" XFER_TESTDATA_DIR
             "/cost-models/test-subset-h200.json",
             File, "--", "-isystem", StubInclude});
  ASSERT_EQ(1, R.Status) << R.Err;
  llvm::Expected<llvm::json::Value> Report = llvm::json::parse(R.Out);
  ASSERT_TRUE(static_cast<bool>(Report)) << llvm::toString(Report.takeError());
  const llvm::json::Object &F =
      *(*Report->getAsObject()->getArray("findings"))[0].getAsObject();
  EXPECT_EQ("xfer-launch-bound-loop", F.getString("check").value_or(""));
  const llvm::json::Object &Properties = *F.getObject("properties");
  // 3.527 - 0.865 µs per launch, 10 launches, 100 iterations.
  EXPECT_DOUBLE_EQ(2.66, Properties.getNumber("savingPerLaunchMicroseconds")
                             .value_or(0));
  EXPECT_EQ(10, Properties.getInteger("launchesPerIteration").value_or(0));
  EXPECT_DOUBLE_EQ(26.62,
                   Properties.getNumber("latencyMicroseconds").value_or(0));
  EXPECT_EQ(100, Properties.getInteger("executions").value_or(0));
  EXPECT_DOUBLE_EQ(2700, Properties.getNumber("totalMicroseconds").value_or(0));
}

TEST_F(ToolTest, Version) {
  RunOutcome R = run(Tool, {"--version"});
  EXPECT_EQ(0, R.Status);
  EXPECT_NE(std::string::npos, R.Out.find("xfer-tidy ")) << R.Out;
}

// A compilation database as CMake's CUDA language writes it, parsed against
// the installed CUDA toolkit; the kernel uses an intrinsic overload clang 19
// does not declare for CUDA 13.
TEST_F(ToolTest, NvccCompilationDatabaseWithRealToolkit) {
  if (std::string(XFER_TEST_CUDA_PATH).empty())
    GTEST_SKIP() << "no CUDA toolkit";
  std::string Source = write("residual.cu", R"cu(#include <cuda_runtime.h>
__global__ void relax(float *Values) { Values[0] = __ldcs(&Values[1]); }
int main() {
  float *Values, Host;
  cudaMalloc(&Values, 8);
  for (int Step = 0; Step < 100; ++Step) {
    relax<<<1, 1>>>(Values);
    cudaMemcpy(&Host, Values, sizeof(float), cudaMemcpyDeviceToHost);
  }
}
)cu");
  std::string Options = write("flags.rsp", "-DRESIDUAL=1 --expt-relaxed-constexpr");
  write("compile_commands.json",
        "[{\"directory\": \"" + Dir.str().str() +
            "\", \"command\": \"" XFER_TEST_CUDA_PATH
            "/bin/nvcc -forward-unknown-to-host-compiler -ccbin=g++ "
            "--generate-code=arch=compute_90,code=[compute_90,sm_90] "
            "-Xcompiler=-fPIC -std=c++17 --options-file " + Options +
            " -x cu -rdc=true -c " + Source +
            " -o residual.o\", \"file\": \"" + Source + "\"}]");
  RunOutcome R = run(Tool, {"-p", Dir.str().str()});
  EXPECT_EQ(1, R.Status) << R.Out << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find(Source + ":8:5: warning: 'cudaMemcpy' copies device "
                                "memory to the host on each of 100 "
                                "iterations of the loop at line 6"))
      << R.Out << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("error:")) << R.Out;
}

// Code written for older toolkits, analysed against the installed one: the
// thread-management functions, the cudaDeviceProp fields and the texture
// references CUDA 12 and 13 removed come from the compatibility layer, so the
// translation unit parses and the in-loop cudaThreadSynchronize is reported.
TEST_F(ToolTest, LegacyCudaApisParseAgainstTheToolkit) {
  if (std::string(XFER_TEST_CUDA_PATH).empty())
    GTEST_SKIP() << "no CUDA toolkit";
  std::string Source = write("legacy.cu", R"cu(#include <cuda_runtime.h>
#include <cstdio>
texture<float, 1, cudaReadModeElementType> Linear;
texture<float, cudaTextureType2D, cudaReadModeElementType> Image;
texture<uchar4, 2, cudaReadModeNormalizedFloat> Colors;
__global__ void gather(float *Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = tex1Dfetch(Linear, I) + tex1D(Linear, I + 0.5f) +
             tex2D(Image, I + 0.5f, 0.5f) + tex2D(Colors, 0.5f, 0.5f).x;
}
int main() {
  cudaDeviceProp Prop;
  cudaGetDeviceProperties(&Prop, 0);
  std::printf("%d %d %d %d %d %d\n", Prop.deviceOverlap, Prop.clockRate,
              Prop.memoryClockRate, Prop.kernelExecTimeoutEnabled,
              Prop.computeMode, Prop.maxTexture1DLinear);
  cudaThreadSetLimit(cudaLimitStackSize, 4096);
  size_t Stack = 0, Offset = 0;
  cudaThreadGetLimit(&Stack, cudaLimitStackSize);
  float *Device;
  cudaMalloc(&Device, 1024 * sizeof(float));
  cudaBindTexture(&Offset, Linear, Device, 1024 * sizeof(float));
  cudaChannelFormatDesc Desc = cudaCreateChannelDesc<float>();
  cudaBindTexture2D(&Offset, Image, Device, Desc, 32, 32, 32 * sizeof(float));
  for (int Step = 0; Step < 100; ++Step) {
    gather<<<4, 256>>>(Device, 1024);
    cudaThreadSynchronize();
  }
  cudaThreadSynchronize();
  cudaUnbindTexture(Linear);
  cudaUnbindTexture(Image);
  cudaFree(Device);
  cudaThreadExit();
}
)cu");
  write("compile_commands.json",
        "[{\"directory\": \"" + Dir.str().str() +
            "\", \"command\": \"" XFER_TEST_CUDA_PATH
            "/bin/nvcc -std=c++14 -arch=sm_80 -x cu -c " + Source +
            " -o legacy.o\", \"file\": \"" + Source + "\"}]");
  RunOutcome R = run(Tool, {"-p", Dir.str().str(), "--checks=-*,xfer-sync-in-loop",
                            "--config={CheckOptions: {xfer-sync-in-loop.CostNotes: false}}"});
  EXPECT_EQ(1, R.Status) << R.Out << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("error:")) << R.Out;
  EXPECT_EQ(std::string::npos, R.Err.find("compiler errors")) << R.Err;
  EXPECT_EQ(Source + ":28:5: warning: 'cudaThreadSynchronize' synchronizes "
                     "with the GPU on each of 100 iterations of the loop at "
                     "line 26: the host waits for all queued device work, so "
                     "CPU and GPU stop overlapping [xfer-sync-in-loop]\n" +
                Source + ":26:3: note: loop starts here\n",
            warningText(R.Out))
      << R.Out << R.Err;
}

// nvcc entries passing -fopenmp to the host compiler, both spellings: omp.h
// is clang 19's own (Debian's libomp-19-dev), and the OpenMP pragmas parse.
TEST_F(ToolTest, NvccHostOpenMPFindsOmpHeader) {
  if (std::string(XFER_TEST_CUDA_PATH).empty())
    GTEST_SKIP() << "no CUDA toolkit";
  const char *Body = R"cu(#include <cuda_runtime.h>
#include <omp.h>
void launch(float *Device); void fill(float *Device, float *Host, int N) {
#pragma omp parallel for
  for (int I = 0; I < N; ++I)
    Host[I] = static_cast<float>(omp_get_thread_num());
  for (int Step = 0; Step < 10; ++Step)
    cudaMemcpy(Host, Device, 4, cudaMemcpyDeviceToHost), launch(Device);
}
)cu";
  std::string Separate = write("separate.cu", Body);
  std::string Joined = write("joined.cu", Body);
  auto Entry = [&](const std::string &File, llvm::StringRef Flag) {
    return "{\"directory\": \"" + Dir.str().str() + "\", \"command\": \"" +
           XFER_TEST_CUDA_PATH "/bin/nvcc " + Flag.str() +
           " -O2 -x cu -c " + File + " -o x.o\", \"file\": \"" + File +
           "\"}";
  };
  write("compile_commands.json",
        "[" + Entry(Separate, "-Xcompiler -fopenmp") + ", " +
            Entry(Joined, "-Xcompiler=-fopenmp,-fPIC") + "]");
  RunOutcome R = run(Tool, {"-p", Dir.str().str(), "--checks=-*,xfer-copy-in-loop",
                            "--config={CheckOptions: {xfer-copy-in-loop.CostNotes: false}}"});
  EXPECT_EQ(1, R.Status) << R.Out << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("error:")) << R.Out;
  for (const std::string &File : {Separate, Joined})
    EXPECT_NE(std::string::npos,
              R.Out.find(File + ":8:5: warning: 'cudaMemcpy' copies device "
                                "memory to the host on each of 10 iterations "
                                "of the loop at line 7"))
        << R.Out << R.Err;
}

// Without a toolkit that lacks them, a name the compatibility layer declares
// is still an error: the legacy declarations are not invented for C++.
TEST_F(ToolTest, LegacyCudaDeclarationsOnlyInCudaSources) {
  std::string Source = write("host.cpp", R"cpp(int main() {
  cudaThreadSynchronize();
}
)cpp");
  RunOutcome R = run(Tool, {Source, "--"});
  EXPECT_EQ(2, R.Status) << R.Out << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find("use of undeclared identifier 'cudaThreadSynchronize'"))
      << R.Out;
}

std::set<std::string> warningLines(llvm::StringRef Output) {
  std::set<std::string> Lines;
  llvm::SmallVector<llvm::StringRef, 32> All;
  Output.split(All, '\n');
  for (llvm::StringRef Line : All)
    if (Line.contains(": warning: ") || Line.contains(": note: "))
      Lines.insert(Line.str());
  return Lines;
}

// The seed's training loop parsed with Debian's real LibTorch headers, by
// xfer-tidy and by the plugin loaded into clang-tidy-19: same findings.
TEST_F(ToolTest, RealLibTorchHeadersAndPluginAgree) {
  if (std::string(XFER_LIBTORCH_API_INCLUDE).empty())
    GTEST_SKIP() << "no LibTorch headers";
  std::string Example = XFER_TESTDATA_DIR "/examples/seed_training_loop.cpp";
  std::vector<std::string> Flags{"--", "-std=c++17", "-isystem",
                                 XFER_LIBTORCH_API_INCLUDE};
  std::vector<std::string> ToolArgs{Example};
  ToolArgs.insert(ToolArgs.end(), Flags.begin(), Flags.end());
  RunOutcome Ours = run(Tool, ToolArgs);
  EXPECT_EQ(1, Ours.Status) << Ours.Err;
  EXPECT_NE(std::string::npos,
            Ours.Out.find("seed_training_loop.cpp:34:35: warning: "
                          "'item<float>()' synchronizes with the GPU on each "
                          "of 1000 iterations of the loop at line 25"))
      << Ours.Out;
  // The fixed loop (readback every 100 iterations) is not reported.
  EXPECT_EQ(std::string::npos, Ours.Out.find("seed_training_loop.cpp:48:"));

  std::vector<std::string> PluginArgs{"--load=" + Plugin,
                                      "--checks=-*,xfer-*", Example};
  PluginArgs.insert(PluginArgs.end(), Flags.begin(), Flags.end());
  RunOutcome Theirs = run(XFER_CLANG_TIDY, PluginArgs);
  EXPECT_EQ(0, Theirs.Status) << Theirs.Err;
  EXPECT_EQ(warningLines(Ours.Out), warningLines(Theirs.Out))
      << "xfer-tidy:\n" << Ours.Out << "clang-tidy plugin:\n" << Theirs.Out;
  EXPECT_FALSE(warningLines(Theirs.Out).empty());
}

} // namespace
