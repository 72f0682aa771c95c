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
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <unistd.h>

namespace {

struct RunOutcome {
  int Status = -1;
  std::string Out, Err;
};

std::string readFile(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  return Buffer ? (*Buffer)->getBuffer().str() : std::string();
}

RunOutcome run(llvm::StringRef Program, std::vector<std::string> Args,
               std::optional<std::vector<std::string>> Env = std::nullopt) {
  llvm::SmallString<128> OutPath, ErrPath;
  llvm::sys::fs::createTemporaryFile("xfer-out", "txt", OutPath);
  llvm::sys::fs::createTemporaryFile("xfer-err", "txt", ErrPath);
  std::vector<llvm::StringRef> Argv{Program};
  for (const std::string &Arg : Args)
    Argv.push_back(Arg);
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, OutPath.str(),
                                                ErrPath.str()};
  RunOutcome R;
  std::vector<llvm::StringRef> EnvRefs;
  if (Env)
    EnvRefs.assign(Env->begin(), Env->end());
  std::optional<llvm::ArrayRef<llvm::StringRef>> EnvArg;
  if (Env)
    EnvArg = EnvRefs;
  R.Status = llvm::sys::ExecuteAndWait(Program, Argv, EnvArg, Redirects,
                                       /*SecondsToWait=*/600);
  R.Out = readFile(OutPath);
  R.Err = readFile(ErrPath);
  llvm::sys::fs::remove(OutPath);
  llvm::sys::fs::remove(ErrPath);
  return R;
}

std::string shellQuote(llvm::StringRef Arg) {
  std::string Quoted = "'";
  for (char C : Arg)
    Quoted += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Quoted + "'";
}

/// Runs \p Args (program first) in the directory \p Directory.
RunOutcome runIn(llvm::StringRef Directory,
                 const std::vector<std::string> &Args,
                 std::optional<std::vector<std::string>> Env = std::nullopt) {
  std::string Command = "cd " + shellQuote(Directory) + " && exec";
  for (const std::string &Arg : Args)
    Command += " " + shellQuote(Arg);
  return run("/bin/sh", {"-c", Command}, std::move(Env));
}

/// Every xfer-tidy the tests start keeps its result cache in a directory of
/// this test process, never in the user's cache directory.
class PrivateCacheEnvironment : public ::testing::Environment {
public:
  void SetUp() override {
    ASSERT_FALSE(
        llvm::sys::fs::createUniqueDirectory("xfer-test-cache", Directory));
    ::setenv("XDG_CACHE_HOME", Directory.c_str(), /*overwrite=*/1);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Directory); }

private:
  llvm::SmallString<128> Directory;
};
::testing::Environment *const PrivateCache =
    ::testing::AddGlobalTestEnvironment(new PrivateCacheEnvironment);

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

  /// Runs xfer-tidy with a project index in the test directory over
  /// \p Args (options, then the program's files), as CUDA host code against
  /// the stub headers and the test directory's headers.
  RunOutcome runCudaProgram(std::vector<std::string> Args) {
    Args.insert(Args.begin(), "--index=" + Dir.str().str() + "/index.json");
    Args.insert(Args.end(), {"--", "-x", "cuda", "--cuda-host-only",
                             "-nocudainc", "-nocudalib", "-std=c++17",
                             "-isystem", StubInclude, "-I", Dir.str().str()});
    return run(Tool, std::move(Args));
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
            (*Written)->getBuffer().find(
                "\"report(at::Tensor,int)\":[\"cuda\",null]"))
      << (*Written)->getBuffer().str();

  RunOutcome Separately = run(Tool, {"--no-index", Loss, Main, "--",
                                     "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(0, Separately.Status) << Separately.Out << Separately.Err;
}

TEST_F(ToolTest, HelpersCalledEveryStepInAnotherFileAreHot) {
  // The helper has no loop; the training loop that calls it with a CUDA
  // tensor on every iteration is in another file. A guarded call and an
  // evaluation pass make nothing hot.
  std::string Metrics = write("metrics.cpp", R"cpp(#include <torch/torch.h>
long correct(const torch::Tensor &Out, const torch::Tensor &Target) {
  return (Out == Target).sum().item<long>();
}
double logged(const torch::Tensor &Loss) { return Loss.item<double>(); }
)cpp");
  std::string Train = write("train.cpp", R"cpp(#include <torch/torch.h>
long correct(const torch::Tensor &Out, const torch::Tensor &Target);
double logged(const torch::Tensor &Loss);
void train(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
           torch::data::DataLoader<> &Loader) {
  torch::Device Gpu(torch::kCUDA);
  long Hits = 0;
  int Step = 0;
  for (auto &Batch : Loader) {
    auto Out = Model(Batch.data.to(Gpu));
    auto Loss = Out.mean();
    Loss.backward();
    Opt.step();
    Hits += correct(Out, Batch.target.to(Gpu));
    if (++Step % 100 == 0)
      logged(Loss);
  }
}
)cpp");
  RunOutcome R = run(Tool, {Metrics, Train, "--", "-std=c++17", "-isystem",
                            StubInclude});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find("metrics.cpp:3:32: warning: 'item<long>()' "
                       "synchronizes with the GPU on every call of "
                       "'correct()', which runs on every iteration of the "
                       "loop at train.cpp:9: the host waits"))
      << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find("metrics.cpp:5")) << R.Out;

  RunOutcome Alone = run(Tool, {"--no-index", Metrics, "--", "-std=c++17",
                                "-isystem", StubInclude});
  EXPECT_EQ(0, Alone.Status) << Alone.Out << Alone.Err;
}

// A detector in another file called on every frame a capture delivers
// copies back that frame's result on its way out: necessary, silent. Called
// on frames the program already holds, the same copies are findings.
TEST_F(ToolTest, OutputOfAFrameLoopInAnotherFileIsNecessary) {
  std::string Detect = write("detect.cpp", R"cpp(#include <torch/torch.h>
#include <vector>
std::vector<float> detect(torch::nn::Linear &Net, const torch::Tensor &Frame) {
  torch::Tensor Scores = Net(Frame.to(torch::kCUDA));
  torch::Tensor Keep = Scores > 0.5;
  Scores = Scores.cpu();
  Keep = Keep.cpu();
  Scores = Scores.masked_select(Keep);
  std::vector<float> Kept;
  for (int64_t I = 0; I < Scores.size(0); ++I)
    Kept.push_back(Scores[I].item<float>());
  return Kept;
}
)cpp");
  std::string Capture = write("capture.cpp", R"cpp(#include <torch/torch.h>
#include <vector>
struct VideoCapture {
  bool read(torch::Tensor &Frame);
};
std::vector<float> detect(torch::nn::Linear &Net, const torch::Tensor &Frame);
void show(const std::vector<float> &Scores);
void run(VideoCapture &Cap, torch::nn::Linear &Net) {
  torch::Tensor Frame;
  while (Cap.read(Frame))
    show(detect(Net, Frame));
}
)cpp");
  std::string Replay = write("replay.cpp", R"cpp(#include <torch/torch.h>
#include <vector>
std::vector<float> detect(torch::nn::Linear &Net, const torch::Tensor &Frame);
void show(const std::vector<float> &Scores);
void replay(torch::nn::Linear &Net, const std::vector<torch::Tensor> &Frames) {
  for (int I = 0; I < 1000; ++I)
    show(detect(Net, Frames[I % 4]));
}
)cpp");
  const std::string Index = Dir.str().str() + "/index.json";
  RunOutcome Live = run(Tool, {"--index=" + Index, Detect, Capture, "--",
                               "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(0, Live.Status) << Live.Out << Live.Err;
  EXPECT_EQ(std::string::npos, Live.Out.find("warning:")) << Live.Out;

  const std::string ReplayIndex = Dir.str().str() + "/replay-index.json";
  RunOutcome Stored = run(Tool, {"--index=" + ReplayIndex, Detect, Replay, "--",
                                 "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(1, Stored.Status) << Stored.Err;
  EXPECT_NE(std::string::npos,
            Stored.Out.find("detect.cpp:6:19: warning: 'cpu()' copies device "
                            "memory to the host on every call of 'detect()', "
                            "which runs on every iteration of the loop at "
                            "replay.cpp:6: the copy waits"))
      << Stored.Out;
  EXPECT_NE(std::string::npos,
            Stored.Out.find("detect.cpp:7:15: warning: 'cpu()' copies"))
      << Stored.Out;
}

// A helper in another file called beside a call that runs a whole
// optimisation (its own step loop) runs once per round of the outer loop,
// not on every step: the result written out after each scale is silent.
TEST_F(ToolTest, HelpersCalledBesideAStepLoopInAnotherFileAreNotHot) {
  std::string Image = write("image.cpp", R"cpp(#include <torch/torch.h>
void save(const torch::Tensor &Canvas) {
  torch::Tensor Host = Canvas.cpu();
  (void)Host;
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include <torch/torch.h>
void save(const torch::Tensor &Canvas);
void optimise(const torch::Tensor &Canvas, torch::optim::Optimizer &Opt) {
  while (true) {
    Opt.zero_grad();
    auto Loss = Canvas.mul(Canvas).sum();
    Loss.backward();
    Opt.step();
  }
}
void run(torch::optim::Optimizer &Opt, int Scales) {
  torch::Device Gpu(torch::kCUDA);
  auto Canvas = torch::rand({3, 32, 32}).to(Gpu);
  for (int Scale = 0; Scale < Scales; ++Scale) {
    optimise(Canvas, Opt);
    save(Canvas);
  }
}
void steps(int Steps) {
  torch::Device Gpu(torch::kCUDA);
  auto Other = torch::rand({3, 32, 32}).to(Gpu);
  for (int Step = 0; Step < Steps; ++Step) {
    Other = Other.mul(Other);
    save(Other);
  }
}
)cpp");
  RunOutcome R =
      run(Tool, {Image, Main, "--", "-std=c++17", "-isystem", StubInclude});
  EXPECT_NE(std::string::npos,
            R.Out.find("image.cpp:3:31: warning: 'cpu()' copies device memory "
                       "to the host on every call of 'save()', which runs on "
                       "every iteration of the loop at main.cpp:22"))
      << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find("main.cpp:14")) << R.Out;
}

// A loop whose only calls are functions defined in other files is a step
// loop only if one of them queues device work: per-device setup and
// teardown loops in main() that call allocators elsewhere stay silent,
// while the allocator called from the time-step loop is reported.
TEST_F(ToolTest, LoopsCallingAllocatorsInOtherFilesAreSetup) {
  std::string Buffers = write("buffers.cpp", R"cpp(#include <cuda_runtime.h>
void allocateField(float **Field, size_t Bytes) { cudaMalloc((void **)Field, Bytes); }
void freeField(float *Field) { cudaFree(Field); }
void releaseScratch(float *Scratch) { cudaFree(Scratch); }
)cpp");
  // launchAdvance() is defined in no file given: it may launch.
  std::string Step = write("step.cpp", R"cpp(#include <cuda_runtime.h>
void launchAdvance(float *Field);
void releaseScratch(float *Scratch);
void timeStep(float *Field, float *Scratch) {
  launchAdvance(Field);
  releaseScratch(Scratch);
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include <cuda_runtime.h>
void allocateField(float **Field, size_t Bytes);
void freeField(float *Field);
void timeStep(float *Field, float *Scratch);
int main() {
  float *Fields[4];
  float *Scratch = nullptr;
  for (int Device = 0; Device < 4; ++Device)
    allocateField(&Fields[Device], 1 << 20);
  for (int Cycle = 0; Cycle < 1000; ++Cycle)
    timeStep(Fields[0], Scratch);
  for (int Device = 0; Device < 4; ++Device)
    freeField(Fields[Device]);
}
)cpp");
  std::string Index = Dir.str().str() + "/index.json";
  RunOutcome R = run(Tool, {"--index=" + Index, Buffers, Step, Main, "--",
                            "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find("buffers.cpp:4:39: warning: 'cudaFree' synchronizes "
                       "with the GPU on every call of 'releaseScratch()', "
                       "which runs on every iteration of the loop at "
                       "main.cpp:10"))
      << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find("buffers.cpp:2:")) << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find("buffers.cpp:3:")) << R.Out;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Written =
      llvm::MemoryBuffer::getFile(Index);
  ASSERT_TRUE(static_cast<bool>(Written));
  EXPECT_NE(
      std::string::npos,
      (*Written)->getBuffer().find(
          "\"freeField(float *)\":{\"queuesWork\":false,\"unseenCallees\":[]}"))
      << (*Written)->getBuffer().str();
}

// A definition whose value parameters are `const` (`const float threshold`)
// is the function its header declares without it: the index keys both the
// same, so the helper's allocation is reported on every call of the loop.
TEST_F(ToolTest, ConstValueParametersKeyTheSameFunctionAcrossFiles) {
  write("mapping.h", "int countMatches(int *Data, float Threshold);\n");
  std::string Mapping = write("mapping.cpp", R"cpp(#include <cuda_runtime.h>
#include "mapping.h"
__global__ void match(int *Data, float Threshold, int *Count);
int countMatches(int *Data, const float Threshold) {
  int *Count = nullptr;
  cudaMalloc((void **)&Count, sizeof(int));
  match<<<64, 256>>>(Data, Threshold, Count);
  return 0;
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include "mapping.h"
int main() {
  int Total = 0;
  for (int Frame = 0; Frame < 1000; ++Frame)
    Total += countMatches(nullptr, 0.5f);
  return Total;
}
)cpp");
  RunOutcome R = runCudaProgram({Mapping, Main});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find("mapping.cpp:6:3: warning: 'cudaMalloc' synchronizes "
                       "with the GPU on every call of 'countMatches()', "
                       "which runs on every iteration of the loop at "
                       "main.cpp:4"))
      << R.Out;
}

// A loop that calls through a function pointer (a table of interchangeable
// filters) may enter every function of that type whose address the program
// takes, in any file: their per-frame allocations are found. A function of
// the same type whose address is never taken is not reached.
TEST_F(ToolTest, CallsThroughFunctionPointersReachTakenFunctions) {
  std::string Filters = write("filters.cu", R"cpp(#include <cuda_runtime.h>
__global__ void blur(float *Out, const float *In, int N);
void blurFrame(float *Frame, int N) {
  float *Scratch;
  cudaMalloc((void **)&Scratch, N * sizeof(float));
  blur<<<1, 128>>>(Scratch, Frame, N);
  cudaFree(Scratch);
}
void unusedFilter(float *Frame, int N) {
  float *Scratch;
  cudaMalloc((void **)&Scratch, N * sizeof(float));
  blur<<<1, 128>>>(Scratch, Frame, N);
  cudaFree(Scratch);
}
)cpp");
  std::string Table = write("table.cu", R"cpp(
void blurFrame(float *Frame, int N);
struct Filter {
  const char *Name;
  void (*Apply)(float *, int);
};
void runAll(Filter *Filters, int Count, float *Frame, int N);
int main() {
  float *Frame = nullptr;
  Filter Filters[] = {{"blur", blurFrame}};
  runAll(Filters, 1, Frame, 1 << 20);
}
)cpp");
  std::string Loop = write("loop.cu", R"cpp(
struct Filter {
  const char *Name;
  void (*Apply)(float *, int);
};
void runAll(Filter *Filters, int Count, float *Frame, int N) {
  for (int F = 0; F < Count; ++F)
    for (int Step = 0; Step < 1000; ++Step)
      Filters[F].Apply(Frame, N);
}
)cpp");
  RunOutcome R = runCudaProgram({Filters, Table, Loop});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find("filters.cu:5:3: warning: 'cudaMalloc' synchronizes "
                       "with the GPU on every call of 'blurFrame()', which "
                       "runs on every iteration of the loop at loop.cu:8"))
      << R.Out;
  EXPECT_NE(std::string::npos,
            R.Out.find("filters.cu:7:3: warning: 'cudaFree' synchronizes"))
      << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find("filters.cu:11:")) << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find("filters.cu:13:")) << R.Out;
}

// A method that copies into its object's buffer and returns the buffer,
// called on every iteration of a loop in another file that ignores the
// result: returning the member hands out what the object keeps, so the
// copy is not the iteration's consumed output.
TEST_F(ToolTest, ReturnedMemberBufferIsNotConsumedOutput) {
  write("solver.h", R"cpp(struct Solver {
  float *multiply();
  float *Host = nullptr;
  float *Device = nullptr;
  int Rows = 0;
};
)cpp");
  std::string SolverFile = write("solver.cpp", R"cpp(#include <cuda_runtime.h>
#include "solver.h"
__global__ void spmv(float *Device, int Rows);
float *Solver::multiply() {
  spmv<<<64, 256>>>(Device, Rows);
  cudaMemcpy(Host, Device, Rows * sizeof(float), cudaMemcpyDeviceToHost);
  return Host;
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include "solver.h"
void iterate(Solver &S, int Steps) {
  for (int Step = 0; Step < Steps; ++Step)
    S.multiply();
}
)cpp");
  RunOutcome R = runCudaProgram({SolverFile, Main});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find("solver.cpp:6:3: warning: 'cudaMemcpy' copies device "
                       "memory to the host on every call of "
                       "'Solver::multiply()', which runs on every iteration "
                       "of the loop at main.cpp:3"))
      << R.Out;
}

// A helper another file calls once per image that builds its result from
// what it copies back (bounding boxes stored into structs it returns) hands
// on the step's product: necessary. A helper that only prints what it
// copies back is not.
TEST_F(ToolTest, ResultsBuiltFromCopiesInAStepFunctionAreConsumedOutput) {
  write("boxes.h", R"cpp(struct Box { int X, Width; };
Box *boundingBoxes(int *DeviceMin, int *DeviceMax, int N);
void printFirst(int *Device, int N);
)cpp");
  std::string Boxes = write("boxes.cpp", R"cpp(#include <cuda_runtime.h>
#include <cstdio>
#include "boxes.h"
__global__ void extents(int *DeviceMin, int *DeviceMax);
Box *boundingBoxes(int *DeviceMin, int *DeviceMax, int N) {
  extents<<<64, 256>>>(DeviceMin, DeviceMax);
  int *Min = new int[N], *Max = new int[N];
  cudaMemcpy(Min, DeviceMin, N * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(Max, DeviceMax, N * sizeof(int), cudaMemcpyDeviceToHost);
  Box *Result = new Box[N];
  for (int I = 0; I < N; ++I) {
    Result[I].X = Min[I];
    Result[I].Width = Max[I] - Min[I];
  }
  delete[] Min;
  delete[] Max;
  return Result;
}
void printFirst(int *Device, int N) {
  extents<<<64, 256>>>(Device, Device);
  int *Host = new int[N];
  cudaMemcpy(Host, Device, N * sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("%d\\n", Host[0]);
  delete[] Host;
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include "boxes.h"
void detect(int *DeviceMin, int *DeviceMax, int N,
            Box **All, int Images) {
  for (int Image = 0; Image < Images; ++Image) {
    All[Image] = boundingBoxes(DeviceMin, DeviceMax, N);
    printFirst(DeviceMin, N);
  }
}
)cpp");
  RunOutcome R = runCudaProgram({"--checks=-*,xfer-copy-in-loop", Boxes, Main});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find(Boxes + ":22:3: warning: 'cudaMemcpy' copies device "
                               "memory to the host on every call of "
                               "'printFirst()', which runs on every iteration "
                               "of the loop at main.cpp:4"))
      << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find(Boxes + ":8:3:")) << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find(Boxes + ":9:3:")) << R.Out;
}

// A step loop that calls a virtual method of an abstract backend reaches
// every override the program defines, in other files too: the CUDA
// backend's per-step wait is reported; its one-time setup, the read-back
// of the residual its converged() tests (and the wait right before it) and
// the CPU backend's step are not.
TEST_F(ToolTest, VirtualCallsInStepLoopsReachOverridesInOtherFiles) {
  std::string Backend = R"cpp(struct Backend {
  virtual ~Backend() = default;
  virtual void initialize() = 0;
  virtual void step() = 0;
};
)cpp";
  write("backend.h", Backend);
  std::string Cuda = write("cuda_backend.cpp", R"cpp(#include <cuda_runtime.h>
#include "backend.h"
__global__ void relax(float *Field);
struct CudaBackend final : Backend {
  float *Field = nullptr;
  float Residual = 1.0f;
  void initialize() override;
  void step() override;
  bool converged() const { return Residual < 1e-3f; }
  void advance();
  void measure();
};
void CudaBackend::initialize() {
  cudaMalloc((void **)&Field, 1 << 20);
  cudaDeviceSynchronize();
}
void CudaBackend::step() {
  advance();
  measure();
}
void CudaBackend::advance() {
  relax<<<64, 256>>>(Field);
  cudaDeviceSynchronize();
}
void CudaBackend::measure() {
  relax<<<64, 256>>>(Field);
  cudaDeviceSynchronize();
  float Largest = 0;
  cudaMemcpy(&Largest, Field, sizeof(float), cudaMemcpyDeviceToHost);
  Residual = Largest;
}
)cpp");
  std::string Cpu = write("cpu_backend.cpp", R"cpp(#include "backend.h"
struct CpuBackend final : Backend {
  float Field[64] = {};
  void initialize() override {}
  void step() override {
    for (float &Cell : Field)
      Cell *= 0.5f;
  }
};
Backend *makeCpuBackend() { return new CpuBackend; }
)cpp");
  std::string Runner = write("runner.cpp", R"cpp(#include "backend.h"
void run(Backend &Simulation, int Steps) {
  Simulation.initialize();
  for (int Step = 0; Step < Steps; ++Step)
    Simulation.step();
}
)cpp");
  RunOutcome R = runCudaProgram({Cuda, Cpu, Runner});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find("cuda_backend.cpp:23:3: warning: "
                       "'cudaDeviceSynchronize' synchronizes with the GPU on "
                       "every call of 'CudaBackend::advance()', which runs on "
                       "every iteration of the loop at runner.cpp:4"))
      << R.Out;
  // One-time setup, and the convergence read-back with the wait before it.
  for (const char *Line : {":14:", ":15:", ":27:", ":29:"})
    EXPECT_EQ(std::string::npos,
              R.Out.find(std::string("cuda_backend.cpp") + Line))
        << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find("cpu_backend.cpp")) << R.Out;
  size_t Warnings = 0;
  for (size_t At = R.Out.find("warning:"); At != std::string::npos;
       At = R.Out.find("warning:", At + 1))
    ++Warnings;
  EXPECT_EQ(1u, Warnings) << R.Out;
}

// What a function in another file returns and what a constructor in another
// file stores in a member keep their placement: a replay buffer kept on the
// host, fed to a module moved to the GPU, is a device mismatch.
// A function no file defines, named as a release, queues no work for the
// project index either: the teardown loop that calls it is not a step loop,
// so what the loop's other callees free is not a per-step cost.
TEST_F(ToolTest, ReleaseNamedFunctionsInNoFileAreTeardown) {
  std::string Fields = write("fields.cpp", R"cpp(#include <cuda_runtime.h>
void freeFields(float *Field) { cudaFree(Field); }
void stepFields(float *Field) { cudaFree(Field); }
void saveFields(float *Field) { Field[0] = 0; }
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include <cuda_runtime.h>
void freeFields(float *Field);
void stepFields(float *Field);
void saveFields(float *Field);
void grid_deallocate_device(float *Grid);
void advance_grid(float *Grid);
int main() {
  float *Fields[4], *Grids[4];
  for (int Device = 0; Device < 4; ++Device) {
    saveFields(Fields[Device]);
    grid_deallocate_device(Grids[Device]);
    freeFields(Fields[Device]);
  }
  for (int Cycle = 0; Cycle < 1000; ++Cycle) {
    advance_grid(Grids[0]);
    stepFields(Fields[0]);
  }
}
)cpp");
  RunOutcome R = run(Tool, {"--checks=-*,xfer-sync-in-loop", Fields, Main,
                            "--", "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find("fields.cpp:3:33: warning: 'cudaFree' synchronizes "
                       "with the GPU on every call of 'stepFields()'"))
      << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find("fields.cpp:2:")) << R.Out;
}

TEST_F(ToolTest, ReturnsAndMembersFromOtherFilesKeepTheirPlacement) {
  std::string Header = write("buffer.h", R"cpp(#include <torch/torch.h>
struct Buffer {
  Buffer();
  torch::Tensor memory;
  torch::Tensor get(const torch::Tensor &Index);
};
)cpp");
  std::string Buffer = write("buffer.cpp", R"cpp(#include "buffer.h"
Buffer::Buffer() : memory(torch::zeros({100, 4})) {}
torch::Tensor Buffer::get(const torch::Tensor &Index) {
  return memory.index_select(0, Index);
}
)cpp");
  std::string Agent = write("agent.cpp", R"cpp(#include "buffer.h"
void learn(Buffer &B, torch::nn::Linear &Net, int Steps) {
  Net->to(torch::kCUDA);
  for (int I = 0; I < Steps; ++I) {
    auto Batch = B.get(torch::zeros({8}, torch::kLong));
    Net(Batch);
    Net(B.memory);
    Net(Batch.cuda());
  }
}
)cpp");
  std::string Index = Dir.str().str() + "/index.json";
  RunOutcome R = run(Tool, {"--index=" + Index, "--checks=-*,xfer-device-mismatch",
                            Buffer, Agent, "--", "-std=c++17", "-isystem",
                            StubInclude, "-I", Dir.str().str()});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_EQ(Agent + ":6:5: warning: calling 'Net' mixes a cuda module and a "
                    "cpu tensor: LibTorch throws at run time (\"Expected all "
                    "tensors to be on the same device\") [xfer-device-mismatch]\n" +
                Agent + ":3:3: note: 'Net' is on cuda: moved by to() to a "
                        "cuda device\n" +
                Agent + ":5:18: note: 'Batch' is on the cpu: returned by "
                        "'get()', defined in another file of the program\n" +
                Agent + ":7:5: warning: calling 'Net' mixes a cuda module and "
                        "a cpu tensor: LibTorch throws at run time (\"Expected "
                        "all tensors to be on the same device\") "
                        "[xfer-device-mismatch]\n" +
                Agent + ":3:3: note: 'Net' is on cuda: moved by to() to a "
                        "cuda device\n" +
                Agent + ":7:9: note: 'B.memory' is on the cpu: stored in "
                        "'memory' in another file of the program\n",
            warningText(R.Out))
      << R.Out << R.Err;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Written =
      llvm::MemoryBuffer::getFile(Index);
  ASSERT_TRUE(static_cast<bool>(Written));
  EXPECT_NE(std::string::npos,
            (*Written)->getBuffer().find(
                "\"returns\":{\"Buffer::get(const at::Tensor &)\":\"cpu\"}"))
      << (*Written)->getBuffer().str();
  EXPECT_NE(std::string::npos,
            (*Written)->getBuffer().find("\"fields\":{\"Buffer::memory\":\"cpu\"}"))
      << (*Written)->getBuffer().str();
}

// A member that one file points at device memory and another at host
// memory holds either, object by object: a copy kind that treats it as host
// memory is not a contradiction. Alone, the file that allocates on the device
// would see only device memory there.
TEST_F(ToolTest, MembersStoredDifferentlyInOtherFilesHoldEither) {
  std::string Header = write("mesh.h", R"cpp(struct Mesh {
  Mesh();
  float *Cells;
};
)cpp");
  std::string Mesh = write("mesh.cpp", R"cpp(#include "mesh.h"
Mesh::Mesh() { Cells = new float[64]; }
)cpp");
  std::string Gpu = write("gpu.cpp", R"cpp(#include <cuda_runtime.h>
#include "mesh.h"
void allocateOnDevice(Mesh *M) { cudaMalloc((void **)&M->Cells, 256); }
void download(Mesh *Host, const float *Dev) {
  cudaMemcpy(Host->Cells, Dev, 256, cudaMemcpyDeviceToHost);
}
)cpp");
  std::vector<std::string> Flags = {"--", "-std=c++17", "-isystem",
                                    StubInclude, "-I", Dir.str().str()};
  std::vector<std::string> Alone = {"--checks=-*,xfer-device-mismatch", Gpu};
  Alone.insert(Alone.end(), Flags.begin(), Flags.end());
  RunOutcome Single = run(Tool, Alone);
  EXPECT_EQ(1, Single.Status) << Single.Err;
  EXPECT_NE(std::string::npos,
            Single.Out.find("gpu.cpp:5:3: warning: 'cudaMemcpy' is given "
                            "cudaMemcpyDeviceToHost but the destination "
                            "'Host->Cells' is device memory"))
      << Single.Out;
  std::vector<std::string> Both = {"--index=" + Dir.str().str() + "/index.json",
                                   "--checks=-*,xfer-device-mismatch", Mesh,
                                   Gpu};
  Both.insert(Both.end(), Flags.begin(), Flags.end());
  RunOutcome Program = run(Tool, Both);
  EXPECT_EQ(0, Program.Status) << Program.Out << Program.Err;
  EXPECT_EQ("", warningText(Program.Out)) << Program.Out;
}

TEST_F(ToolTest, ChecksOptionFilters) {
  std::string File = write("hazard.cpp", HazardSource);
  RunOutcome R = run(Tool, {"--checks=-*,xfer-sync-in-loop", File, "--", "-isystem",
                     StubInclude});
  EXPECT_EQ(0, R.Status) << R.Out << R.Err;
}

// A header that is not in the compilation database gets a neighbour's
// command from LLVM's interpolation, which ends in "-- <file>": xfer-tidy's
// own arguments (-resource-dir) and a .clang-tidy's ExtraArgs go before it.
TEST_F(ToolTest, HeaderMissingFromTheDatabaseTakesExtraArguments) {
  std::string Main = write("main.cpp", "int main() {}\n");
  std::string Header = write(
      "hazard.h", std::string("#ifndef FROM_EXTRA_ARGS\n#error ExtraArgs "
                              "were not passed\n#endif\n") +
                      HazardSource);
  write(".clang-tidy", "ExtraArgs: ['-DFROM_EXTRA_ARGS']\n");
  write("compile_commands.json",
        "[{\"directory\": \"" + Dir.str().str() +
            "\", \"command\": \"c++ -isystem " + StubInclude + " -c " + Main +
            "\", \"file\": \"" + Main + "\"}]");
  RunOutcome R = run(Tool, {"-p", Dir.str().str(), Header});
  EXPECT_EQ(1, R.Status) << R.Out << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("no such file")) << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find("error:")) << R.Out;
  EXPECT_NE(std::string::npos,
            R.Out.find(Header + ":7:5: warning: 'cudaMemcpy' copies device"))
      << R.Out;
}

// A header given on its own with a C++ command (as a pre-commit hook passes
// the changed files) is parsed as a C++ header, not as C; a command that
// asks for a C standard keeps C.
TEST_F(ToolTest, HeaderWithACxxCommandIsParsedAsCxx) {
  std::string Header =
      write("loop.h",
            std::string("#pragma once\n#include <vector>\n") + HazardSource);
  RunOutcome R =
      run(Tool, {Header, "--", "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(1, R.Status) << R.Out << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("error:")) << R.Out;
  EXPECT_NE(std::string::npos,
            R.Out.find(Header + ":6:5: warning: 'cudaMemcpy' copies device"))
      << R.Out;

  RunOutcome AsC =
      run(Tool, {Header, "--", "-std=c11", "-isystem", StubInclude});
  EXPECT_NE(std::string::npos, AsC.Out.find("'vector' file not found"))
      << AsC.Out;
}

// A project's .clang-tidy written for clang-tidy's other checks does not
// turn xfer-tidy off; globs that name xfer checks do, and --list-checks
// shows what the run would use.
TEST_F(ToolTest, ProjectChecksOnlyTurnXferChecksOffByName) {
  std::string File = write("hazard.cpp", HazardSource);
  write(".clang-tidy", "Checks: '-*,bugprone-*'\n");
  RunOutcome R = run(Tool, {File, "--", "-isystem", StubInclude});
  EXPECT_EQ(1, R.Status) << R.Out << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find(File + CopyWarning)) << R.Out;
  R = run(Tool, {"--list-checks", File});
  EXPECT_EQ(0, R.Status) << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find("xfer-copy-in-loop\n")) << R.Out;

  write(".clang-tidy", "Checks: '-*,bugprone-*,-xfer-copy-in-loop'\n");
  R = run(Tool, {"--list-checks", File});
  EXPECT_EQ(0, R.Status) << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("xfer-copy-in-loop")) << R.Out;
  EXPECT_NE(std::string::npos, R.Out.find("xfer-sync-in-loop\n")) << R.Out;
  // --checks on the command line applies as written.
  R = run(Tool, {"--list-checks", "--checks=-*,xfer-copy-in-loop", File});
  EXPECT_EQ("xfer-copy-in-loop\n", R.Out);
}

TEST_F(ToolTest, NoCheckEnabledIsAnError) {
  std::string File = write("hazard.cpp", HazardSource);
  for (bool List : {false, true}) {
    std::vector<std::string> Args{"--checks=-*,xfer-nonexistent", File, "--",
                                  "-isystem", StubInclude};
    if (List)
      Args.insert(Args.begin(), "--list-checks");
    RunOutcome R = run(Tool, Args);
    EXPECT_EQ(2, R.Status) << R.Out << R.Err;
    EXPECT_NE(std::string::npos,
              R.Err.find("'xfer-nonexistent' in --checks matches no check"))
        << R.Err;
    EXPECT_NE(std::string::npos, R.Err.find("error: no checks enabled"))
        << R.Err;
    EXPECT_EQ("", R.Out);
  }
}

TEST_F(ToolTest, DumpConfigPrintsTheEffectiveConfiguration) {
  write(".clang-tidy", "CheckOptions:\n"
                       "  xfer-sync-in-loop.MinFrequencyPercent: 5\n");
  std::string File = write("train.cpp", CleanSource);
  RunOutcome R =
      run(Tool, {"--dump-config", "--checks=-xfer-copy-in-loop", File, "--"});
  EXPECT_EQ(0, R.Status) << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find("Checks:          "
                                          "'-*,xfer-*,-xfer-copy-in-loop'"))
      << R.Out;
  EXPECT_NE(std::string::npos,
            R.Out.find("  xfer-sync-in-loop.MinFrequencyPercent: '5'\n"))
      << R.Out;
  EXPECT_NE(std::string::npos,
            R.Out.find("  xfer-launch-bound-loop.MinLaunchesPerIteration: "
                       "'8'\n"))
      << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find("xfer-copy-in-loop.")) << R.Out;
}

TEST_F(ToolTest, VerifyConfig) {
  write(".clang-tidy", "Checks: '-xfer-copy-in-loop'\n");
  std::string File = write("train.cpp", CleanSource);
  RunOutcome Good = run(Tool, {"--verify-config", File, "--"});
  EXPECT_EQ(0, Good.Status) << Good.Err;
  EXPECT_EQ("No config errors detected.\n", Good.Out);

  write(".clang-tidy", "CheckOptions:\n"
                       "  xfer-sync-in-loop.MinFrequencyPercent: often\n");
  RunOutcome Bad = run(Tool, {"--verify-config", File, "--"});
  EXPECT_EQ(2, Bad.Status);
  EXPECT_EQ("", Bad.Out);
  EXPECT_NE(std::string::npos,
            Bad.Err.find("invalid configuration value 'often' for option "
                         "'xfer-sync-in-loop.MinFrequencyPercent'"))
      << Bad.Err;
}

TEST_F(ToolTest, EmptyCompilationDatabase) {
  write("compile_commands.json", "[]");
  RunOutcome R = run(Tool, {"-p", Dir.str().str()});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos,
            R.Err.find("compile_commands.json: the compilation database is "
                       "empty"))
      << R.Err;
}

// LLVM's -h groups with the letters after it: an unknown --header-foo used to
// print the help and exit 0.
TEST_F(ToolTest, OnlyHelpOptionsPrintHelp) {
  for (const char *Unknown : {"--header-foo", "--hx", "-help-me"}) {
    RunOutcome R = run(Tool, {Unknown, "x.cpp"});
    EXPECT_EQ(2, R.Status) << Unknown;
    EXPECT_NE(std::string::npos, R.Err.find("Unknown command line argument"))
        << R.Err;
    EXPECT_EQ("", R.Out) << Unknown;
  }
  for (const char *Help : {"-h", "--help", "-help"}) {
    RunOutcome R = run(Tool, {Help});
    EXPECT_EQ(0, R.Status) << Help;
    EXPECT_NE(std::string::npos, R.Out.find("USAGE: xfer-tidy")) << Help;
    // -j's default is stated.
    EXPECT_NE(std::string::npos,
              R.Out.find("default: the number of hardware threads"));
  }
}

// An option value a check cannot use is a configuration error (exit 2),
// reported once, and not a finding.
TEST_F(ToolTest, BadOptionValueIsAConfigurationError) {
  std::string File = write("hazard.cpp", HazardSource);
  write(".clang-tidy",
        "CheckOptions:\n  xfer-copy-in-loop.MinFrequencyPercent: often\n");
  RunOutcome R = run(Tool, {"--format=json", File, "--", "-isystem",
                            StubInclude});
  EXPECT_EQ(2, R.Status) << R.Out << R.Err;
  EXPECT_NE(std::string::npos,
            R.Err.find("error: configuration: invalid configuration value "
                       "'often' for option "
                       "'xfer-copy-in-loop.MinFrequencyPercent'"))
      << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("clang-tidy-config")) << R.Out;
  EXPECT_EQ(std::string::npos, R.Err.find("finding")) << R.Err;
}

TEST_F(ToolTest, MistypedOptionKeyIsNamed) {
  std::string File = write("hazard.cpp", HazardSource);
  std::string Config = write(".clang-tidy", "CheckOptions:\n"
                                            "  xfer-sync-in-loop.MinIteratons: 3\n"
                                            "  xfer-copy-in-loop.CostNote: false\n");
  RunOutcome R = run(Tool, {File, "--", "-isystem", StubInclude});
  EXPECT_EQ(1, R.Status) << R.Out << R.Err;
  EXPECT_NE(std::string::npos,
            R.Err.find("warning: unknown option "
                       "'xfer-sync-in-loop.MinIteratons' in " + Config +
                       "; xfer-sync-in-loop reads CostModel, CostNotes, "
                       "MinFrequencyPercent"))
      << R.Err;
  EXPECT_NE(std::string::npos,
            R.Err.find("unknown option 'xfer-copy-in-loop.CostNote' in " +
                       Config +
                       "; did you mean 'xfer-copy-in-loop.CostNotes'?"))
      << R.Err;
}

// Progress lines on stderr, one whole line each, under -j; --quiet leaves
// stderr empty.
TEST_F(ToolTest, ProgressLinesAndQuiet) {
  std::vector<std::string> Files;
  for (const char *Name : {"a.cpp", "b.cpp", "c.cpp"})
    Files.push_back(write(Name, HazardSource));
  std::vector<std::string> Args{"-j", "2", "--no-cache"};
  Args.insert(Args.end(), Files.begin(), Files.end());
  for (const char *Flag : {"--", "-isystem"})
    Args.push_back(Flag);
  Args.push_back(StubInclude);

  // Not a terminal: no progress unless asked for.
  RunOutcome R = run(Tool, Args);
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_EQ("3 findings in 3 files\n", R.Err);

  Args.insert(Args.begin(), "--progress=always");
  R = run(Tool, Args);
  EXPECT_EQ(1, R.Status) << R.Err;
  llvm::SmallVector<llvm::StringRef, 16> Lines;
  llvm::StringRef(R.Err).split(Lines, '\n', -1, /*KeepEmpty=*/false);
  ASSERT_EQ(7u, Lines.size()) << R.Err;
  EXPECT_EQ("3 findings in 3 files", Lines.back());
  // Each pass reports every file once, counting up to 3; the second pass
  // counts the findings (one per file).
  llvm::Regex Indexed(R"(^\[([1-3])/3\] indexed (.*) \([0-9]+\.[0-9] s\), )"
                      R"([0-9]+:[0-9][0-9], slowest: [abc]\.cpp [0-9]+\.[0-9] s$)");
  llvm::Regex Analysed(
      R"(^\[([1-3])/3\] analysed (.*) \([0-9]+\.[0-9] s\), ([1-3]) findings, )"
      R"([0-9]+:[0-9][0-9], slowest: [abc]\.cpp [0-9]+\.[0-9] s$)");
  std::set<std::string> IndexedFiles, AnalysedFiles;
  for (unsigned I = 0; I < 6; ++I) {
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    if (I < 3) {
      ASSERT_TRUE(Indexed.match(Lines[I], &Parts)) << Lines[I].str();
      EXPECT_EQ(std::to_string(I + 1), Parts[1]);
      IndexedFiles.insert(Parts[2].str());
    } else {
      ASSERT_TRUE(Analysed.match(Lines[I], &Parts)) << Lines[I].str();
      EXPECT_EQ(std::to_string(I - 2), Parts[1]);
      EXPECT_EQ(Parts[1], Parts[3]);
      AnalysedFiles.insert(Parts[2].str());
    }
  }
  std::set<std::string> Expected(Files.begin(), Files.end());
  EXPECT_EQ(Expected, IndexedFiles);
  EXPECT_EQ(Expected, AnalysedFiles);

  Args.insert(Args.begin(), "--quiet");
  R = run(Tool, Args);
  EXPECT_EQ(1, R.Status);
  EXPECT_EQ("", R.Err);
}

// Colours: --color=always/never, and on a terminal unless NO_COLOR is set.
TEST_F(ToolTest, Colours) {
  std::string File = write("hazard.cpp", HazardSource);
  RunOutcome R = run(Tool, {"--color=always", File, "--", "-isystem",
                            StubInclude});
  EXPECT_EQ(1, R.Status);
  EXPECT_NE(std::string::npos, R.Out.find("\x1b[")) << R.Out;
  R = run(Tool, {"--color=never", File, "--", "-isystem", StubInclude});
  EXPECT_EQ(std::string::npos, R.Out.find("\x1b[")) << R.Out;

  // A terminal, through script(1).
  llvm::ErrorOr<std::string> Script = llvm::sys::findProgramByName("script");
  if (!Script)
    GTEST_SKIP() << "no script(1) to run the tool on a terminal";
  std::string Command = Tool + " " + File + " -- -isystem " + StubInclude;
  R = run(*Script, {"-qec", Command, "/dev/null"}, {{"TERM=xterm"}});
  EXPECT_NE(std::string::npos, R.Out.find("\x1b[")) << R.Out;
  EXPECT_NE(std::string::npos, R.Out.find("[xfer-copy-in-loop]")) << R.Out;
  R = run(*Script, {"-qec", Command, "/dev/null"},
          {{"TERM=xterm", "NO_COLOR=1"}});
  EXPECT_EQ(std::string::npos, R.Out.find("\x1b[")) << R.Out;
  EXPECT_NE(std::string::npos, R.Out.find("[xfer-copy-in-loop]")) << R.Out;
}

// --exit-zero: findings alone do not fail the run; findings made errors by
// --warnings-as-errors (or WarningsAsErrors in .clang-tidy) and input errors
// still do.
TEST_F(ToolTest, ExitZeroAndWarningsAsErrors) {
  std::string File = write("hazard.cpp", HazardSource);
  auto Run = [&](std::vector<std::string> Options) {
    Options.insert(Options.end(), {File, "--", "-isystem", StubInclude});
    return run(Tool, Options);
  };
  RunOutcome R = Run({"--exit-zero"});
  EXPECT_EQ(0, R.Status) << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find(File + CopyWarning)) << R.Out;

  R = Run({"--warnings-as-errors=xfer-copy-*"});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find(":4:5: error: 'cudaMemcpy' copies device memory"))
      << R.Out;
  EXPECT_NE(std::string::npos,
            R.Out.find("[xfer-copy-in-loop,-warnings-as-errors]"))
      << R.Out;
  EXPECT_NE(std::string::npos, R.Err.find("1 finding in 1 file, 1 as errors"))
      << R.Err;
  R = Run({"--exit-zero", "--warnings-as-errors=xfer-copy-in-loop"});
  EXPECT_EQ(1, R.Status) << R.Err;
  R = Run({"--exit-zero", "--warnings-as-errors=xfer-sync-in-loop"});
  EXPECT_EQ(0, R.Status) << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find(": warning: ")) << R.Out;

  write(".clang-tidy", "WarningsAsErrors: 'xfer-*'\n");
  R = Run({"--exit-zero", "--format=json"});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find("\"severity\": \"error\"")) << R.Out;

  R = run(Tool, {"--exit-zero", Dir.str().str() + "/absent.cpp", "--"});
  EXPECT_EQ(2, R.Status);
}

// A git repository in the test's directory, isolated from the machine's
// git configuration, with a build/compile_commands.json listing main.cpp
// only (flags for the stub CUDA headers).
class GitRepositoryTest : public ToolTest {
protected:
  void SetUp() override {
    ToolTest::SetUp();
    llvm::ErrorOr<std::string> Found = llvm::sys::findProgramByName("git");
    if (!Found)
      GTEST_SKIP() << "git not installed";
    Git = *Found;
    Env = {"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
           "HOME=" + Dir.str().str(),
           "PATH=" + llvm::sys::path::parent_path(Tool).str() + ":/usr/bin:/bin",
           "PRE_COMMIT_HOME=" + Dir.str().str() + "/pre-commit-home",
           "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
           "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"};
    ASSERT_EQ(0, git({"init", "-q", "."}).Status);
    ASSERT_FALSE(llvm::sys::fs::create_directory(Dir + "/build"));
    // main calls the step function the tests commit (a function main never
    // reaches never runs, and is not reported).
    std::string Main =
        write("main.cpp", "void step(float *, float *);\n"
                          "int main() { step(nullptr, nullptr); }\n");
    write("build/compile_commands.json",
          "[{\"directory\": \"" + Dir.str().str() +
              "/build\", \"command\": \"c++ -isystem " + StubInclude +
              " -c " + Main + "\", \"file\": \"" + Main + "\"}]");
  }

  RunOutcome git(std::vector<std::string> Args) {
    Args.insert(Args.begin(), Git);
    return runIn(Dir, Args, Env);
  }

  /// Commits \p Name with \p Contents; the outcome of git commit.
  RunOutcome commit(llvm::StringRef Name, llvm::StringRef Contents) {
    write(Name, Contents);
    EXPECT_EQ(0, git({"add", Name.str()}).Status);
    RunOutcome R = git({"commit", "-q", "-m", ("add " + Name).str()});
    if (R.Status != 0)
      git({"rm", "-q", "--cached", Name.str()});
    return R;
  }

  std::string Git;
  std::vector<std::string> Env;
};

// The plain hook, installed by xfer-tidy itself: a staged hazard is
// rejected with the warning shown, a clean file is accepted; the file is not
// in the compilation database and says so once.
TEST_F(GitRepositoryTest, PlainPreCommitHook) {
  RunOutcome R = runIn(Dir, {Tool, "--install-git-hook"}, Env);
  ASSERT_EQ(0, R.Status) << R.Err;
  std::string Hook = Dir.str().str() + "/.git/hooks/pre-commit";
  EXPECT_TRUE(llvm::sys::fs::can_execute(Hook));
  EXPECT_NE(std::string::npos,
            readFile(Hook).find(": \"${XFER_TIDY:=" + Tool + "}\""));

  R = commit("hazard.cpp", HazardSource);
  EXPECT_EQ(1, R.Status) << R.Out << R.Err;
  std::string Output = R.Out + R.Err;
  EXPECT_NE(std::string::npos,
            Output.find(Dir.str().str() + "/hazard.cpp" + CopyWarning))
      << Output;
  EXPECT_NE(std::string::npos, Output.find("commit rejected")) << Output;
  llvm::StringRef Inferred = "hazard.cpp: not in " ;
  EXPECT_EQ(1u, llvm::StringRef(Output).count(Inferred)) << Output;
  EXPECT_NE(0, git({"rev-parse", "-q", "--verify", "HEAD"}).Status);

  R = commit("clean.cpp", CleanSource);
  EXPECT_EQ(0, R.Status) << R.Out << R.Err;
  EXPECT_EQ(0, git({"rev-parse", "-q", "--verify", "HEAD"}).Status);

  // Installing again replaces our hook; another hook is left alone.
  EXPECT_EQ(0, runIn(Dir, {Tool, "--install-git-hook"}, Env).Status);
  write(".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n");
  R = runIn(Dir, {Tool, "--install-git-hook"}, Env);
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find("a pre-commit hook exists already"))
      << R.Err;
}

// --diff=<revision>: the changed files are analysed and only findings on
// changed lines are reported.
TEST_F(GitRepositoryTest, DiffReportsChangedLinesOnly) {
  std::string Train = write("train.cpp", HazardSource);
  ASSERT_EQ(0, git({"add", "train.cpp", "main.cpp"}).Status);
  ASSERT_EQ(0, git({"commit", "-q", "-m", "train"}).Status);
  write("other.cpp", HazardSource); // untracked: not in the diff
  write("train.cpp", std::string(HazardSource) +
                         "void again(float *Device, float *Host) {\n"
                         "  for (int I = 0; I < 10; ++I)\n"
                         "    cudaMemcpy(Host, Device, 4, "
                         "cudaMemcpyDeviceToHost), launch(Device);\n"
                         "}\n");
  RunOutcome R = runIn(Dir, {Tool, "--diff=HEAD"}, Env);
  EXPECT_EQ(1, R.Status) << R.Out << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find(Train + ":8:5: warning: 'cudaMemcpy' copies device "
                               "memory to the host on each of 10 iterations "
                               "of the loop at line 7"))
      << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find(":4:5: warning:")) << R.Out;
  EXPECT_NE(std::string::npos, R.Err.find("1 finding in 1 file")) << R.Err;

  // Nothing changed since the commit.
  ASSERT_EQ(0, git({"commit", "-q", "-a", "-m", "again"}).Status);
  R = runIn(Dir, {Tool, "--diff=HEAD"}, Env);
  EXPECT_EQ(0, R.Status) << R.Out << R.Err;
  EXPECT_NE(std::string::npos, R.Err.find("no changed source files")) << R.Err;
  // Against the first commit: the second function only.
  R = runIn(Dir, {Tool, "--diff=HEAD~1", "train.cpp"}, Env);
  EXPECT_EQ(1, R.Status) << R.Out << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find(Train + ":8:5: warning:")) << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find(Train + ":4:5: warning:")) << R.Out;

  R = runIn(Dir, {Tool, "--diff=no-such-revision"}, Env);
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find("--diff=no-such-revision: 'git"))
      << R.Err;
}

// Through the pre-commit framework, with the repository's
// .pre-commit-hooks.yaml (copied into a hook repository of its own).
TEST_F(GitRepositoryTest, PreCommitFrameworkHook) {
  llvm::ErrorOr<std::string> PreCommit =
      llvm::sys::findProgramByName("pre-commit");
  if (!PreCommit)
    GTEST_SKIP() << "pre-commit not installed (apt-get install pre-commit)";
  std::string HookRepo = Dir.str().str() + "/hook-repo";
  ASSERT_FALSE(llvm::sys::fs::create_directory(HookRepo));
  write("hook-repo/.pre-commit-hooks.yaml",
        readFile(XFER_TESTDATA_DIR "/../.pre-commit-hooks.yaml"));
  for (std::vector<std::string> Args :
       {std::vector<std::string>{"init", "-q", "."},
        std::vector<std::string>{"add", "."},
        std::vector<std::string>{"commit", "-q", "-m", "hooks"}}) {
    Args.insert(Args.begin(), Git);
    ASSERT_EQ(0, runIn(HookRepo, Args, Env).Status);
  }
  write(".git/info/exclude", "hook-repo/\npre-commit-home/\nbuild/\n");
  write(".pre-commit-config.yaml",
        "repos:\n  - repo: " + HookRepo +
            "\n    rev: HEAD\n    hooks:\n      - id: xfer-tidy\n");
  ASSERT_EQ(0, git({"add", ".pre-commit-config.yaml", "main.cpp"}).Status);
  RunOutcome R = runIn(Dir, {*PreCommit, "install"}, Env);
  ASSERT_EQ(0, R.Status) << R.Out << R.Err;

  R = commit("hazard.cpp", HazardSource);
  EXPECT_EQ(1, R.Status) << R.Out << R.Err;
  std::string Output = R.Out + R.Err;
  EXPECT_NE(std::string::npos,
            Output.find(Dir.str().str() + "/hazard.cpp" + CopyWarning))
      << Output;

  R = commit("clean.cpp", CleanSource);
  EXPECT_EQ(0, R.Status) << R.Out << R.Err;
}

// clang-tidy's --line-filter syntax.
TEST_F(ToolTest, LineFilter) {
  std::string File = write("hazard.cpp", HazardSource);
  auto Run = [&](std::string Filter) {
    return run(Tool, {"--line-filter=" + Filter, File, "--", "-isystem",
                      StubInclude});
  };
  RunOutcome R = Run(R"([{"name":"hazard.cpp","lines":[[1,3],[5,9]]}])");
  EXPECT_EQ(0, R.Status) << R.Out << R.Err;
  EXPECT_EQ("", R.Out);
  R = Run(R"([{"name":"hazard.cpp","lines":[[4,4]]}])");
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find(File + CopyWarning));
  R = Run(R"([{"name":"hazard.cpp"}])");
  EXPECT_EQ(1, R.Status) << R.Err;
  R = Run(R"([{"name":"other.cpp"}])");
  EXPECT_EQ(0, R.Status) << R.Err;
  R = Run("[{\"name\": ");
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find("invalid --line-filter")) << R.Err;
}

// A baseline records today's findings; later runs report only new ones,
// also when the recorded ones have moved to other lines.
TEST_F(ToolTest, Baseline) {
  std::string File = write("hazard.cpp", HazardSource);
  std::string Baseline = Dir.str().str() + "/xfer-baseline.json";
  auto Run = [&](std::string Option) {
    return run(Tool, {Option, File, "--", "-isystem", StubInclude});
  };
  RunOutcome R = Run("--write-baseline=" + Baseline);
  EXPECT_EQ(0, R.Status) << R.Err;
  llvm::Expected<llvm::json::Value> Written =
      llvm::json::parse(readFile(Baseline));
  ASSERT_TRUE(static_cast<bool>(Written)) << llvm::toString(Written.takeError());
  const llvm::json::Array &Entries =
      *Written->getAsObject()->getArray("findings");
  ASSERT_EQ(1u, Entries.size());
  EXPECT_EQ("hazard.cpp",
            Entries[0].getAsObject()->getString("file").value_or(""));

  R = Run("--baseline=" + Baseline);
  EXPECT_EQ(0, R.Status) << R.Out << R.Err;
  EXPECT_EQ("", R.Out);
  EXPECT_NE(std::string::npos,
            R.Err.find("0 findings in 1 file, 1 more in the baseline"))
      << R.Err;

  // Moved down two lines: still the recorded finding.
  write("hazard.cpp", std::string("// one\n// two\n") + HazardSource);
  R = Run("--baseline=" + Baseline);
  EXPECT_EQ(0, R.Status) << R.Out << R.Err;
  // A new one is reported.
  write("hazard.cpp", std::string(HazardSource) +
                          "void more(float *D, float *H) {\n"
                          "  for (int I = 0; I < 10; ++I)\n"
                          "    cudaMemcpy(H, D, 8, cudaMemcpyDeviceToHost), "
                          "launch(D);\n}\n");
  R = Run("--baseline=" + Baseline);
  EXPECT_EQ(1, R.Status) << R.Out << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find(File + ":8:5: warning:")) << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find(File + ":4:5: warning:")) << R.Out;

  write("bad.json", "{\"version\": 1, \"findings\": [{\"check\": 1}]}");
  R = Run("--baseline=" + Dir.str().str() + "/bad.json");
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos,
            R.Err.find("bad.json: malformed baseline: findings[0] needs"))
      << R.Err;
  EXPECT_EQ("", R.Out);
}

// cmake --install into a prefix: the tool, the plugin, xfer-bench, the cost
// models, the CUDA compatibility headers and the documentation; the
// installed tool runs the README example and finds its files relative to
// itself.
TEST_F(ToolTest, InstalledToolFindsItsFiles) {
  std::string Prefix = Dir.str().str() + "/prefix";
  RunOutcome R = run(XFER_CMAKE, {"--install", XFER_BINARY_DIR, "--prefix",
                                  Prefix});
  ASSERT_EQ(0, R.Status) << R.Out << R.Err;
  std::vector<std::string> Expected{
      "bin/xfer-tidy", "lib/libXferTidy.so",
      "share/xfer-tidy/cost-models/nvidia-h200.json",
      "share/xfer-tidy/cuda-compat/xfer_tidy_cuda_legacy.h",
      "share/xfer-tidy/cuda-compat/texture_fetch_functions.h",
      "share/xfer-tidy/pre-commit", "share/doc/xfer-tidy/README.md",
      "share/doc/xfer-tidy/docs/checks/sync-in-loop.md"};
#ifdef XFER_INSTALLS_XFER_BENCH
  Expected.push_back("bin/xfer-bench");
#endif
  for (const std::string &File : Expected)
    EXPECT_TRUE(llvm::sys::fs::exists(Prefix + "/" + File)) << File;
  EXPECT_FALSE(llvm::sys::fs::exists(
      Prefix + "/share/xfer-tidy/cost-models/test-subset-h200.json"));
  std::string Installed = Prefix + "/bin/xfer-tidy";

  // The README's example, when LibTorch's headers are there.
  if (!std::string(XFER_LIBTORCH_API_INCLUDE).empty()) {
    R = run(Installed, {XFER_TESTDATA_DIR "/examples/seed_training_loop.cpp",
                        "--", "-std=c++17", "-isystem",
                        XFER_LIBTORCH_API_INCLUDE});
    EXPECT_EQ(1, R.Status) << R.Err;
    EXPECT_NE(std::string::npos,
              R.Out.find("seed_training_loop.cpp:34:35: warning: "
                         "'item<float>()' synchronizes with the GPU on each "
                         "of 1000 iterations of the loop at line 25"))
        << R.Out;
    EXPECT_NE(std::string::npos, R.Out.find("note: measured cost: ")) << R.Out;
  }

  // A shipped cost model by name; SARIF help links to the installed docs.
  std::string File = write("hazard.cpp", HazardSource);
  R = run(Installed, {"--cost-model=nvidia-h200", "--format=sarif", File, "--",
                      "-isystem", StubInclude});
  EXPECT_EQ(1, R.Status) << R.Err;
  if (std::string(XFER_DOCS_URL).empty())
    EXPECT_NE(std::string::npos,
              R.Out.find("\"helpUri\": \"file://" + Prefix +
                         "/share/doc/xfer-tidy/docs/checks/copy-in-loop.md\""))
        << R.Out;
  EXPECT_NE(std::string::npos, R.Out.find("\"latencyMicroseconds\""));

  // The installed plugin.
  R = run(XFER_CLANG_TIDY, {"--load=" + Prefix + "/lib/libXferTidy.so",
                            "--checks=-*,xfer-*", File, "--", "-isystem",
                            StubInclude});
  EXPECT_NE(std::string::npos, R.Out.find(File + CopyWarning)) << R.Out << R.Err;
}

// cpack -G DEB: a package that declares what the tool needs to run and,
// unpacked anywhere, runs and finds its files relative to itself.
TEST_F(ToolTest, DebianPackageDeclaresItsDependenciesAndRuns) {
  std::string CPack = llvm::sys::path::parent_path(XFER_CMAKE).str() + "/cpack";
  for (const char *Tool : {"dpkg-deb", "dpkg-shlibdeps"})
    if (!llvm::sys::findProgramByName(Tool))
      GTEST_SKIP() << Tool << " is not installed";
  std::string Out = Dir.str().str() + "/package";
  RunOutcome R = run(CPack, {"--config", XFER_BINARY_DIR "/CPackConfig.cmake",
                             "-G", "DEB", "-B", Out});
  ASSERT_EQ(0, R.Status) << R.Out << R.Err;
  std::string Deb;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Out, EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::StringRef(It->path()).ends_with(".deb"))
      Deb = It->path();
  ASSERT_FALSE(Deb.empty()) << R.Out;

  std::string DpkgDeb = *llvm::sys::findProgramByName("dpkg-deb");
  R = run(DpkgDeb, {"-f", Deb, "Depends"});
  ASSERT_EQ(0, R.Status) << R.Err;
  // Clang's builtin headers, and the shared libraries the tool links.
  for (const char *Package : {"libclang-common-19-dev", "libclang-cpp19",
                              "libllvm19", "libstdc++6"})
    EXPECT_NE(std::string::npos, R.Out.find(Package)) << R.Out;

  std::string Root = Dir.str().str() + "/root";
  R = run(DpkgDeb, {"-x", Deb, Root});
  ASSERT_EQ(0, R.Status) << R.Err;
  for (const char *File :
       {"/usr/bin/xfer-tidy", "/usr/lib/libXferTidy.so",
        "/usr/share/xfer-tidy/cost-models/nvidia-h200.json",
        "/usr/share/doc/xfer-tidy/docs/checks/sync-in-loop.md"})
    EXPECT_TRUE(llvm::sys::fs::exists(Root + File)) << File;
  std::string Source = write("hazard.cpp", HazardSource);
  R = run(Root + "/usr/bin/xfer-tidy",
          {"--cost-model=nvidia-h200", Source, "--", "-isystem", StubInclude});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find(Source + CopyWarning)) << R.Out;
  EXPECT_NE(std::string::npos, R.Out.find("note: measured cost: ")) << R.Out;
}

// The README's CMake recipe: clang-tidy-19 with the installed plugin as
// CMAKE_CXX_CLANG_TIDY reports the hazard while the project builds.
TEST_F(ToolTest, CMakeRecipeRunsThePluginDuringTheBuild) {
  std::string Prefix = Dir.str().str() + "/prefix";
  RunOutcome R =
      run(XFER_CMAKE, {"--install", XFER_BINARY_DIR, "--prefix", Prefix});
  ASSERT_EQ(0, R.Status) << R.Out << R.Err;
  std::string Source = write("hazard.cpp", HazardSource);
  write("CMakeLists.txt", "cmake_minimum_required(VERSION 3.20)\n"
                          "project(demo LANGUAGES CXX)\n"
                          "add_library(demo STATIC hazard.cpp)\n"
                          "target_include_directories(demo SYSTEM PRIVATE " +
                              StubInclude + ")\n");
  std::string Build = Dir.str().str() + "/build";
  R = run(XFER_CMAKE,
          {"-S", Dir.str().str(), "-B", Build, "-G", XFER_CMAKE_GENERATOR,
           "-DCMAKE_CXX_COMPILER=" XFER_CXX_COMPILER,
           std::string("-DCMAKE_CXX_CLANG_TIDY=") + XFER_CLANG_TIDY +
               ";--load=" + Prefix + "/lib/libXferTidy.so;--checks=-*,xfer-*"});
  ASSERT_EQ(0, R.Status) << R.Out << R.Err;
  R = run(XFER_CMAKE, {"--build", Build});
  EXPECT_EQ(0, R.Status) << R.Out << R.Err;
  EXPECT_NE(std::string::npos, (R.Out + R.Err).find(Source + CopyWarning))
      << R.Out << R.Err;
}

TEST_F(ToolTest, MissingSourceIsAnInputError) {
  RunOutcome R = run(Tool, {Dir.str().str() + "/absent.cpp", "--"});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find("absent.cpp: no such file"))
      << R.Err;
}

TEST_F(ToolTest, DirectoryAsSourceIsAnInputError) {
  RunOutcome R = run(Tool, {Dir.str().str(), "--"});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos,
            R.Err.find(Dir.str().str() + ": is a directory, not a source file"))
      << R.Err;
}

TEST_F(ToolTest, OutputInAMissingDirectoryFailsBeforeAnalysing) {
  std::string File = write("hazard.cpp", HazardSource);
  std::string Output = Dir.str().str() + "/missing/report.json";
  RunOutcome R = run(Tool, {"--format=json", "--output=" + Output, File, "--",
                            "-isystem", StubInclude});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find("no such directory")) << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("warning")) << R.Out;
  EXPECT_FALSE(llvm::sys::fs::exists(Output));
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
                       "incomplete (first: 6:14: expected expression)"))
      << R.Err;
}

TEST_F(ToolTest, BinaryFileIsAnInputError) {
  std::string Object = write("kernels.o", std::string("\x7f"
                                                      "ELF\x02\x01\x01\0\0\0",
                                                      10));
  std::string Source = write("hazard.cpp", HazardSource);
  RunOutcome R = run(Tool, {Source, Object, "--", "-isystem", StubInclude});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos,
            R.Err.find(Object + ": not a source file (binary content)"))
      << R.Err;
  EXPECT_EQ("", R.Out); // nothing analysed
}

// An empty source is a valid translation unit (a placeholder file): it has
// nothing to report, and a pre-commit hook must not reject it.
TEST_F(ToolTest, EmptySourceHasNoFindings) {
  std::string File = write("empty.cpp", "");
  RunOutcome R = run(Tool, {File, "--"});
  EXPECT_EQ(0, R.Status) << R.Err;
  EXPECT_EQ("", R.Out);
  EXPECT_NE(std::string::npos, R.Err.find("0 findings in 1 file")) << R.Err;
}

TEST_F(ToolTest, UnreadableSourceIsAnInputError) {
  std::string File = write("secret.cpp", CleanSource);
  llvm::sys::fs::setPermissions(File, llvm::sys::fs::no_perms);
  std::string Program = Tool;
  std::vector<std::string> Args{File, "--"};
  if (::geteuid() == 0) {
    // Root reads any file through its DAC capabilities; without them in the
    // bounding set, the tool runs as root but obeys the file's permissions.
    auto SetPriv = llvm::sys::findProgramByName("setpriv");
    if (!SetPriv)
      GTEST_SKIP() << "running as root and setpriv is not installed";
    Program = *SetPriv;
    Args.insert(Args.begin(),
                {"--bounding-set=-dac_override,-dac_read_search", "--", Tool});
  }
  RunOutcome R = run(Program, Args);
  EXPECT_EQ(2, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Err.find(File + ": cannot read: Permission denied"))
      << R.Err;
}

TEST_F(ToolTest, DatabaseEntryWithoutFileOrDirectory) {
  for (const auto &[Entry, Missing] :
       {std::pair{R"({"directory": "/", "command": "c++ -c a.cpp"})", "file"},
        std::pair{R"({"file": "a.cpp", "command": "c++ -c a.cpp"})",
                  "directory"}}) {
    write("compile_commands.json", std::string("[") + Entry + "]");
    RunOutcome R = run(Tool, {"-p", Dir.str().str()});
    EXPECT_EQ(2, R.Status);
    EXPECT_NE(std::string::npos,
              R.Err.find("compile_commands.json: malformed compilation "
                         "database: Missing key: \"" +
                         std::string(Missing) + "\""))
        << R.Err;
  }
}

// "directory": "." in a hand-written database is the database's own
// directory, wherever xfer-tidy runs; duplicate entries report once.
TEST_F(ToolTest, RelativeAndDuplicateDatabaseEntries) {
  std::string File = write("hazard.cpp", HazardSource);
  std::string Entry = R"({"directory": ".", "file": "hazard.cpp", )"
                      R"("command": "c++ -isystem )" +
                      StubInclude + R"( -c hazard.cpp"})";
  write("compile_commands.json", "[" + Entry + ", " + Entry + "]");
  RunOutcome R = runIn("/", {Tool, "-p", Dir.str().str()});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_EQ(File + CopyWarning,
            warningText(R.Out).substr(0, File.size() + strlen(CopyWarning)))
      << R.Out;
  EXPECT_NE(std::string::npos, R.Err.find("1 finding in 1 file")) << R.Err;
}

// A glob on the command line that matches no check is a typo: the run
// stops (a configuration file, shared with clang-tidy, only warns).
TEST_F(ToolTest, MistypedCheckNameIsAnError) {
  std::string File = write("hazard.cpp", HazardSource);
  RunOutcome R = run(Tool, {"--checks=-xfer-sync-in-lop", File, "--",
                            "-isystem", StubInclude});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos,
            R.Err.find("error: configuration: '-xfer-sync-in-lop' in --checks "
                       "matches no check"))
      << R.Err;
  EXPECT_EQ("", R.Out);
}

TEST_F(ToolTest, FixOnAReadOnlyFileChangesNothing) {
  const char *Source = R"cpp(#include <torch/torch.h>
torch::Tensor step(torch::Tensor W) {
  torch::Tensor Sum = W;
  for (int I = 0; I < 100; ++I)
    Sum = Sum + torch::zeros({4, 2}).to(torch::kCUDA);
  return Sum;
}
)cpp";
  std::string Writable = write("a.cpp", Source);
  std::string ReadOnly = write("b.cpp", Source);
  llvm::sys::fs::setPermissions(ReadOnly, llvm::sys::fs::owner_read |
                                              llvm::sys::fs::group_read |
                                              llvm::sys::fs::others_read);
  RunOutcome R =
      run(Tool, {"--fix", Writable, ReadOnly, "--", "-isystem", StubInclude});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find("cannot apply fixes: " + ReadOnly +
                                          " is read-only; no fix applied"))
      << R.Err;
  EXPECT_EQ(Source, readFile(Writable)); // all fixes or none
  EXPECT_EQ(Source, readFile(ReadOnly));
}

// A constant expression that runs for minutes stands for a unit that
// hangs: it fails alone, by name, and the other unit is reported.
const char *SlowSource = R"cpp(constexpr long spin() {
  long Sum = 0;
  for (long I = 0; I < 4000000000L; ++I)
    Sum += I & 1;
  return Sum;
}
static_assert(spin() > 0, "");
)cpp";

TEST_F(ToolTest, TimeoutPerFileStopsOnlyTheSlowUnit) {
  std::string Slow = write("slow.cpp", SlowSource);
  std::string Hazard = write("hazard.cpp", HazardSource);
  RunOutcome R =
      run(Tool, {"--no-cache", "--timeout-per-file=2", Slow, Hazard, "--",
                 "-isystem", StubInclude, "-fconstexpr-steps=2147483647"});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos,
            R.Err.find("error: " + Slow +
                       ": not analysed: it took longer than 2 s "
                       "(--timeout-per-file)"))
      << R.Err;
  EXPECT_EQ(Hazard + CopyWarning,
            warningText(R.Out).substr(0, Hazard.size() + strlen(CopyWarning)))
      << R.Out;
}

// Without a slow unit, units analysed in their own processes give exactly
// the report of one process (the cache shared by both).
TEST_F(ToolTest, WorkerProcessesGiveTheSameReport) {
  std::string Hazard = write("hazard.cpp", HazardSource);
  std::string Clean = write("clean.cpp", CleanSource);
  std::vector<std::string> Args{"--format=json", Hazard,     Clean, "--",
                                "-isystem",      StubInclude};
  RunOutcome InProcess = run(Tool, Args);
  Args.insert(Args.begin(), "--timeout-per-file=300");
  RunOutcome Workers = run(Tool, Args);
  EXPECT_EQ(1, InProcess.Status) << InProcess.Err;
  EXPECT_EQ(1, Workers.Status) << Workers.Err;
  EXPECT_EQ(InProcess.Out, Workers.Out);
  EXPECT_NE(std::string::npos, Workers.Out.find("xfer-copy-in-loop"));
}

// SIGTERM (a CI runner's cancel) during a parallel run: no report and no
// temporary file left beside it, the units' processes gone, and the cache
// still gives a later run the right answer.
TEST_F(ToolTest, TerminatedRunLeavesNoPartialFiles) {
  std::string Slow = write("slow.cpp", SlowSource);
  std::string Hazard = write("hazard.cpp", HazardSource);
  for (int Signal : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(Signal == SIGTERM ? "SIGTERM" : "SIGINT");
    std::string Cache =
        Dir.str().str() + "/cache" + (Signal == SIGTERM ? "-term" : "-int");
    std::string Report = Dir.str().str() + "/report.json";
    std::vector<std::string> Args{Tool,
                                  "--cache-dir=" + Cache,
                                  "--timeout-per-file=600",
                                  "--no-index",
                                  "-j",
                                  "2",
                                  "--format=json",
                                  "--output=" + Report,
                                  Slow,
                                  Hazard,
                                  "--",
                                  "-isystem",
                                  StubInclude,
                                  "-fconstexpr-steps=2147483647"};
    std::vector<llvm::StringRef> Argv(Args.begin(), Args.end());
    std::optional<llvm::StringRef> Quiet[] = {std::nullopt, llvm::StringRef(""),
                                              llvm::StringRef("")};
    llvm::sys::ProcessInfo Running =
        llvm::sys::ExecuteNoWait(Tool, Argv, std::nullopt, Quiet);
    ASSERT_NE(llvm::sys::ProcessInfo::InvalidPid, Running.Pid);
    // Until the hazard's result is in the cache; the slow unit still runs.
    auto CacheEntries = [&] {
      unsigned Count = 0;
      std::error_code EC;
      for (llvm::sys::fs::recursive_directory_iterator It(Cache, EC), End;
           It != End && !EC; It.increment(EC))
        // An entry's name is its key; one being written has a suffix.
        Count += It->type() == llvm::sys::fs::file_type::regular_file &&
                 llvm::sys::path::filename(It->path()) != "CACHEDIR.TAG" &&
                 !llvm::sys::path::filename(It->path()).contains('.');
      return Count;
    };
    for (int Waited = 0; Waited < 600 && CacheEntries() < 1; ++Waited)
      ::usleep(100 * 1000);
    ASSERT_EQ(1u, CacheEntries());
    // Processes whose command line names the slow unit as a worker's.
    auto WorkersLeft = [&] {
      unsigned Count = 0;
      std::error_code EC;
      for (llvm::sys::fs::directory_iterator It("/proc", EC), End;
           It != End && !EC; It.increment(EC)) {
        // A stream, not a MemoryBuffer: /proc's files report size 0.
        std::ifstream Stream(It->path() + "/cmdline");
        std::string CommandLine((std::istreambuf_iterator<char>(Stream)),
                                std::istreambuf_iterator<char>());
        std::replace(CommandLine.begin(), CommandLine.end(), '\0', ' ');
        Count += CommandLine.find("--worker-unit=" + Slow) != std::string::npos;
      }
      return Count;
    };
    ASSERT_EQ(1u, WorkersLeft()); // what the signal must end
    ::kill(Running.Pid, Signal);
    llvm::sys::ProcessInfo Ended = llvm::sys::Wait(Running, std::nullopt);
    EXPECT_NE(0, Ended.ReturnCode);

    EXPECT_FALSE(llvm::sys::fs::exists(Report));
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
         It.increment(EC))
      EXPECT_TRUE(
          It->path() == Slow || It->path() == Hazard ||
          llvm::StringRef(It->path()).starts_with(Dir.str().str() + "/cache"))
          << It->path();
    // The workers ended with the run.
    for (int Waited = 0; Waited < 50 && WorkersLeft(); ++Waited)
      ::usleep(100 * 1000);
    EXPECT_EQ(0u, WorkersLeft());

    RunOutcome Again =
        run(Tool, {"--cache-dir=" + Cache, Hazard, "--", "-isystem",
                   StubInclude, "-fconstexpr-steps=2147483647"});
    EXPECT_EQ(1, Again.Status) << Again.Err;
    EXPECT_NE(std::string::npos, Again.Err.find("(1 from the cache)"))
        << Again.Err;
    EXPECT_EQ(Hazard + CopyWarning, warningText(Again.Out).substr(
                                        0, Hazard.size() + strlen(CopyWarning)))
        << Again.Out;
  }
}

// The unit is what could not be analysed; the header holds the reason.
TEST_F(ToolTest, ErrorInAHeaderNamesTheUnitAndTheHeader) {
  std::string Header = write("config.h", "#pragma once\nint broken = ;\n");
  std::string File = write("main.cpp", "#include \"config.h\"\nint x;\n");
  RunOutcome R = run(Tool, {File, "--"});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos,
            R.Err.find("error: " + File +
                       ": compiler errors; findings may be incomplete "
                       "(first: " +
                       Header + ":2:14: expected expression)"))
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

// GitHub Actions annotations, the path relative to the current directory.
TEST_F(ToolTest, GithubWorkflowCommands) {
  ASSERT_FALSE(llvm::sys::fs::create_directory(Dir + "/src"));
  std::string File = write("src/hazard.cpp", HazardSource);
  RunOutcome R = runIn(Dir, {Tool, "--format=github", File, "--", "-isystem",
                             StubInclude});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_TRUE(llvm::StringRef(R.Out).starts_with(
      "::warning file=src/hazard.cpp,line=4,col=5,title=xfer-copy-in-loop::"
      "'cudaMemcpy' copies device memory to the host on each of 10 "
      "iterations of the loop at line 3: the copy waits for all queued "
      "device work and crosses the host link each time (measured cost: "))
      << R.Out;
  EXPECT_EQ(1u, llvm::count(R.Out, '\n')) << R.Out;
}

const llvm::json::Object &object(const llvm::json::Value *V) {
  static const llvm::json::Object Empty;
  return V && V->getAsObject() ? *V->getAsObject() : Empty;
}

std::string text(const llvm::json::Object &O, llvm::StringRef Key) {
  return object(O.get(Key)).getString("text").value_or("").str();
}

// What code-scanning services need: described rules with documentation,
// URIs relative to %SRCROOT%, fingerprints that survive moved lines,
// configuration warnings and location-less errors as notifications.
TEST_F(ToolTest, SarifForCodeScanning) {
  std::string File = write("hazard.cpp", HazardSource);
  write(".clang-tidy", "CheckOptions:\n  xfer-sync-in-loop.MinIteratons: 3\n");
  auto Sarif = [&](std::vector<std::string> Extra) {
    std::vector<std::string> Args{Tool, "--format=sarif", "hazard.cpp"};
    Args.insert(Args.end(), Extra.begin(), Extra.end());
    for (const char *Flag : {"--", "-isystem"})
      Args.push_back(Flag);
    Args.push_back(StubInclude);
    RunOutcome R = runIn(Dir, Args);
    llvm::Expected<llvm::json::Value> Log = llvm::json::parse(R.Out);
    if (!Log) {
      ADD_FAILURE() << llvm::toString(Log.takeError()) << R.Out << R.Err;
      return std::make_pair(R.Status, llvm::json::Object());
    }
    return std::make_pair(
        R.Status,
        object(&(*Log->getAsObject()->getArray("runs"))[0]));
  };

  auto [Status, Run] = Sarif({});
  EXPECT_EQ(1, Status);
  const llvm::json::Object &Driver =
      object(object(Run.get("tool")).get("driver"));
  llvm::StringRef Information =
      Driver.getString("informationUri").value_or("");
  EXPECT_TRUE(Information.ends_with("/README.md")) << Information.str();
  EXPECT_FALSE(Information.contains("clang.llvm.org"));
  std::set<std::string> Rules;
  for (const llvm::json::Value &V : *Driver.getArray("rules")) {
    const llvm::json::Object &Rule = object(&V);
    std::string Id = Rule.getString("id").value_or("").str();
    Rules.insert(Id);
    EXPECT_FALSE(text(Rule, "shortDescription").empty()) << Id;
    EXPECT_GT(text(Rule, "fullDescription").size(), 80u) << Id;
    EXPECT_FALSE(text(Rule, "help").empty()) << Id;
    std::string Doc = "docs/checks/" + Id.substr(5) + ".md";
    llvm::StringRef Help = Rule.getString("helpUri").value_or("");
    EXPECT_TRUE(Help.ends_with("/" + Doc)) << Help.str();
    EXPECT_TRUE(llvm::sys::fs::exists(XFER_TESTDATA_DIR "/../" + Doc)) << Doc;
  }
  EXPECT_EQ((std::set<std::string>{"xfer-copy-in-loop", "xfer-create-on-device",
                                   "xfer-device-mismatch",
                                   "xfer-launch-bound-loop",
                                   "xfer-pageable-async-copy",
                                   "xfer-sync-in-loop"}),
            Rules);

  EXPECT_EQ("file://" + Dir.str().str() + "/",
            object(object(Run.get("originalUriBaseIds")).get("%SRCROOT%"))
                .getString("uri")
                .value_or(""));
  const llvm::json::Array &Results = *Run.getArray("results");
  ASSERT_EQ(1u, Results.size());
  const llvm::json::Object &Result = object(&Results[0]);
  EXPECT_EQ("xfer-copy-in-loop", Result.getString("ruleId").value_or(""));
  EXPECT_EQ("warning", Result.getString("level").value_or(""));
  const llvm::json::Object &Physical =
      object(object(&(*Result.getArray("locations"))[0])
                 .get("physicalLocation"));
  const llvm::json::Object &Artifact = object(Physical.get("artifactLocation"));
  EXPECT_EQ("hazard.cpp", Artifact.getString("uri").value_or(""));
  EXPECT_EQ("%SRCROOT%", Artifact.getString("uriBaseId").value_or(""));
  EXPECT_EQ(4, object(Physical.get("region")).getInteger("startLine"));
  std::string Fingerprint = object(Result.get("partialFingerprints"))
                                .getString("xferTidyLineHash/v1")
                                .value_or("")
                                .str();
  EXPECT_FALSE(Fingerprint.empty());

  // The configuration warning is a notification, not a result.
  const llvm::json::Object &Invocation =
      object(&(*Run.getArray("invocations"))[0]);
  EXPECT_EQ(true, Invocation.getBoolean("executionSuccessful"));
  EXPECT_NE(std::string::npos,
            text(object(&(*Invocation.getArray(
                            "toolConfigurationNotifications"))[0]),
                 "message")
                .find("xfer-sync-in-loop.MinIteratons"));

  // Moved down a line: same fingerprint, new line number.
  write("hazard.cpp", std::string("// moved\n") + HazardSource);
  auto [MovedStatus, Moved] = Sarif({});
  const llvm::json::Object &MovedResult =
      object(&(*Moved.getArray("results"))[0]);
  EXPECT_EQ(Fingerprint, object(MovedResult.get("partialFingerprints"))
                             .getString("xferTidyLineHash/v1")
                             .value_or(""));
  EXPECT_EQ(5, object(object(object(&(*MovedResult.getArray("locations"))[0])
                                 .get("physicalLocation"))
                          .get("region"))
                   .getInteger("startLine"));

  // --sarif-root; an error without a location is an execution notification.
  auto [Failed, Rooted] =
      Sarif({"--sarif-root=" + llvm::sys::path::parent_path(Dir).str(),
             "--extra-arg=-fno-such-flag"});
  EXPECT_EQ(2, Failed);
  for (const llvm::json::Value &V : *Rooted.getArray("results")) {
    const llvm::json::Object &R = object(&V);
    ASSERT_TRUE(R.getArray("locations"));
    EXPECT_EQ(llvm::sys::path::filename(Dir).str() + "/hazard.cpp",
              object(object(object(&(*R.getArray("locations"))[0])
                                .get("physicalLocation"))
                         .get("artifactLocation"))
                  .getString("uri")
                  .value_or(""));
  }
  const llvm::json::Object &FailedInvocation =
      object(&(*Rooted.getArray("invocations"))[0]);
  EXPECT_EQ(false, FailedInvocation.getBoolean("executionSuccessful"));
  const llvm::json::Array *Execution =
      FailedInvocation.getArray("toolExecutionNotifications");
  ASSERT_TRUE(Execution);
  bool NamesFlag = false;
  for (const llvm::json::Value &V : *Execution)
    NamesFlag |= text(object(&V), "message").find("-fno-such-flag") !=
                 std::string::npos;
  EXPECT_TRUE(NamesFlag);
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

// A model written by a later xfer-bench is refused, not half-understood.
TEST_F(ToolTest, FutureCostModelVersionIsAnInputError) {
  std::string File = write("hazard.cpp", HazardSource);
  std::string Model = write("costs.json", R"({"schema_version": 2,
    "provenance": {"device": "x"}, "patterns": {}})");
  RunOutcome R =
      run(Tool, {"--cost-model=" + Model, File, "--", "-isystem", StubInclude});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos,
            R.Err.find(Model + ": schema_version: unsupported version 2 "
                               "(this build reads version 1)"))
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
  // As a person writes it, not 7.2099999999999999.
  EXPECT_NE(std::string::npos, R.Out.find("\"latencyMicroseconds\": 7.21,"))
      << R.Out;
  EXPECT_NE(std::string::npos, R.Out.find("\"totalMicroseconds\": 72.1\n"))
      << R.Out;
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
  // 3.951 - 0.857 µs per launch, 10 launches, 100 iterations.
  EXPECT_DOUBLE_EQ(
      3.09, Properties.getNumber("savingPerLaunchMicroseconds").value_or(0));
  EXPECT_EQ(10, Properties.getInteger("launchesPerIteration").value_or(0));
  EXPECT_DOUBLE_EQ(30.94,
                   Properties.getNumber("latencyMicroseconds").value_or(0));
  EXPECT_EQ(100, Properties.getInteger("executions").value_or(0));
  EXPECT_DOUBLE_EQ(3100, Properties.getNumber("totalMicroseconds").value_or(0));
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
  cudaThreadSetLimit(cudaLimitStackSize, max(4096u, 1024));
  size_t Stack = 0, Offset = 0;
  cudaThreadGetLimit(&Stack, cudaLimitStackSize);
  float *Device;
  cudaMalloc(&Device, min(1024u, Prop.maxTexture1DLinear) * sizeof(float));
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

// What nvcc accepts and clang does not by itself: launch brackets written with
// spaces (some editors format them so) and ::isnan on the host without
// <math.h>, which nvcc's runtime header includes. The launch is seen, so the
// loop queues device work and its read-back is reported; the shift operator's
// explicit template arguments still parse.
TEST_F(ToolTest, NvccSpellingsParse) {
  if (std::string(XFER_TEST_CUDA_PATH).empty())
    GTEST_SKIP() << "no CUDA toolkit";
  std::string Source = write("spelled.cu", R"cu(#include <cstdio>
#include <ostream>
template <class T> struct Box;
template <class T> std::ostream &operator<<(std::ostream &, const Box<T> &);
template <class T> struct Box {
  T Value;
  friend std::ostream &operator<< <T>(std::ostream &, const Box<T> &);
};
__global__ void advance(double *State) { State[0] += 1.0; }
int main() {
  double *State, Dt = 0.0;
  cudaMalloc(&State, sizeof(double));
  for (int Step = 0; Step < 100; ++Step) {
    advance << < 1, 1 >> > (State);
    cudaMemcpy(&Dt, State, sizeof(double), cudaMemcpyDeviceToHost);
    if (isnan(Dt))
      std::printf("nan\n");
  }
  cudaFree(State);
}
)cu");
  write("compile_commands.json",
        "[{\"directory\": \"" + Dir.str().str() +
            "\", \"command\": \"" XFER_TEST_CUDA_PATH
            "/bin/nvcc -std=c++14 -arch=sm_80 -x cu -c " +
            Source + " -o spelled.o\", \"file\": \"" + Source + "\"}]");
  RunOutcome R = run(
      Tool, {"-p", Dir.str().str(), "--checks=-*,xfer-copy-in-loop",
             "--config={CheckOptions: {xfer-copy-in-loop.CostNotes: false}}"});
  EXPECT_EQ(1, R.Status) << R.Out << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("error:")) << R.Out;
  EXPECT_EQ(std::string::npos, R.Err.find("compiler errors")) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find(Source + ":15:5: warning: 'cudaMemcpy' copies device "
                                "memory to the host on each of 100 "
                                "iterations of the loop at line 13"))
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

// --- sharding a compilation database, merging the shards' SARIF ------------

/// The files a run analysed, from its progress lines ("[1/3] analysed f
/// (0.4 s), ...").
std::set<std::string> analysedFiles(llvm::StringRef Err) {
  std::set<std::string> Files;
  llvm::SmallVector<llvm::StringRef, 16> Lines;
  Err.split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    size_t At = Line.find("] analysed ");
    if (At != llvm::StringRef::npos)
      Files.insert(Line.drop_front(At + strlen("] analysed "))
                       .rsplit(" (")
                       .first.str());
  }
  return Files;
}

/// The results of a SARIF log as "rule uri:line:column" lines.
std::multiset<std::string> sarifResults(const llvm::json::Value &Log) {
  std::multiset<std::string> Lines;
  const llvm::json::Object &Run =
      *(*Log.getAsObject()->getArray("runs"))[0].getAsObject();
  for (const llvm::json::Value &Result : *Run.getArray("results")) {
    const llvm::json::Object &R = *Result.getAsObject();
    const llvm::json::Object &Where =
        *(*R.getArray("locations"))[0].getAsObject()->getObject(
            "physicalLocation");
    const llvm::json::Object &Region = *Where.getObject("region");
    Lines.insert(
        (R.getString("ruleId").value_or("") + " " +
         Where.getObject("artifactLocation")->getString("uri").value_or("") +
         ":" + llvm::Twine(Region.getInteger("startLine").value_or(0)) + ":" +
         llvm::Twine(Region.getInteger("startColumn").value_or(0)))
            .str());
  }
  return Lines;
}

class ShardTest : public ToolTest {
protected:
  /// Writes \p Count sources (every other one with a hazard) and a
  /// compilation database listing them.
  void writeProject(unsigned Count) {
    std::string Database = "[";
    for (unsigned I = 0; I < Count; ++I) {
      std::string Name = "unit" + std::to_string(I) + ".cpp";
      std::string Path = write(Name, I % 2 ? CleanSource : HazardSource);
      All.insert(Path);
      Database += std::string(I ? "," : "") + "{\"directory\": \"" +
                  Dir.str().str() + "\", \"command\": \"c++ -isystem " +
                  StubInclude + " -c " + Path + "\", \"file\": \"" + Path +
                  "\"}";
    }
    write("compile_commands.json", Database + "]");
  }

  RunOutcome shard(llvm::StringRef Part, llvm::StringRef Sarif) {
    return run(Tool, {"-p", Dir.str().str(), "--no-cache", "--format=sarif",
                      "--progress=always", "--shard=" + Part.str(),
                      "--output=" + Sarif.str()});
  }

  std::set<std::string> All;
};

// The shards of a database are a partition of it, the same on every run,
// and a file keeps its shard when others are added; their SARIF logs merge
// into the unsharded run's results.
TEST_F(ShardTest, ShardsPartitionTheDatabaseAndMerge) {
  writeProject(8);
  std::set<std::string> Union;
  std::vector<std::set<std::string>> Shards;
  std::vector<std::string> Logs;
  for (unsigned K = 1; K <= 3; ++K) {
    std::string Sarif =
        Dir.str().str() + "/shard" + std::to_string(K) + ".sarif";
    RunOutcome R = shard(std::to_string(K) + "/3", Sarif);
    ASSERT_LE(R.Status, 1) << R.Err;
    std::set<std::string> Files = analysedFiles(R.Err);
    EXPECT_NE(std::string::npos,
              R.Err.find("shard " + std::to_string(K) +
                         "/3: " + std::to_string(Files.size()) + " of 8 files"))
        << R.Err;
    for (const std::string &File : Files)
      EXPECT_TRUE(Union.insert(File).second) << File << " in two shards";
    Shards.push_back(Files);
    Logs.push_back(Sarif);
  }
  EXPECT_EQ(All, Union);
  // Deterministic.
  EXPECT_EQ(Shards[1],
            analysedFiles(shard("2/3", Dir.str().str() + "/again.sarif").Err));

  std::string Merged = Dir.str().str() + "/all.sarif";
  std::vector<std::string> MergeArgs{"--merge-sarif", "--output=" + Merged};
  MergeArgs.insert(MergeArgs.end(), Logs.begin(), Logs.end());
  RunOutcome M = run(Tool, MergeArgs);
  ASSERT_EQ(0, M.Status) << M.Err;
  llvm::Expected<llvm::json::Value> Log = llvm::json::parse(readFile(Merged));
  ASSERT_TRUE(static_cast<bool>(Log)) << llvm::toString(Log.takeError());
  const llvm::json::Object &Root = *Log->getAsObject();
  EXPECT_EQ("2.1.0", Root.getString("version").value_or(""));
  ASSERT_EQ(1u, Root.getArray("runs")->size());
  const llvm::json::Object &Run = *(*Root.getArray("runs"))[0].getAsObject();
  // Rules once each, and every result's ruleIndex names its rule.
  const llvm::json::Array &Rules =
      *Run.getObject("tool")->getObject("driver")->getArray("rules");
  std::set<std::string> RuleIds;
  for (const llvm::json::Value &Rule : Rules)
    EXPECT_TRUE(
        RuleIds.insert(Rule.getAsObject()->getString("id")->str()).second);
  for (const llvm::json::Value &Result : *Run.getArray("results")) {
    const llvm::json::Object &R = *Result.getAsObject();
    int64_t Index = R.getInteger("ruleIndex").value_or(-1);
    ASSERT_TRUE(Index >= 0 && Index < static_cast<int64_t>(Rules.size()));
    EXPECT_EQ(R.getString("ruleId"),
              Rules[Index].getAsObject()->getString("id"));
  }
  EXPECT_EQ(1u, Run.getArray("invocations")->size());

  std::string Whole = Dir.str().str() + "/whole.sarif";
  RunOutcome W = run(Tool, {"-p", Dir.str().str(), "--no-cache",
                            "--format=sarif", "--output=" + Whole});
  ASSERT_EQ(1, W.Status) << W.Err;
  llvm::Expected<llvm::json::Value> WholeLog =
      llvm::json::parse(readFile(Whole));
  ASSERT_TRUE(static_cast<bool>(WholeLog));
  EXPECT_EQ(sarifResults(*WholeLog), sarifResults(*Log));
  EXPECT_FALSE(sarifResults(*Log).empty());

  // A new file joins some shard; the others stay where they were.
  writeProject(9);
  std::set<std::string> After =
      analysedFiles(shard("1/3", Dir.str().str() + "/after.sarif").Err);
  After.erase(Dir.str().str() + "/unit8.cpp");
  EXPECT_EQ(Shards[0], After);
}

TEST_F(ShardTest, BadShardValuesAreUsageErrors) {
  writeProject(2);
  for (const char *Bad :
       {"0/3", "4/3", "1/0", "a/b", "3", "1/3/5", "", "-1/2", "1/ 2"}) {
    std::string Sarif = Dir.str().str() + "/out.sarif";
    RunOutcome R = shard(Bad, Sarif);
    EXPECT_EQ(2, R.Status) << Bad;
    EXPECT_EQ("", R.Out);
    EXPECT_NE(std::string::npos, R.Err.find("--shard=" + std::string(Bad) +
                                            ": expected K/N with 1 <= K <= N"))
        << R.Err;
    EXPECT_EQ(1, llvm::count(R.Err, '\n')) << R.Err;
    EXPECT_FALSE(llvm::sys::fs::exists(Sarif)) << Bad;
  }
}

TEST_F(ShardTest, MergingWhatIsNotSarifWritesNothing) {
  std::string Merged = Dir.str().str() + "/all.sarif";
  std::string NotSarif = write("other.json", "{\"version\": \"2.0\"}");
  RunOutcome R = run(Tool, {"--merge-sarif", "--output=" + Merged, NotSarif});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find(NotSarif + ": not a SARIF 2.1.0 log"))
      << R.Err;
  R = run(Tool, {"--merge-sarif", "--output=" + Merged,
                 Dir.str().str() + "/missing.sarif"});
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find("missing.sarif: cannot read"));
  EXPECT_FALSE(llvm::sys::fs::exists(Merged));
}

// --- the result cache -------------------------------------------------------

class CacheTest : public ToolTest {
protected:
  void SetUp() override {
    ToolTest::SetUp();
    Cache = Dir.str().str() + "/cache";
  }

  RunOutcome analyse(std::vector<std::string> Args) {
    Args.insert(Args.begin(), "--cache-dir=" + Cache);
    Args.insert(Args.end(), {"--", "-std=c++17", "-isystem", StubInclude});
    return run(Tool, Args);
  }

  /// The cache's result entries (not its CACHEDIR.TAG, nor the preambles).
  std::vector<std::string> entries() {
    std::vector<std::string> Found;
    std::error_code EC;
    for (llvm::sys::fs::recursive_directory_iterator It(Cache, EC), End;
         It != End && !EC; It.increment(EC))
      if (It->type() == llvm::sys::fs::file_type::regular_file &&
          llvm::sys::path::filename(It->path()) != "CACHEDIR.TAG" &&
          !llvm::StringRef(It->path()).starts_with(Cache + "/preambles/"))
        Found.push_back(It->path());
    return Found;
  }

  static bool fromCache(const RunOutcome &R) {
    return R.Err.find("from the cache)") != std::string::npos;
  }

  std::string Cache;
};

const char *CountedHeader = "#define STEPS 10\n";
const char *CountedSource = R"cpp(#include <cuda_runtime.h>
#include "steps.h"
void launch(float *Device); void step(float *Device, float *Host) {
  for (int I = 0; I < STEPS; ++I)
    cudaMemcpy(Host, Device, 4, cudaMemcpyDeviceToHost), launch(Device);
}
)cpp";

// A second run reads the result from the cache, and every report format
// and the exit status are those of a run without the cache.
TEST_F(CacheTest, SecondRunIsACacheHitWithTheSameReport) {
  write("steps.h", CountedHeader);
  std::string File = write("hazard.cpp", CountedSource);
  RunOutcome First = analyse({File});
  EXPECT_EQ(1, First.Status) << First.Err;
  EXPECT_FALSE(fromCache(First)) << First.Err;
  EXPECT_EQ(1u, entries().size());
  for (const char *Format : {"text", "json", "sarif", "github"}) {
    std::string Option = "--format=" + std::string(Format);
    RunOutcome Cached = analyse({Option, File});
    RunOutcome Fresh = run(Tool, {"--no-cache", Option, File, "--",
                                  "-std=c++17", "-isystem", StubInclude});
    EXPECT_TRUE(fromCache(Cached)) << Format << ": " << Cached.Err;
    EXPECT_NE(std::string::npos, Cached.Err.find("1 finding in 1 file (1 "
                                                 "from the cache)"));
    EXPECT_EQ(Fresh.Status, Cached.Status) << Format;
    EXPECT_EQ(Fresh.Out, Cached.Out) << Format;
  }
}

// A file edited below its includes (the pre-commit case): its second
// analysis stores the parse of its includes, the next ones read it back,
// with the report of a run without any cache. A header it read changes:
// neither the result nor the preamble is used.
TEST_F(CacheTest, EditedFileIsParsedWithItsStoredPreamble) {
  write("steps.h", CountedHeader);
  std::string File = write("hazard.cpp", CountedSource);
  auto Plain = [&] {
    return run(Tool, {"--no-cache", File, "--", "-std=c++17", "-isystem",
                      StubInclude});
  };
  RunOutcome First = analyse({File});
  EXPECT_NE(std::string::npos, First.Err.find("1 finding in 1 file\n"))
      << First.Err;
  EXPECT_TRUE(llvm::sys::fs::is_directory(Cache + "/preambles"));

  write("hazard.cpp", std::string(CountedSource) + "// edited\n");
  RunOutcome Built = analyse({File});
  EXPECT_NE(std::string::npos,
            Built.Err.find("1 finding in 1 file (1 preamble stored)"))
      << Built.Err;
  EXPECT_EQ(Plain().Out, Built.Out);

  write("hazard.cpp", std::string(CountedSource) + "// edited again\n");
  RunOutcome Reused = analyse({File});
  EXPECT_NE(std::string::npos,
            Reused.Err.find("1 finding in 1 file (1 parsed with a stored "
                            "preamble)"))
      << Reused.Err;
  RunOutcome Fresh = Plain();
  EXPECT_EQ(Fresh.Out, Reused.Out);
  EXPECT_EQ(Fresh.Status, Reused.Status);
  EXPECT_NE(std::string::npos, Reused.Out.find("on each of 10 iterations"));
  EXPECT_TRUE(fromCache(analyse({File})));

  // A damaged stored header is built again, never read.
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Cache + "/preambles", EC), End;
       It != End && !EC; It.increment(EC))
    if (llvm::StringRef(It->path()).ends_with(".pch")) {
      llvm::raw_fd_ostream OS(It->path(), EC);
      OS << "not a precompiled header";
    }
  write("hazard.cpp", std::string(CountedSource) + "// edited once more\n");
  RunOutcome Damaged = analyse({File});
  EXPECT_NE(std::string::npos, Damaged.Err.find("(1 preamble stored)"))
      << Damaged.Err;
  EXPECT_EQ(Fresh.Out, Damaged.Out);

  write("steps.h", "#define STEPS 20\n");
  RunOutcome Changed = analyse({File});
  EXPECT_FALSE(fromCache(Changed)) << Changed.Err;
  EXPECT_NE(std::string::npos, Changed.Err.find("(1 preamble stored)"))
      << Changed.Err;
  EXPECT_NE(std::string::npos, Changed.Out.find("on each of 20 iterations"))
      << Changed.Out;
}

// Over a compilation database the first pass (the project index) parses
// each file too: it reads a stored preamble but never notes or stores one,
// so a project's first run stores none and an edited file's next run stores
// one once. CUDA sources are parsed without one.
TEST_F(CacheTest, DatabaseRunsStorePreamblesOnlyForFilesAnalysedAgain) {
  write("steps.h", CountedHeader);
  std::string Hazard = write("hazard.cpp", CountedSource);
  std::string Other = write("other.cpp", "#include \"steps.h\"\nint f();\n");
  std::string Kernel = write("kernel.cu", std::string(CountedSource));
  std::string Entries;
  for (const std::string &File : {Hazard, Other})
    Entries += "{\"directory\": \"" + Dir.str().str() +
               "\", \"command\": \"c++ -std=c++17 -isystem " + StubInclude +
               " -c " + File + "\", \"file\": \"" + File + "\"},";
  Entries += "{\"directory\": \"" + Dir.str().str() +
             "\", \"command\": \"clang++ -x cuda --cuda-host-only "
             "-nocudainc -nocudalib -isystem " +
             StubInclude + " -c " + Kernel + "\", \"file\": \"" + Kernel +
             "\"}";
  write("compile_commands.json", "[" + Entries + "]");
  auto Analyse = [&] {
    return run(Tool, {"--cache-dir=" + Cache, "-p", Dir.str().str()});
  };
  RunOutcome First = Analyse();
  EXPECT_NE(std::string::npos, First.Err.find("2 findings in 3 files\n"))
      << First.Err;
  write("hazard.cpp", std::string(CountedSource) + "// edited\n");
  write("kernel.cu", std::string(CountedSource) + "// edited\n");
  RunOutcome Second = Analyse();
  EXPECT_NE(std::string::npos,
            Second.Err.find("2 findings in 3 files (1 from the cache, 1 "
                            "preamble stored)"))
      << Second.Err;
  write("hazard.cpp", std::string(CountedSource) + "// edited again\n");
  write("kernel.cu", std::string(CountedSource) + "// edited again\n");
  RunOutcome Third = Analyse();
  EXPECT_NE(std::string::npos,
            Third.Err.find("2 findings in 3 files (1 from the cache, 1 parsed "
                           "with a stored preamble)"))
      << Third.Err;
  EXPECT_EQ(First.Out, Third.Out);
}

// A header the unit includes changes: the entry is not used.
TEST_F(CacheTest, ChangedHeaderIsAMiss) {
  std::string Header = write("steps.h", CountedHeader);
  std::string File = write("hazard.cpp", CountedSource);
  RunOutcome First = analyse({File});
  EXPECT_NE(std::string::npos, First.Out.find("on each of 10 iterations"));
  write("steps.h", "#define STEPS 20\n");
  RunOutcome Second = analyse({File});
  EXPECT_FALSE(fromCache(Second)) << Second.Err;
  EXPECT_NE(std::string::npos, Second.Out.find("on each of 20 iterations"))
      << Second.Out;
  // Changing it back finds the first result again, under the same key.
  write("steps.h", CountedHeader);
  EXPECT_FALSE(fromCache(analyse({File}))) << "one entry per key";
  EXPECT_TRUE(fromCache(analyse({File})));
  (void)Header;
}

// Options that change what the checks report are part of the key.
TEST_F(CacheTest, ChangedOptionsAreAMiss) {
  write("steps.h", CountedHeader);
  std::string File = write("hazard.cpp", CountedSource);
  analyse({File});
  RunOutcome Other = analyse({"--checks=-*,xfer-sync-in-loop", File});
  EXPECT_FALSE(fromCache(Other)) << Other.Err;
  EXPECT_EQ(0, Other.Status);
  EXPECT_TRUE(fromCache(analyse({File})));
}

// An entry damaged on disk is a miss, and is replaced by the next store.
TEST_F(CacheTest, CorruptedEntryIsAMiss) {
  write("steps.h", CountedHeader);
  std::string File = write("hazard.cpp", CountedSource);
  RunOutcome First = analyse({File});
  std::vector<std::string> Entries = entries();
  ASSERT_EQ(1u, Entries.size());
  std::string Entry = readFile(Entries[0]);
  // A changed figure that is still valid JSON, then a truncated entry.
  size_t At = Entry.find("\"offset\":");
  ASSERT_NE(std::string::npos, At);
  std::string Changed = Entry;
  Changed[At + strlen("\"offset\":")] =
      Changed[At + strlen("\"offset\":")] == '1' ? '2' : '1';
  for (const std::string &Damaged :
       {Changed, Entry.substr(0, Entry.size() / 2), std::string()}) {
    {
      std::error_code EC;
      llvm::raw_fd_ostream OS(Entries[0], EC);
      OS << Damaged;
    }
    RunOutcome R = analyse({File});
    EXPECT_FALSE(fromCache(R)) << R.Err;
    EXPECT_EQ(First.Out, R.Out);
    EXPECT_EQ(First.Status, R.Status);
  }
  EXPECT_TRUE(fromCache(analyse({File})));
}

// --no-cache neither reads nor writes; without --cache-dir the cache is in
// $XDG_CACHE_HOME/xfer-tidy.
TEST_F(CacheTest, NoCacheWritesNothing) {
  std::string File = write("hazard.cpp", HazardSource);
  std::string Xdg = Dir.str().str() + "/xdg";
  std::vector<std::string> Env{"XDG_CACHE_HOME=" + Xdg,
                               "HOME=" + Dir.str().str()};
  RunOutcome R = run(Tool,
                     {"--no-cache", "--cache-dir=" + Cache, File, "--",
                      "-isystem", StubInclude},
                     Env);
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_FALSE(llvm::sys::fs::exists(Cache));
  EXPECT_FALSE(llvm::sys::fs::exists(Xdg));
  EXPECT_FALSE(llvm::sys::fs::exists(Dir + "/.cache"));

  R = run(Tool, {File, "--", "-isystem", StubInclude}, Env);
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_TRUE(llvm::sys::fs::exists(Xdg + "/xfer-tidy/CACHEDIR.TAG"));
  R = run(Tool, {File, "--", "-isystem", StubInclude}, Env);
  EXPECT_TRUE(fromCache(R)) << R.Err;
}

// Runs sharing a cache directory write the same entry at once: each gets
// the full report, and the entry left behind reads back whole.
TEST_F(CacheTest, ConcurrentRunsShareTheCache) {
  write("steps.h", CountedHeader);
  std::string File = write("hazard.cpp", CountedSource);
  std::vector<llvm::sys::ProcessInfo> Running;
  std::vector<std::string> Outputs;
  for (int I = 0; I < 4; ++I) {
    Outputs.push_back(Dir.str().str() + "/out" + std::to_string(I) + ".txt");
    std::vector<llvm::StringRef> Argv{Tool,         "--quiet",  "--cache-dir",
                                      Cache,        File,       "--",
                                      "-std=c++17", "-isystem", StubInclude};
    std::optional<llvm::StringRef> Redirects[] = {
        std::nullopt, llvm::StringRef(Outputs.back()), std::nullopt};
    Running.push_back(
        llvm::sys::ExecuteNoWait(Tool, Argv, std::nullopt, Redirects));
  }
  for (llvm::sys::ProcessInfo &Process : Running)
    EXPECT_EQ(1, llvm::sys::Wait(Process, /*SecondsToWait=*/600).ReturnCode);
  RunOutcome Fresh = run(
      Tool, {"--no-cache", File, "--", "-std=c++17", "-isystem", StubInclude});
  for (const std::string &Output : Outputs)
    EXPECT_EQ(Fresh.Out, readFile(Output));
  EXPECT_EQ(1u, entries().size());
  RunOutcome After = analyse({File});
  EXPECT_TRUE(fromCache(After)) << After.Err;
  EXPECT_EQ(Fresh.Out, After.Out);
}

// Fixes come from a cached result as from a fresh one.
TEST_F(CacheTest, ExportedFixesFromTheCache) {
  std::string File = write("create.cpp", R"cpp(#include <torch/torch.h>
void train(torch::Device D, int Steps) {
  for (int I = 0; I < Steps; ++I)
    (void)torch::zeros({4}).to(D).sum();
}
)cpp");
  std::string Fresh = Dir.str().str() + "/fresh.yaml";
  std::string Cached = Dir.str().str() + "/cached.yaml";
  analyse({"--export-fixes=" + Fresh, File});
  RunOutcome R = analyse({"--export-fixes=" + Cached, File});
  EXPECT_TRUE(fromCache(R)) << R.Err;
  EXPECT_NE(std::string::npos, readFile(Fresh).find("ReplacementText"));
  EXPECT_EQ(readFile(Fresh), readFile(Cached));
}

} // namespace

// A missing third-party header no longer invalidates the classes and loops
// that only mention its names: they are declared as a stand-in, and the
// loop's hazard is found.
TEST_F(ToolTest, NamesOfAMissingHeaderDoNotHideTheLoop) {
  std::string File = write("train.cpp", R"cpp(#include <torch/torch.h>
#include <vector>
#include "cxxopts.hpp"

struct SettingsBase {
  cxxopts::ParseResult Result;
  SDL_Window *Window = nullptr;
};
struct Settings : SettingsBase {};
std::vector<torch::Tensor> makeBatches(const SettingsBase &S);

void train(const Settings &Opts) {
  auto Batches = makeBatches(Opts);
  for (auto &Batch : Batches) {
    auto Loss = Batch.to(torch::kCUDA).sum();
    (void)Loss.item<float>();
  }
}
)cpp");
  RunOutcome R = run(Tool, {File, "--", "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(2, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Err.find("compiler errors; findings may be incomplete (first: "
                       "3:10: 'cxxopts.hpp' file not found)"))
      << R.Err;
  EXPECT_NE(std::string::npos,
            warningText(R.Out).find(
                File + ":16:16: warning: 'item<float>()' synchronizes with "
                       "the GPU on every iteration of the loop at line 14: "
                       "the host waits for all queued device work, so CPU "
                       "and GPU stop overlapping [xfer-sync-in-loop]\n"))
      << R.Out;
  // The header's names are not errors of their own.
  EXPECT_EQ(std::string::npos, R.Out.find("undeclared identifier")) << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find("unknown type name")) << R.Out;
}

// A range a missing header provides (a progress bar around the batch
// indices) keeps its loop: the body's read-back is found in that loop, not
// charged to the epoch loop around it.
TEST_F(ToolTest, RangeOfAMissingHeaderKeepsItsLoop) {
  std::string File = write("progress.cpp", R"cpp(#include <torch/torch.h>
#include "tqdm/tqdm.h"

void train(torch::Tensor Inputs, int Epochs, int Batches) {
  for (int E = 0; E < Epochs; ++E) {
    double Sum = 0;
    for (int B : tqdm::range(0, Batches)) {
      auto Loss = Inputs.slice(0, B, B + 1).to(torch::kCUDA).sum();
      Sum += Loss.item<double>();
    }
  }
}
)cpp");
  RunOutcome R = run(Tool, {File, "--", "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(2, R.Status) << R.Err;
  EXPECT_EQ(1u, llvm::StringRef(R.Out).count(": error: ")) << R.Out;
  EXPECT_NE(std::string::npos,
            warningText(R.Out).find(
                File + ":9:19: warning: 'item<double>()' synchronizes with "
                       "the GPU on every iteration of the loop at line 7: "
                       "the host waits for all queued device work, so CPU "
                       "and GPU stop overlapping [xfer-sync-in-loop]\n"))
      << R.Out;
}

// A timer of a missing header (the CUDA samples' helper_timer.h) still
// makes the loop between its readings a timing harness: silent. The same
// loop without the timer is reported.
TEST_F(ToolTest, TimerOfAMissingHeaderStillTimesTheLoop) {
  std::string File = write("timed.cpp", R"cpp(#include <cuda_runtime.h>
#include "helper_timer.h"

void reduce(float *Out, float *In, int N); // launches a kernel

void timed(float *Out, float *In, int N) {
  StopWatchInterface *timer;
  sdkCreateTimer(&timer);
  sdkStartTimer(&timer);
  for (int I = 0; I < 100; I++) {
    reduce(Out, In, N);
    cudaDeviceSynchronize();
  }
  sdkStopTimer(&timer);
}

void untimed(float *Out, float *In, int N) {
  for (int I = 0; I < 100; I++) {
    reduce(Out, In, N);
    cudaDeviceSynchronize();
  }
}
)cpp");
  RunOutcome R = run(Tool, {File, "--", "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(2, R.Status) << R.Err;
  EXPECT_EQ(1u, llvm::StringRef(R.Out).count(": error: ")) << R.Out;
  EXPECT_EQ(1u, llvm::StringRef(R.Out).count(": warning: ")) << R.Out;
  EXPECT_NE(std::string::npos,
            warningText(R.Out).find(
                File + ":20:5: warning: 'cudaDeviceSynchronize' synchronizes "
                       "with the GPU on each of 100 iterations of the loop at "
                       "line 18: the host waits for all queued device work, "
                       "so CPU and GPU stop overlapping [xfer-sync-in-loop]\n"))
      << R.Out;
}

// Without a missing header an unknown name is the program's own error.
TEST_F(ToolTest, UnknownNamesWithoutAMissingHeaderStayErrors) {
  std::string File =
      write("typo.cpp", "int main() { return undeclaredName; }\n");
  RunOutcome R = run(Tool, {File, "--"});
  EXPECT_EQ(2, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Err.find("(first: 1:21: use of undeclared identifier "
                       "'undeclaredName')"))
      << R.Err;
}

// The standard names a missing header would have brought along are the real
// ones (it is replaced by the standard headers), so a standard header
// included later does not clash with stand-ins.
TEST_F(ToolTest, StandardNamesAfterAMissingHeaderAreTheRealOnes) {
  std::string File = write("config.cpp", R"cpp(#include "nlohmann/json.hpp"
using namespace std;
struct Config {
  string Name;
  vector<size_t> Sizes;
  nlohmann::json Raw;
};
#include <string>
#include <vector>
#include <cuda_runtime.h>
void launch(float *Device);
void run(Config &C, float *Device, float *Host) {
  for (size_t I = 0; I < C.Sizes.size(); ++I) {
    launch(Device);
    cudaMemcpy(Host, Device, 4, cudaMemcpyDeviceToHost);
  }
}
)cpp");
  RunOutcome R = run(Tool, {File, "--", "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(2, R.Status) << R.Err;
  // The only error is the missing header.
  EXPECT_EQ(1u, llvm::StringRef(R.Out).count(": error: ")) << R.Out;
  EXPECT_NE(std::string::npos,
            warningText(R.Out).find(
                File + ":15:5: warning: 'cudaMemcpy' copies device memory to "
                       "the host on every iteration of the loop at line 13"))
      << R.Out;
}

// A loop gathering a batch of a couple of samples (a bound set once and never
// changed) is no step loop of its own: a call beside it in the batch loop
// runs on every step, in another file too.
TEST_F(ToolTest, CallsBesideABatchGatheringLoopRunEveryStep) {
  std::string Target = write("target.cpp", R"cpp(#include <torch/torch.h>
torch::Tensor buildTarget(int64_t N) {
  return torch::zeros({N, 4}).to(torch::kCUDA);
}
)cpp");
  std::string Main = write("train.cpp", R"cpp(#include <torch/torch.h>
#include <vector>
torch::Tensor buildTarget(int64_t N);
void train(torch::nn::Linear &Model, std::vector<torch::Tensor> &Samples,
           int Steps) {
  int BatchSize = 2;
  for (int Step = 0; Step < Steps; ++Step) {
    std::vector<torch::Tensor> Inputs;
    for (int I = 0; I < BatchSize; ++I)
      Inputs.push_back(
          Samples[I].index({torch::indexing::Slice(0, 4)}).to(torch::kCUDA));
    auto Loss = (Model(torch::stack(Inputs)) - buildTarget(BatchSize)).mean();
    Loss.backward();
  }
}
)cpp");
  std::string Index = Dir.str().str() + "/index.json";
  RunOutcome R =
      run(Tool, {"--index=" + Index, "--checks=-*,xfer-create-on-device",
                 Target, Main, "--", "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find("target.cpp:3:31: warning: tensor created on the host "
                       "by 'torch::zeros()' is copied to the GPU by 'to()'"))
      << R.Out;
}

// With the real LibTorch headers, numbers reach torch::tensor({...}) through
// TensorDataContainer: one element of such a list is still a 0-dim tensor,
// legal next to CUDA tensors, and a row of a host matrix is not.
TEST_F(ToolTest, ElementsOfAHostListAreScalarsWithRealLibTorchHeaders) {
  if (std::string(XFER_LIBTORCH_API_INCLUDE).empty())
    GTEST_SKIP() << "no LibTorch headers";
  std::string File = write("deltas.cpp", R"cpp(#include <torch/torch.h>
void scale(torch::Tensor G, int64_t N) {
  auto Gpu = G.to(torch::kCUDA);
  auto Deltas = torch::tensor({0.001, 0.01, 0.1});
  for (int64_t I = 0; I < N; ++I)
    (void)(Deltas[I] * Gpu);
  auto Rows = torch::ones({3, 3});
  (void)(Rows[0] * Gpu);
}
)cpp");
  RunOutcome R =
      run(Tool, {"--checks=-*,xfer-device-mismatch", File, "--", "-std=c++17",
                 "-isystem", XFER_LIBTORCH_API_INCLUDE});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("deltas.cpp:6:")) << R.Out;
  EXPECT_NE(std::string::npos,
            R.Out.find("deltas.cpp:8:18: warning: 'operator*' mixes a cpu "
                       "tensor and a cuda tensor"))
      << R.Out;
}

// A frame loop builds a temporary filter object whose constructor and
// destructor, defined in another file, allocate and free device memory:
// they run on every frame, and the file that defines them says so.
TEST_F(ToolTest, ConstructorsAndDestructorsRunInALoopOfAnotherFile) {
  std::string Header = write("filter.h", R"cpp(#pragma once
#include <cuda_runtime.h>
class Filter {
public:
  explicit Filter(int N);
  ~Filter();
  float operator()();
private:
  float *Data = nullptr;
  int N;
};
)cpp");
  std::string Filter = write("filter.cu", R"cpp(#include "filter.h"
__global__ void blur(float *D, int N) { if (threadIdx.x < N) D[threadIdx.x] = 0; }
Filter::Filter(int N) : N(N) { cudaMalloc(&Data, N * sizeof(float)); }
Filter::~Filter() { cudaFree(Data); }
float Filter::operator()() { blur<<<1, 32>>>(Data, N); return 0.f; }
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include "filter.h"
float once() { return Filter(16)(); }
int main(int Frames) {
  float Sum = once();
  for (int Frame = 0; Frame < Frames; ++Frame)
    Sum += Filter(1024)();
  return Sum > 0;
}
)cpp");
  const std::string Created =
      "filter.cu:3:32: warning: 'cudaMalloc' synchronizes with the GPU "
      "whenever a 'Filter' is created, which happens on every iteration of "
      "the loop at main.cpp:5: the host waits for all queued device work, so "
      "CPU and GPU stop overlapping [xfer-sync-in-loop]";
  const std::string Destroyed =
      "filter.cu:4:21: warning: 'cudaFree' synchronizes with the GPU "
      "whenever a 'Filter' is destroyed, which happens on every iteration of "
      "the loop at main.cpp:5: the host waits for all queued device work, so "
      "CPU and GPU stop overlapping [xfer-sync-in-loop]";
  std::vector<std::string> Args = {
      "--no-cache",           Filter,       Main,       "--",
      "-I" + Dir.str().str(), "-idirafter", StubInclude};
  RunOutcome R = run(Tool, Args);
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos, R.Out.find(Created)) << R.Out;
  EXPECT_NE(std::string::npos, R.Out.find(Destroyed)) << R.Out;
  EXPECT_EQ(2u, llvm::StringRef(R.Out).count("warning:")) << R.Out;
  (void)Header;
}

// A function that runs a training loop of its own is one epoch: a loop in
// another file that calls it runs epochs, and the validation loss it reads
// after its batch loop is periodic evaluation, not a per-step read-back.
TEST_F(ToolTest, WorkBesideTheBatchLoopOfAnEpochFunctionIsNotPerStep) {
  std::string Train = write("epoch.cpp", R"cpp(#include <torch/torch.h>
float epoch(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
            torch::Tensor X, torch::Tensor ValX, int Batches) {
  float Sum = 0;
  for (int B = 0; B < Batches; ++B) {
    auto Loss = Model(X).mean();
    Loss.backward();
    Opt.step();
    Sum += Loss.item<float>();
  }
  auto Val = Model(ValX).mean();
  return Sum + Val.item<float>();
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include <torch/torch.h>
float epoch(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
            torch::Tensor X, torch::Tensor ValX, int Batches);
void run(torch::nn::Linear &Model, torch::optim::Optimizer &Opt, int Epochs) {
  auto X = torch::ones({4}, torch::kCUDA);
  for (int E = 0; E < Epochs; ++E)
    epoch(Model, Opt, X, X, 100);
}
)cpp");
  RunOutcome R = run(Tool, {"--no-cache", Train, Main, "--", "-std=c++17",
                            "-isystem", StubInclude});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find("epoch.cpp:9:17: warning: 'item<float>()' synchronizes "
                       "with the GPU on every iteration of the loop at line 5"))
      << R.Out;
  EXPECT_EQ(1u, llvm::StringRef(R.Out).count("warning:")) << R.Out;
}

// A function that runs a training loop of its own does the rest of its work
// once per run: an evaluation helper it calls after training reads once per
// experiment of the sweep that calls it, not on every step. The same helper
// called in the sweep's loop directly runs on every iteration.
TEST_F(ToolTest, HelpersAfterATrainingLoopRunOncePerRun) {
  // The error is only printed: returned, it could be the result the caller
  // needs.
  std::string Eval = write("eval.cpp", R"cpp(#include <torch/torch.h>
#include <iostream>
double evaluate(torch::nn::Linear &Model, torch::Tensor X) {
  auto Error = Model(X).sum();
  std::cout << Error.item<double>() << "\n";
  return 0;
}
)cpp");
  std::string Train = write("train.cpp", R"cpp(#include <torch/torch.h>
double evaluate(torch::nn::Linear &Model, torch::Tensor X);
double train(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
             int Epochs) {
  auto X = torch::ones({4}, torch::kCUDA);
  for (int E = 0; E < Epochs; ++E) {
    auto Loss = Model(X).mean();
    Loss.backward();
    Opt.step();
  }
  return evaluate(Model, X);
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include <torch/torch.h>
double train(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
             int Epochs);
double evaluate(torch::nn::Linear &Model, torch::Tensor X);
void sweep(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
           int Runs) {
  for (int R = 0; R < Runs; ++R)
    train(Model, Opt, 1000);
}
void monitor(torch::nn::Linear &Model, int Frames) {
  auto X = torch::ones({4}, torch::kCUDA);
  for (int F = 0; F < Frames; ++F)
    evaluate(Model, X * F);
}
)cpp");
  RunOutcome R = run(Tool, {"--no-cache", Eval, Train, Main, "--", "-std=c++17",
                            "-isystem", StubInclude});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find("eval.cpp:5:22: warning: 'item<double>()' "
                       "synchronizes with the GPU on every call of "
                       "'evaluate()', which runs on every iteration of the "
                       "loop at main.cpp:12"))
      << R.Out;
  EXPECT_EQ(1u, llvm::StringRef(R.Out).count("warning:")) << R.Out;
}

// A helper in another file that copies a tensor to the host and hands the
// values on: called from an inference loop it returns the loop's product
// (necessary); called from a training loop it serves previews or metrics.
TEST_F(ToolTest, CopiedOutputsOfHelpersDependOnTheLoopThatDrivesThem) {
  std::string Convert = write("convert.cpp", R"cpp(#include <torch/torch.h>
#include <vector>
std::vector<float> toHost(const torch::Tensor &T) {
  torch::Tensor Host = T.cpu();
  float *Data = Host.data_ptr<float>();
  return std::vector<float>(Data, Data + 4);
}
)cpp");
  const std::string Infer = R"cpp(#include <torch/torch.h>
#include <vector>
std::vector<float> toHost(const torch::Tensor &T);
void run(torch::nn::Linear &Model, int Frames) {
  torch::NoGradGuard NoGrad;
  auto X = torch::ones({4}, torch::kCUDA);
  for (int F = 0; F < Frames; ++F)
    toHost(Model(X));
}
)cpp";
  const std::string Train = R"cpp(#include <torch/torch.h>
#include <vector>
std::vector<float> toHost(const torch::Tensor &T);
void run(torch::nn::Linear &Model, torch::optim::Optimizer &Opt, int Steps) {
  auto X = torch::ones({4}, torch::kCUDA);
  for (int S = 0; S < Steps; ++S) {
    auto Out = Model(X);
    Out.mean().backward();
    Opt.step();
    toHost(Out);
  }
}
)cpp";
  const std::string Warning =
      "convert.cpp:4:26: warning: 'cpu()' copies device memory to the host on "
      "every call of 'toHost()', which runs on every iteration of the loop at "
      "main.cpp:";
  std::string Main = write("main.cpp", Infer);
  RunOutcome Inference = run(Tool, {"--no-cache", Convert, Main, "--",
                                    "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(std::string::npos, Inference.Out.find(Warning)) << Inference.Out;
  Main = write("main.cpp", Train);
  RunOutcome Training = run(Tool, {"--no-cache", Convert, Main, "--",
                                   "-std=c++17", "-isystem", StubInclude});
  EXPECT_NE(std::string::npos, Training.Out.find(Warning)) << Training.Out;
}

// A class's copy and move assignment take one parameter each: the loop in
// another file that moves each frame in runs the move, whose release of the
// old buffer synchronizes; the copy assignment, which it never calls, is
// not reported as running on every iteration.
TEST_F(ToolTest, OverloadsInOtherFilesAreToldApartByParameterTypes) {
  std::string Frame = write("frame.cpp", R"cpp(#include <cuda_runtime.h>
struct Frame {
  float *Data = nullptr;
  Frame &operator=(const Frame &Other);
  Frame &operator=(Frame &&Other);
};
Frame &Frame::operator=(const Frame &Other) {
  cudaFreeHost(Data);
  return *this;
}
Frame &Frame::operator=(Frame &&Other) {
  cudaFree(Data);
  Data = Other.Data;
  return *this;
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include <cuda_runtime.h>
#include <utility>
struct Frame {
  float *Data = nullptr;
  Frame &operator=(const Frame &Other);
  Frame &operator=(Frame &&Other);
};
Frame decode(int I);
__global__ void filter(float *Data);
void play(Frame &Current, int Frames) {
  for (int I = 0; I < Frames; ++I) {
    Current = decode(I);
    filter<<<1, 32>>>(Current.Data);
  }
}
)cpp");
  RunOutcome R = run(Tool, {"--no-cache", Frame, Main, "--", "-x", "cuda",
                            "--cuda-host-only", "-nocudainc", "-nocudalib",
                            "-isystem", StubInclude});
  EXPECT_NE(std::string::npos,
            R.Out.find("frame.cpp:12:3: warning: 'cudaFree' synchronizes with "
                       "the GPU on every call of 'Frame::operator=()', which "
                       "runs on every iteration of the loop at main.cpp:11"))
      << R.Out << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("frame.cpp:8:")) << R.Out;
}

// A handle a helper in another file makes on every call, through
// cublas_v2.h's macro (cublasCreate is cublasCreate_v2): reported where the
// macro is used.
TEST_F(ToolTest, SyncSpelledByASystemMacroInAStepFunctionIsReported) {
  std::string Norm = write("norm.cpp", R"cpp(#include <cuda_runtime.h>
#include <cublas_v2.h>
float norm(float *Device, int N) {
  cublasHandle_t Handle;
  cublasCreate(&Handle);
  const float Half = 0.5f;
  cublasSscal(Handle, N, &Half, Device, 1);
  return Half;
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include <cuda_runtime.h>
float norm(float *Device, int N);
__global__ void relax(float *Data);
void solve(float *Device, int Steps) {
  for (int I = 0; I < Steps; ++I) {
    relax<<<1, 32>>>(Device);
    float Size = norm(Device, 32);
    (void)Size;
  }
}
)cpp");
  RunOutcome R = run(Tool, {"--no-cache", Norm, Main, "--", "-x", "cuda",
                            "--cuda-host-only", "-nocudainc", "-nocudalib",
                            "-isystem", StubInclude});
  EXPECT_NE(std::string::npos,
            R.Out.find("norm.cpp:5:3: warning: 'cublasCreate' synchronizes "
                       "with the GPU on every call of 'norm()', which runs "
                       "on every iteration of the loop at main.cpp:5"))
      << R.Out << R.Err;
}

TEST_F(ToolTest, ConstantUploadInAStepFunctionOfAnotherFileIsReported) {
  // The weights are the same bytes on every call; a buffer the caller
  // passes is judged at the caller's loop, so it stays silent here.
  std::string Filter = write("filter.cpp", R"cpp(#include <cuda_runtime.h>
static const float Sobel[9] = {1, 0, -1, 2, 0, -2, 1, 0, -1};
void edges(float *DeviceWeights, const float *Frame, float *DeviceFrame) {
  cudaMemcpy(DeviceWeights, Sobel, sizeof(Sobel), cudaMemcpyHostToDevice);
  cudaMemcpy(DeviceFrame, Frame, 64, cudaMemcpyHostToDevice);
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include <cuda_runtime.h>
void edges(float *DeviceWeights, const float *Frame, float *DeviceFrame);
__global__ void convolve(float *Frame, const float *Weights);
void video(float *DeviceWeights, float *Frames, float *DeviceFrame, int N) {
  for (int I = 0; I < N; ++I) {
    edges(DeviceWeights, Frames + I * 16, DeviceFrame);
    convolve<<<1, 32>>>(DeviceFrame, DeviceWeights);
  }
}
)cpp");
  RunOutcome R = run(Tool, {"--no-cache", Filter, Main, "--", "-x", "cuda",
                            "--cuda-host-only", "-nocudainc", "-nocudalib",
                            "-isystem", StubInclude});
  EXPECT_NE(std::string::npos,
            R.Out.find("filter.cpp:4:3: warning: 'cudaMemcpy' copies 'Sobel' "
                       "to the GPU on every call of 'edges()', which runs on "
                       "every iteration of the loop at main.cpp:5, but "
                       "'Sobel' holds the same values every time"))
      << R.Out << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("filter.cpp:5:")) << R.Out << R.Err;
}

// The old SDK's cutil names (`cutilCheckError`, `cutStopTimer`) are the
// missing header's, although they start like CUDA's own: the wait before
// reading the cutil timer times the kernel (silent); a wait with no timer
// beside it is reported. Only the missing include is an error.
TEST_F(ToolTest, NamesOfTheMissingCutilHeaderAreDeclared) {
  std::string File = write("cutil.cpp", R"cpp(#include <cuda_runtime.h>
#include <cutil_inline.h>

void step(float *Data, int N); // launches a kernel

void simulate(float *Data, int N, int Steps, double *Total) {
  for (int I = 0; I < Steps; I++) {
    unsigned int Timer = 0;
    cutilCheckError(cutCreateTimer(&Timer));
    cutilCheckError(cutStartTimer(Timer));
    step(Data, N);
    cudaDeviceSynchronize();
    cutilCheckError(cutStopTimer(Timer));
    *Total += cutGetTimerValue(Timer);
    step(Data, N);
    cutilSafeCall(cudaDeviceSynchronize());
    step(Data, N);
  }
}
)cpp");
  RunOutcome R = run(Tool, {File, "--", "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(2, R.Status) << R.Err;
  EXPECT_EQ(1u, llvm::StringRef(R.Out).count(": error: ")) << R.Out;
  EXPECT_EQ(1u, llvm::StringRef(R.Out).count(": warning: ")) << R.Out;
  EXPECT_NE(std::string::npos,
            warningText(R.Out).find(
                File + ":16:19: warning: 'cudaDeviceSynchronize' synchronizes "
                       "with the GPU on every iteration of the loop at line 7: "
                       "the host waits for all queued device work, so CPU and "
                       "GPU stop overlapping [xfer-sync-in-loop]\n"))
      << R.Out;
}

// A filter another file calls per image and operation, in an `else if`
// branch that also logs the filter's failure: its allocations and frees
// run on every image (the branch is not a logging branch). The frees on
// its error paths, the wait right before the result download behind an
// error check, and the download into the caller's result buffer (the
// filter's product) stay silent.
TEST_F(ToolTest, PerImageFilterOfAnotherFileReportsItsAllocationsOnly) {
  std::string Filter = write("filter.cpp", R"cpp(#include <cuda_runtime.h>
#include <string>
#include <vector>
struct Image { std::vector<unsigned char> Data; int W, H; };
__global__ void sobel(const unsigned char *In, unsigned char *Out, int W);
std::string sobelCuda(const Image &In, Image &Out) {
  unsigned char *DIn, *DOut;
  size_t Bytes = In.W * In.H;
  Out.Data.resize(Bytes);
  cudaMalloc((void **)&DIn, Bytes);
  cudaMalloc((void **)&DOut, Bytes);
  cudaMemcpy(DIn, In.Data.data(), Bytes, cudaMemcpyHostToDevice);
  sobel<<<1, 256>>>(DIn, DOut, In.W);
  cudaError_t St = cudaDeviceSynchronize();
  if (St != cudaSuccess) {
    cudaFree(DIn);
    return cudaGetErrorString(St);
  }
  cudaMemcpy(Out.Data.data(), DOut, Bytes, cudaMemcpyDeviceToHost);
  cudaFree(DIn);
  return {};
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include <fstream>
#include <string>
#include <vector>
struct Image { std::vector<unsigned char> Data; int W, H; };
std::string sobelCuda(const Image &In, Image &Out);
void invert(Image &Img);
bool readImage(const std::string &Path, Image &Img);
void process(const std::vector<std::string> &Files,
             const std::vector<std::string> &Ops, std::ofstream &Log) {
  for (const auto &Path : Files) {
    Image Img;
    if (!readImage(Path, Img))
      continue;
    for (const auto &Op : Ops) {
      if (Op == "invert") {
        invert(Img);
      } else if (Op == "sobel") {
        Image Out;
        std::string Error = sobelCuda(Img, Out);
        if (!Error.empty()) {
          Log << "FAIL " << Path << ": " << Error << "\n";
          break;
        }
        Img = Out;
      }
    }
  }
}
)cpp");
  RunOutcome R = run(Tool, {"--no-cache", Filter, Main, "--", "-x", "cuda",
                            "--cuda-host-only", "-nocudainc", "-nocudalib",
                            "-isystem", StubInclude});
  for (const char *Line : {"filter.cpp:10:3: warning: 'cudaMalloc'",
                           "filter.cpp:11:3: warning: 'cudaMalloc'",
                           "filter.cpp:20:3: warning: 'cudaFree'"})
    EXPECT_NE(std::string::npos,
              R.Out.find(std::string(Line) +
                         " synchronizes with the GPU on every call of "
                         "'sobelCuda()', which runs on every iteration of the "
                         "loop at main.cpp:14"))
        << Line << "\n"
        << R.Out << R.Err;
  EXPECT_EQ(3u, llvm::StringRef(R.Out).count(": warning: ")) << R.Out;
}

// A helper of another file given a struct by value whose pointer field is
// the caller's result buffer: the copy back into it is the helper's product
// (silent); its per-call allocations stay findings.
TEST_F(ToolTest, ResultBufferCarriedByAStructIsTheProduct) {
  std::string Helper = write("matvec.cpp", R"cpp(#include <cuda_runtime.h>
struct Matrix { int Width, Height; float *Elements; };
__global__ void multiply(Matrix A, Matrix B, Matrix C);
void matVec(const Matrix A, const Matrix B, Matrix C) {
  Matrix DA = A, DB = B, DC = C;
  size_t Size = A.Width * A.Height * sizeof(float);
  cudaMalloc((void **)&DA.Elements, Size);
  cudaMemcpy(DA.Elements, A.Elements, Size, cudaMemcpyHostToDevice);
  cudaMalloc((void **)&DB.Elements, Size);
  cudaMemcpy(DB.Elements, B.Elements, Size, cudaMemcpyHostToDevice);
  cudaMalloc((void **)&DC.Elements, Size);
  multiply<<<1, 256>>>(DA, DB, DC);
  cudaMemcpy(C.Elements, DC.Elements, Size, cudaMemcpyDeviceToHost);
}
)cpp");
  std::string Main = write(
      "main.cpp", R"cpp(struct Matrix { int Width, Height; float *Elements; };
void matVec(const Matrix A, const Matrix B, Matrix C);
void push(Matrix &Particles, const Matrix &Field);
void simulate(Matrix Gradient, Matrix Potential, Matrix Field,
              Matrix Particles, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    matVec(Gradient, Potential, Field);
    push(Particles, Field);
  }
}
)cpp");
  RunOutcome R = run(Tool, {"--no-cache", Helper, Main, "--", "-x", "cuda",
                            "--cuda-host-only", "-nocudainc", "-nocudalib",
                            "-isystem", StubInclude});
  for (const char *Line : {"matvec.cpp:7:3: warning: 'cudaMalloc'",
                           "matvec.cpp:9:3: warning: 'cudaMalloc'",
                           "matvec.cpp:11:3: warning: 'cudaMalloc'"})
    EXPECT_NE(std::string::npos,
              R.Out.find(std::string(Line) +
                         " synchronizes with the GPU on every call of "
                         "'matVec()', which runs on every iteration of the "
                         "loop at main.cpp:6"))
        << Line << "\n"
        << R.Out << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("matvec.cpp:13:")) << R.Out;
}

// A loop in a function main never reaches (a test path left in the code)
// drives nothing: the helper it calls in another file is not reported as
// running on its iterations. In a program without main (a library) every
// function may run.
TEST_F(ToolTest, LoopsMainNeverReachesDriveNoStep) {
  std::string Force = write("force.cpp", R"cpp(#include <torch/torch.h>
float energy(torch::Tensor X) { return X.cuda().sum().item<float>(); }
float pressure(torch::Tensor X) { return X.cuda().sum().item<float>(); }
)cpp");
  const std::string Engine = R"cpp(#include <torch/torch.h>
float energy(torch::Tensor X);
float pressure(torch::Tensor X);
void run(torch::Tensor X, int Steps) {
  for (int S = 0; S < Steps; ++S) {
    X = X * 2;
    energy(X);
  }
}
void untestedPath(torch::Tensor X, int Steps) {
  for (int S = 0; S < Steps; ++S) {
    X = X * 3;
    pressure(X);
  }
}
)cpp";
  const std::string Main = R"cpp(#include <torch/torch.h>
void run(torch::Tensor X, int Steps);
int main() {
  run(torch::ones({4}, torch::kCUDA), 100);
  return 0;
}
)cpp";
  const std::string Energy =
      "force.cpp:2:55: warning: 'item<float>()' synchronizes with the GPU on "
      "every call of 'energy()', which runs on every iteration of the loop at "
      "engine.cpp:5";
  const std::string Pressure =
      "force.cpp:3:57: warning: 'item<float>()' synchronizes with the GPU on "
      "every call of 'pressure()', which runs on every iteration of the loop "
      "at engine.cpp:11";
  std::string EngineFile = write("engine.cpp", Engine);
  std::string MainFile = write("main.cpp", Main);
  RunOutcome Program = run(Tool, {"--no-cache", "--checks=-*,xfer-sync-in-loop",
                                  Force, EngineFile, MainFile, "--",
                                  "-std=c++17", "-isystem", StubInclude});
  EXPECT_NE(std::string::npos, Program.Out.find(Energy)) << Program.Out;
  EXPECT_EQ(std::string::npos, Program.Out.find("force.cpp:3:")) << Program.Out;
  RunOutcome Library =
      run(Tool, {"--no-cache", "--checks=-*,xfer-sync-in-loop", Force,
                 EngineFile, "--", "-std=c++17", "-isystem", StubInclude});
  EXPECT_NE(std::string::npos, Library.Out.find(Energy)) << Library.Out;
  EXPECT_NE(std::string::npos, Library.Out.find(Pressure)) << Library.Out;
}

// A wait that ends a helper, whose callers in another file copy the result
// back right after the call, waits for nothing that copy does not (silent);
// a helper whose caller launches more work before its copy is reported.
TEST_F(ToolTest, WaitEndingAHelperBeforeTheCallersCopyIsSilent) {
  std::string Kernels = write("kernels.cpp", R"cpp(#include <cuda_runtime.h>
__global__ void blur(const unsigned char *In, unsigned char *Out, int N);
void runPipeline(const unsigned char *In, unsigned char *Out, int N) {
  blur<<<N / 256, 256>>>(In, Out, N);
  cudaStreamSynchronize(0);
}
void runFirstStage(const unsigned char *In, unsigned char *Out, int N) {
  blur<<<N / 256, 256>>>(In, Out, N);
  cudaStreamSynchronize(0);
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include <cuda_runtime.h>
void runPipeline(const unsigned char *In, unsigned char *Out, int N);
void runFirstStage(const unsigned char *In, unsigned char *Out, int N);
void runSecondStage(unsigned char *Out, int N);
void frames(unsigned char *Host, unsigned char *In, unsigned char *Out, int N,
            int Frames) {
  for (int F = 0; F < Frames; ++F) {
    cudaMemcpy(In, Host, N, cudaMemcpyHostToDevice);
    runPipeline(In, Out, N);
    cudaMemcpy(Host, Out, N, cudaMemcpyDeviceToHost);
    runFirstStage(In, Out, N);
    runSecondStage(Out, N);
    cudaMemcpy(Host, Out, N, cudaMemcpyDeviceToHost);
  }
}
)cpp");
  RunOutcome R =
      run(Tool, {"--no-cache", "--checks=-*,xfer-sync-in-loop", Kernels, Main,
                 "--", "-x", "cuda", "--cuda-host-only", "-nocudainc",
                 "-nocudalib", "-isystem", StubInclude});
  EXPECT_EQ(std::string::npos, R.Out.find("kernels.cpp:5:")) << R.Out;
  EXPECT_NE(std::string::npos,
            R.Out.find("kernels.cpp:9:3: warning: 'cudaStreamSynchronize' "
                       "synchronizes with the GPU on every call of "
                       "'runFirstStage()', which runs on every iteration of "
                       "the loop at main.cpp:7: the host waits for all queued "
                       "device work, so CPU and GPU stop overlapping "
                       "[xfer-sync-in-loop]"))
      << R.Out << R.Err;
}

// A step function of another file that waits in the branch of every other
// step (the even half of a two-phase scheme) waits once every two calls: as
// often as MinFrequencyPercent (50) asks, so reported; a wait every tenth
// step is periodic work.
TEST_F(ToolTest, WaitsOnEveryOtherStepOfAStepFunctionAreReported) {
  std::string Step = write("step.cpp", R"cpp(#include <cuda_runtime.h>
__global__ void collide(float *F);
void advance(float *F, int Step) {
  if (Step % 2 == 0) {
    collide<<<64, 256>>>(F);
    cudaDeviceSynchronize();
  }
  if (Step % 10 == 0) {
    collide<<<64, 256>>>(F);
    cudaDeviceSynchronize();
  }
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(void advance(float *F, int Step);
void run(float *F, int Steps) {
  for (int S = 0; S < Steps; ++S)
    advance(F, S);
}
)cpp");
  RunOutcome R =
      run(Tool, {"--no-cache", "--checks=-*,xfer-sync-in-loop", Step, Main,
                 "--", "-x", "cuda", "--cuda-host-only", "-nocudainc",
                 "-nocudalib", "-isystem", StubInclude});
  EXPECT_NE(std::string::npos,
            R.Out.find("step.cpp:6:5: warning: 'cudaDeviceSynchronize' "
                       "synchronizes with the GPU once every 2 calls of "
                       "'advance()', which runs on every iteration of the "
                       "loop at main.cpp:3: the host waits for all queued "
                       "device work, so CPU and GPU stop overlapping "
                       "[xfer-sync-in-loop]"))
      << R.Out << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("step.cpp:10:")) << R.Out;
}

// The number of results a per-frame helper reads back before the results
// themselves, and that bounds its walk over them into the caller's vector,
// is part of the product (silent); a count that only bounds printing is a
// value read (reported).
TEST_F(ToolTest, CountOfResultsTheHostTakesIsPartOfTheProduct) {
  std::string Helper = write("lines.cpp", R"cpp(#include <cuda_runtime.h>
#include <vector>
int printf(const char *, ...);
struct Line { Line(int Theta, int Rho); };
__global__ void vote(int *Results, int *Count);
void findLines(int *DResults, int *DCount, int *Results,
               std::vector<Line> &Lines) {
  vote<<<64, 256>>>(DResults, DCount);
  int Count = 0;
  cudaMemcpy(&Count, DCount, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(Results, DResults, 64 * sizeof(int), cudaMemcpyDeviceToHost);
  for (int I = 0; I + 1 < Count; I += 2)
    Lines.push_back(Line(Results[I], Results[I + 1]));
}
void printLines(int *DResults, int *DCount, int *Results) {
  vote<<<64, 256>>>(DResults, DCount);
  int Count = 0;
  cudaMemcpy(&Count, DCount, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(Results, DResults, 64 * sizeof(int), cudaMemcpyDeviceToHost);
  for (int I = 0; I < Count; ++I)
    printf("%d\n", Results[I]);
}
)cpp");
  std::string Main = write("main.cpp", R"cpp(#include <vector>
struct Line { Line(int Theta, int Rho); };
void findLines(int *DResults, int *DCount, int *Results,
               std::vector<Line> &Lines);
void printLines(int *DResults, int *DCount, int *Results);
void draw(const std::vector<Line> &Lines);
void run(int *DResults, int *DCount, int *Results, int Frames) {
  for (int F = 0; F < Frames; ++F) {
    std::vector<Line> Lines;
    findLines(DResults, DCount, Results, Lines);
    draw(Lines);
    printLines(DResults, DCount, Results);
  }
}
)cpp");
  RunOutcome R =
      run(Tool, {"--no-cache", "--checks=-*,xfer-copy-in-loop", Helper, Main,
                 "--", "-x", "cuda", "--cuda-host-only", "-nocudainc",
                 "-nocudalib", "-isystem", StubInclude});
  EXPECT_EQ(std::string::npos, R.Out.find("lines.cpp:10:")) << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find("lines.cpp:11:")) << R.Out;
  EXPECT_NE(std::string::npos,
            R.Out.find("lines.cpp:18:3: warning: 'cudaMemcpy' copies device "
                       "memory to the host on every call of 'printLines()', "
                       "which runs on every iteration of the loop at "
                       "main.cpp:8: the copy waits for all queued device work "
                       "and crosses the host link each time "
                       "[xfer-copy-in-loop]"))
      << R.Out << R.Err;
}

// The same with asynchronous copies into the caller's buffers: the wait
// that completes them finishes the helper's product (silent); a wait for a
// copy into the helper's own buffer stays a finding.
TEST_F(ToolTest, WaitsCompletingCopiesIntoResultParametersAreTheProduct) {
  std::string Helper = write("core.cu", R"cpp(#include <cuda_runtime.h>
__global__ void diff(const unsigned char *Frame, unsigned char *Out,
                     int *Count);
void execCore(const unsigned char *DeviceFrame, unsigned char *DeviceOut,
              int *DeviceCount, unsigned char *Out, int *Count) {
  diff<<<1, 256>>>(DeviceFrame, DeviceOut, DeviceCount);
  cudaMemcpyAsync(Count, DeviceCount, sizeof(int), cudaMemcpyDeviceToHost);
  cudaDeviceSynchronize();
  cudaMemcpyAsync(Out, DeviceOut, *Count, cudaMemcpyDeviceToHost);
  cudaDeviceSynchronize();
}
void execScratch(const unsigned char *DeviceFrame, unsigned char *DeviceOut,
                 int *DeviceCount) {
  static int Scratch;
  diff<<<1, 256>>>(DeviceFrame, DeviceOut, DeviceCount);
  cudaMemcpyAsync(&Scratch, DeviceCount, sizeof(int), cudaMemcpyDeviceToHost);
  cudaDeviceSynchronize();
}
)cpp");
  std::string Main = write("server.cpp", R"cpp(
void execCore(const unsigned char *DeviceFrame, unsigned char *DeviceOut,
              int *DeviceCount, unsigned char *Out, int *Count);
void execScratch(const unsigned char *DeviceFrame, unsigned char *DeviceOut,
                 int *DeviceCount);
void send(const unsigned char *Out, int Count);
void serve(const unsigned char *DeviceFrame, unsigned char *DeviceOut,
           int *DeviceCount, unsigned char *Out, int Frames) {
  for (int F = 0; F < Frames; ++F) {
    int Count = 0;
    execCore(DeviceFrame, DeviceOut, DeviceCount, Out, &Count);
    execScratch(DeviceFrame, DeviceOut, DeviceCount);
    send(Out, Count);
  }
}
)cpp");
  RunOutcome R =
      run(Tool, {"--no-cache", "--checks=-*,xfer-sync-in-loop", Helper, Main,
                 "--", "-x", "cuda", "--cuda-host-only", "-nocudainc",
                 "-nocudalib", "-isystem", StubInclude});
  EXPECT_NE(std::string::npos,
            R.Out.find("core.cu:17:3: warning: 'cudaDeviceSynchronize' "
                       "synchronizes with the GPU on every call of "
                       "'execScratch()', which runs on every iteration of "
                       "the loop at server.cpp:9"))
      << R.Out << R.Err;
  EXPECT_EQ(1u, llvm::StringRef(R.Out).count(": warning: ")) << R.Out;
}

// A helper of another file whose branches a parameter selects: the step
// loop's calls pass 1 and 2, and only a call after the loop passes 3, so
// what the `phase == 3` branch does is not per-step (the project index's
// stepArguments).
TEST_F(ToolTest, BranchesNoStepCallSelectsAreNotPerStep) {
  std::string Comms = write("comms.cu", R"cpp(#include <cuda_runtime.h>
void exchange(int Phase, float *Device, float *Host, int N) {
  if (Phase == 1) {
    for (int J = 0; J < N; ++J)
      cudaMemcpy(Host + J * N, Device + J * N, sizeof(float),
                 cudaMemcpyDeviceToHost);
  }
  if (Phase == 3) {
    for (int J = 0; J < N; ++J)
      cudaMemcpy(Host + J * N, Device + J * N, N * sizeof(float),
                 cudaMemcpyDeviceToHost);
  }
}
)cpp");
  std::string Main = write("main.cu", R"cpp(#include <cuda_runtime.h>
__global__ void step(float *Device, int N);
void exchange(int Phase, float *Device, float *Host, int N);
void solve(float *Device, float *Host, int N, int Steps) {
  for (int T = 0; T < Steps; ++T) {
    exchange(1, Device, Host, N);
    exchange(2, Device, Host, N);
    step<<<1, 256>>>(Device, N);
  }
  exchange(3, Device, Host, N);
}
)cpp");
  RunOutcome R =
      run(Tool, {"--no-cache", "--checks=-*,xfer-copy-in-loop", Comms, Main,
                 "--", "-x", "cuda", "--cuda-host-only", "-nocudainc",
                 "-nocudalib", "-isystem", StubInclude});
  EXPECT_NE(std::string::npos,
            R.Out.find("comms.cu:5:7: warning: 'cudaMemcpy' copies device "
                       "memory to the host on every iteration of the loop "
                       "at line 4"))
      << R.Out << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("comms.cu:10:")) << R.Out;
  EXPECT_EQ(1u, llvm::StringRef(R.Out).count(": warning: ")) << R.Out;
}

// A loop in a function template calls a method of its type parameter: the
// index follows the calls of each instantiation, so the method another file
// defines runs on every step.
TEST_F(ToolTest, StepCallsOfTemplateInstantiationsReachOtherFiles) {
  write("md.h", R"cpp(#pragma once
__global__ void integrate(float *Positions, int N);
template <typename Thermostat>
void run(Thermostat &T, float *Positions, int N, int Steps) {
  for (int S = 0; S < Steps; ++S) {
    integrate<<<1, 256>>>(Positions, N);
    T.update(Positions, N);
  }
}
struct Bussi {
  float *Scratch;
  void update(float *Positions, int N);
};
)cpp");
  std::string Thermostat = write("bussi.cu", R"cpp(#include <cuda_runtime.h>
#include "md.h"
void Bussi::update(float *Positions, int N) {
  cudaMalloc((void **)&Scratch, N * sizeof(float));
}
)cpp");
  std::string Main = write("main.cu", R"cpp(#include <cuda_runtime.h>
#include "md.h"
void simulate(float *Positions, int N) {
  Bussi T;
  run(T, Positions, N, 1000);
}
)cpp");
  RunOutcome R =
      run(Tool, {"--no-cache", "--checks=-*,xfer-sync-in-loop", Thermostat,
                 Main, "--", "-x", "cuda", "--cuda-host-only", "-nocudainc",
                 "-nocudalib", "-isystem", StubInclude});
  EXPECT_NE(std::string::npos,
            R.Out.find("bussi.cu:4:3: warning: 'cudaMalloc' synchronizes with "
                       "the GPU on every call of 'Bussi::update()', which "
                       "runs on every iteration of the loop at md.h:5"))
      << R.Out << R.Err;
}

// A pass over elements that issues no device work of its own is set-up
// work, unless its function runs on every step of a loop in another file:
// then each step pays for the whole pass. A handful of rounds (a wait per
// stream) is no such pass.
TEST_F(ToolTest, ElementPassesOfAStepFunctionInAnotherFileAreHot) {
  std::string Boundary = write("boundary.cu", R"cpp(#include <cuda_runtime.h>
float sumBoundary(float *DeviceP, int N) {
  float Sum = 0;
  for (int J = 0; J < N; ++J) {
    float V;
    cudaMemcpy(&V, DeviceP + J * N, sizeof(float), cudaMemcpyDeviceToHost);
    Sum += V;
  }
  return Sum;
}
void joinStreams(cudaStream_t *Streams) {
  for (int I = 0; I < 3; ++I)
    cudaStreamSynchronize(Streams[I]);
}
)cpp");
  std::string Main = write("main.cu", R"cpp(#include <cuda_runtime.h>
#include <cstdio>
__global__ void step(float *P, int N);
float sumBoundary(float *DeviceP, int N);
void joinStreams(cudaStream_t *Streams);
void solve(float *DeviceP, int N, int Steps, cudaStream_t *Streams) {
  for (int T = 0; T < Steps; ++T) {
    step<<<1, 256>>>(DeviceP, N);
    std::printf("%f\n", sumBoundary(DeviceP, N));
    joinStreams(Streams);
  }
  std::printf("%f\n", sumBoundary(DeviceP, N));
}
)cpp");
  RunOutcome R = run(Tool, {"--no-cache", Boundary, Main, "--", "-x", "cuda",
                            "--cuda-host-only", "-nocudainc", "-nocudalib",
                            "-isystem", StubInclude});
  EXPECT_NE(std::string::npos,
            R.Out.find("boundary.cu:6:5: warning: 'cudaMemcpy' copies device "
                       "memory to the host on every iteration of the loop at "
                       "line 4"))
      << R.Out << R.Err;
  EXPECT_EQ(1u, llvm::StringRef(R.Out).count(": warning: ")) << R.Out;
}

// A metrics helper that loops over the samples of a batch: called only from
// the validation pass of another file, its reads are periodic evaluation
// (silent); the same kind of helper called from the training loop is hot.
TEST_F(ToolTest, HelpersOnlyValidationPassesCallAreNotHot) {
  std::string Metrics = write("metrics.cpp", R"cpp(#include <torch/torch.h>
double validationPsnr(const torch::Tensor &Pred) {
  double Sum = 0;
  for (int I = 0; I < Pred.size(0); ++I)
    Sum += Pred[I].mean().item<double>();
  return Sum;
}
double trainingPsnr(const torch::Tensor &Pred) {
  double Sum = 0;
  for (int I = 0; I < Pred.size(0); ++I)
    Sum += Pred[I].mean().item<double>();
  return Sum;
}
)cpp");
  std::string Train = write("train.cpp", R"cpp(#include <torch/torch.h>
double validationPsnr(const torch::Tensor &Pred);
double trainingPsnr(const torch::Tensor &Pred);
void train(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
           torch::data::DataLoader<> &Loader,
           torch::data::DataLoader<> &ValLoader, int Epochs) {
  torch::Device Gpu(torch::kCUDA);
  double Total = 0;
  for (int Epoch = 0; Epoch < Epochs; ++Epoch) {
    for (auto &Batch : Loader) {
      auto Out = Model(Batch.data.to(Gpu));
      auto Loss = Out.mean();
      Loss.backward();
      Opt.step();
      Total += trainingPsnr(Out);
    }
    torch::NoGradGuard NoGrad;
    for (auto &Batch : ValLoader)
      Total += validationPsnr(Model(Batch.data.to(Gpu)));
  }
}
)cpp");
  RunOutcome R =
      run(Tool, {Metrics, Train, "--", "-std=c++17", "-isystem", StubInclude});
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_NE(std::string::npos,
            R.Out.find("metrics.cpp:11:27: warning: 'item<double>()' "
                       "synchronizes with the GPU on every iteration of the "
                       "loop at line 10"))
      << R.Out;
  EXPECT_EQ(std::string::npos, R.Out.find("metrics.cpp:5:")) << R.Out;
}
