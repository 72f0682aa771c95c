//===- CudaCompilationTest.cpp - Tests for CUDA command handling ----------===//

#include "CudaCompilation.h"
#include "CudaLaunchSpelling.h"
#include "analysis/ApiCatalogue.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Frontend/ASTUnit.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <optional>

#ifndef XFER_CLANG_RESOURCE_DIR
#error "XFER_CLANG_RESOURCE_DIR must name clang's resource directory"
#endif
#ifndef XFER_TEST_CUDA_PATH
#error "XFER_TEST_CUDA_PATH must name a CUDA toolkit, or be empty"
#endif

using namespace xfer;

namespace {

using Args = std::vector<std::string>;

std::string join(const Args &List) {
  std::string Result;
  for (const std::string &Arg : List)
    Result += (Result.empty() ? "" : " ") + Arg;
  return Result;
}

// --- Recognising commands and sources --------------------------------------

TEST(CudaCompilationTest, RecognisesNvccCommands) {
  struct Case {
    Args Command;
    bool IsNvcc;
  } Cases[] = {
      {{"nvcc", "-c", "a.cu"}, true},
      {{"/usr/local/cuda/bin/nvcc", "-c", "a.cu"}, true},
      {{"C:\\CUDA\\v13.0\\bin\\nvcc.exe", "-c", "a.cu"}, true},
      {{"C:/CUDA/bin/NVCC.EXE"}, true},
      {{"/opt/tools/my-nvcc"}, true},
      {{"ccache", "nvcc", "-c", "a.cu"}, true},
      {{"/usr/bin/sccache", "/usr/local/cuda/bin/nvcc"}, true},
      {{"clang++", "-x", "cuda", "a.cu"}, false},
      {{"/usr/bin/nvcc-wrapper.sh"}, false},
      {{"ccache", "g++", "-c", "a.cpp"}, false},
      {{"ccache"}, false},
      {{}, false},
  };
  for (const Case &C : Cases)
    EXPECT_EQ(isNvccCommand(C.Command), C.IsNvcc) << join(C.Command);
}

TEST(CudaCompilationTest, RecognisesCudaSources) {
  struct Case {
    std::string File;
    Args Command;
    bool IsCuda;
  } Cases[] = {
      {"a.cu", {"nvcc", "-c", "a.cu"}, true},
      {"/src/kernels.cuh", {"clang++", "/src/kernels.cuh"}, true},
      {"A.CU", {"nvcc", "A.CU"}, true},
      {"a.cpp", {"nvcc", "-x", "cu", "a.cpp"}, true},
      {"a.cpp", {"clang++", "-x", "cuda", "a.cpp"}, true},
      {"a.cpp", {"clang++", "-xcuda", "a.cpp"}, true},
      {"a.cpp", {"nvcc", "--x=cu", "a.cpp"}, true},
      {"a.cpp", {"nvcc", "a.cpp"}, false},
      {"a.cu", {"g++", "-x", "c++", "a.cu"}, false},
      {"a.cpp", {"clang++", "a.cpp", "-x", "cuda", "b.cpp"}, false},
      {"a.cu", {"clang++", "-x", "none", "a.cu"}, true},
  };
  for (const Case &C : Cases)
    EXPECT_EQ(isCudaSource(C.File, C.Command), C.IsCuda)
        << C.File << " in " << join(C.Command);
}

TEST(CudaCompilationTest, KnowsClang19CudaArchitectures) {
  EXPECT_TRUE(isClangKnownCudaArch("sm_52"));
  EXPECT_TRUE(isClangKnownCudaArch("sm_90"));
  EXPECT_TRUE(isClangKnownCudaArch("sm_90a"));
  EXPECT_FALSE(isClangKnownCudaArch("sm_100"));
  EXPECT_FALSE(isClangKnownCudaArch("gfx90a"));
  EXPECT_FALSE(isClangKnownCudaArch("native"));
}

// --- Translating nvcc command lines ----------------------------------------

Args translate(const Args &Command, llvm::vfs::FileSystem &FS,
               llvm::StringRef WorkingDir = "/build") {
  llvm::Expected<Args> Result = translateNvccArguments(Command, FS, WorkingDir);
  if (!Result) {
    ADD_FAILURE() << llvm::toString(Result.takeError());
    return {};
  }
  return *Result;
}

struct TranslationCase {
  const char *Family;
  Args NvccArgs;  // Without argv[0] and the source file.
  Args ClangArgs; // Without argv[0], the source file and -c.
};

TEST(CudaCompilationTest, TranslatesNvccOptionFamilies) {
  const TranslationCase Cases[] = {
      {"defines",
       {"-DA", "-D", "B=1", "--define-macro=C", "-D=D"},
       {"-DA", "-DB=1", "-DC", "-DD"}},
      {"undefines",
       {"-UA", "-U", "B", "--undefine-macro", "C"},
       {"-UA", "-UB", "-UC"}},
      {"include paths",
       {"-I/a", "-I", "/b", "--include-path=/c", "--include-path", "/d"},
       {"-I/a", "-I/b", "-I/c", "-I/d"}},
      {"system includes",
       {"-isystem", "/a", "-isystem=/b", "--system-include=/c"},
       {"-isystem", "/a", "-isystem", "/b", "-isystem", "/c"}},
      {"pre-include",
       {"-include", "pch.h", "--pre-include=first.h"},
       {"-include", "pch.h", "-include", "first.h"}},
      {"standard, -std=", {"-std=c++17"}, {"-std=c++17"}},
      {"standard, --std ", {"--std", "c++20"}, {"-std=c++20"}},
      {"standard, --std=", {"--std=c++17"}, {"-std=c++17"}},
      {"optimisation", {"-O3"}, {"-O3"}},
      {"optimisation, separate", {"-O", "2"}, {"-O2"}},
      {"optimisation, long", {"--optimize=1"}, {"-O1"}},
      {"host debug info", {"-g", "--debug"}, {"-g", "-g"}},
      {"device debug info",
       {"-G", "--device-debug", "-lineinfo", "--generate-line-info"},
       {}},
      {"machine",
       {"-m64", "--machine", "64", "-m=32"},
       {"-m64", "-m64", "-m32"}},
      {"language cu", {"-x", "cu"}, {}},
      {"experimental flags",
       {"--expt-relaxed-constexpr", "-expt-relaxed-constexpr",
        "--expt-extended-lambda", "--extended-lambda", "-extended-lambda"},
       {}},
      {"fast math and registers",
       {"--use_fast_math", "-use_fast_math", "-maxrregcount", "32",
        "--maxrregcount=64", "-ftz=true", "--prec-div", "false"},
       {}},
      {"relocatable device code",
       {"-rdc=true", "--relocatable-device-code", "true", "-ewp"},
       {}},
      {"device compile implies -c", {"-dc"}, {"-c"}},
      {"forwarding to other tools",
       {"-Xptxas", "-v", "-Xptxas=-O3,-v", "-Xcudafe", "--diag_suppress=177",
        "-Xlinker", "--no-undefined", "-Xlinker=-rpath,/x", "-Xnvlink", "-x",
        "--ptxas-options=-v", "--linker-options", "-z"},
       {}},
      {"host compiler selection",
       {"-ccbin", "/usr/bin/g++-13", "--compiler-bindir=/opt/gcc/bin",
        "-allow-unsupported-compiler"},
       {}},
      {"nvcc diagnostics",
       {"--diag-suppress=20012,20014", "-diag-suppress", "177", "--diag-warn=1",
        "-Werror=all-warnings", "-Werror", "cross-execution-space-call,reorder",
        "--Werror", "all-warnings", "-Wno-deprecated-gpu-targets",
        "--display-error-number", "-w"},
       {}},
      {"diagnostics both understand",
       {"-Wno-deprecated-declarations", "--Wreorder"},
       {"-Wno-deprecated-declarations", "-Wreorder"}},
      {"host -Werror", {"-Werror"}, {"-Werror"}},
      {"default stream per thread",
       {"--default-stream", "per-thread"},
       {"-fgpu-default-stream=per-thread"}},
      {"default stream legacy",
       {"-default-stream=legacy"},
       {"-fgpu-default-stream=legacy"}},
      {"forward unknown",
       {"--forward-unknown-to-host-compiler",
        "-forward-unknown-to-host-compiler", "-forward-unknown-to-host-linker"},
       {}},
      {"intermediate files",
       {"--keep", "-keep", "--keep-dir", "/tmp/k", "-keep-dir=/tmp/k",
        "-save-temps", "--verbose", "-v", "--dryrun"},
       {}},
      {"dependency files",
       {"-M", "-MD", "-MMD", "-MP", "-MT", "a.cu.o", "-MF", "a.cu.o.d",
        "--dependency-output=x.d", "--generate-nonsystem-dependencies"},
       {}},
      {"threads",
       {"--threads", "4", "-t", "0", "-t=2", "--split-compile=8"},
       {}},
      {"linking",
       {"-lcudart", "-L/usr/lib", "--library", "m", "-shared", "-cudart",
        "static", "--cudart=shared"},
       {}},
      {"output", {"-o", "a.o"}, {"-o", "a.o"}},
      {"output, long", {"--output-file=b.o"}, {"-o", "b.o"}},
      {"unknown long option with value", {"--future-option", "value"}, {}},
      {"unknown long option with =", {"--future-option=value"}, {}},
      {"unknown option followed by an option",
       {"--future-flag", "-DKEPT"},
       {"-DKEPT"}},
      {"forwarded host flags clang knows",
       {"-fPIC", "-Wall", "-fvisibility=hidden", "-pthread", "-march=native"},
       {"-fPIC", "-Wall", "-fvisibility=hidden", "-pthread", "-march=native"}},
      {"forwarded host flags clang rejects", {"-fno-gnu-unique"}, {}},
      {"forwarded host flag with separate value",
       {"-iquote", "/q", "-Xclang", "-fno-validate-pch"},
       {"-iquote", "/q", "-Xclang", "-fno-validate-pch"}},
      {"clang's own syntax-only flag", {"-fsyntax-only"}, {"-fsyntax-only"}},
  };
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (const TranslationCase &C : Cases) {
    Args Command = {"nvcc"};
    Command.insert(Command.end(), C.NvccArgs.begin(), C.NvccArgs.end());
    Command.push_back("a.cu");
    Args Translated = translate(Command, *FS);
    ASSERT_FALSE(Translated.empty()) << C.Family;
    EXPECT_EQ(Translated.front(), "clang++") << C.Family;
    // Only -x is moved (to the front); everything else keeps its order.
    Args Expected = {"clang++"};
    if (llvm::is_contained(C.NvccArgs, "cu"))
      Expected.insert(Expected.end(), {"-x", "cuda"});
    Expected.insert(Expected.end(), C.ClangArgs.begin(), C.ClangArgs.end());
    Expected.push_back("a.cu");
    EXPECT_EQ(join(Translated), join(Expected)) << C.Family;
  }
}

TEST(CudaCompilationTest, TranslatesHostCompilerOptions) {
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  struct Case {
    Args NvccArgs;
    Args ClangArgs;
  } Cases[] = {
      {{"-Xcompiler=-fPIC,-Wall"}, {"-fPIC", "-Wall"}},
      {{"-Xcompiler", "-fPIC"}, {"-fPIC"}},
      {{"--compiler-options", "-fopenmp,-O2"}, {"-fopenmp", "-O2"}},
      {{"-Xcompiler", "\"-Wextra -Wshadow\""}, {"-Wextra", "-Wshadow"}},
      // A value split across two -Xcompiler options.
      {{"-Xcompiler", "-isystem", "-Xcompiler", "/dep"}, {"-isystem", "/dep"}},
      // Flags for other phases and flags clang does not know are dropped.
      {{"-Xcompiler=-MD,-fno-gnu-unique,-fPIE", "-Xcompiler", "/W4"},
       {"-fPIE"}},
      // A value that never arrives.
      {{"-Xcompiler", "-isystem", "-DX"}, {"-DX"}},
  };
  for (const Case &C : Cases) {
    Args Command = {"nvcc"};
    Command.insert(Command.end(), C.NvccArgs.begin(), C.NvccArgs.end());
    Command.push_back("a.cu");
    Args Expected = {"clang++"};
    Expected.insert(Expected.end(), C.ClangArgs.begin(), C.ClangArgs.end());
    Expected.push_back("a.cu");
    EXPECT_EQ(join(translate(Command, *FS)), join(Expected))
        << join(C.NvccArgs);
  }
}

TEST(CudaCompilationTest, TranslatesSingleKnownGpuArchitecture) {
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  struct Case {
    Args NvccArgs;
    std::optional<std::string> ExpectedArch;
  } Cases[] = {
      {{"-arch=sm_90"}, "sm_90"},
      {{"-arch", "sm_80"}, "sm_80"},
      {{"--gpu-architecture=compute_75"}, "sm_75"},
      {{"-arch=sm_90a"}, "sm_90a"},
      {{"-gencode", "arch=compute_90,code=sm_90"}, "sm_90"},
      {{"--generate-code=arch=compute_90,code=[compute_90,sm_90]"}, "sm_90"},
      {{"-gencode=arch=compute_86,code=\"sm_86,compute_86\""}, std::nullopt},
      {{"-arch=compute_80", "-code=sm_80,compute_80"}, "sm_80"},
      // Several architectures, or ones only the build machine knows.
      {{"-gencode", "arch=compute_80,code=sm_80", "-gencode",
        "arch=compute_90,code=sm_90"},
       std::nullopt},
      {{"-arch=compute_90", "-code=sm_90,sm_90a"}, std::nullopt},
      {{"-arch=native"}, std::nullopt},
      {{"-arch=all-major"}, std::nullopt},
      // Newer than clang 19 knows.
      {{"-arch=sm_100"}, std::nullopt},
      {{"--generate-code=arch=compute_120,code=[compute_120,sm_120]"},
       std::nullopt},
      {{}, std::nullopt},
  };
  for (const Case &C : Cases) {
    Args Command = {"nvcc"};
    Command.insert(Command.end(), C.NvccArgs.begin(), C.NvccArgs.end());
    Command.push_back("a.cu");
    Args Expected = {"clang++", "a.cu"};
    if (C.ExpectedArch)
      Expected.push_back("--cuda-gpu-arch=" + *C.ExpectedArch);
    EXPECT_EQ(join(translate(Command, *FS)), join(Expected))
        << join(C.NvccArgs);
  }
}

TEST(CudaCompilationTest, TranslatesCMakeCudaCommand) {
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  Args Command = {"/usr/local/cuda/bin/nvcc",
                  "-forward-unknown-to-host-compiler",
                  "-DUSE_CUDA",
                  "-I/src/include",
                  "-isystem",
                  "/usr/local/cuda/targets/x86_64-linux/include",
                  "-O3",
                  "-DNDEBUG",
                  "-std=c++17",
                  "--generate-code=arch=compute_90,code=[compute_90,sm_90]",
                  "-Xcompiler=-fPIC",
                  "--expt-relaxed-constexpr",
                  "-MD",
                  "-MT",
                  "CMakeFiles/k.dir/k.cu.o",
                  "-MF",
                  "CMakeFiles/k.dir/k.cu.o.d",
                  "-x",
                  "cu",
                  "-c",
                  "/src/k.cu",
                  "-o",
                  "CMakeFiles/k.dir/k.cu.o"};
  Args Expected = {"clang++",
                   "-x",
                   "cuda",
                   "-DUSE_CUDA",
                   "-I/src/include",
                   "-isystem",
                   "/usr/local/cuda/targets/x86_64-linux/include",
                   "-O3",
                   "-DNDEBUG",
                   "-std=c++17",
                   "-fPIC",
                   "-c",
                   "/src/k.cu",
                   "-o",
                   "CMakeFiles/k.dir/k.cu.o",
                   "--cuda-gpu-arch=sm_90"};
  EXPECT_EQ(join(translate(Command, *FS)), join(Expected));
}

TEST(CudaCompilationTest, DropsCompilerLauncher) {
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  EXPECT_EQ(join(translate({"ccache", "nvcc", "-DX", "-c", "a.cu"}, *FS)),
            "clang++ -DX -c a.cu");
}

TEST(CudaCompilationTest, ReadsOptionsFilesRelativeToWorkingDir) {
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  FS->addFile("/build/includes.rsp", 0,
              llvm::MemoryBuffer::getMemBuffer(
                  "-I\"/src/dir with space\" -isystem /dep\n"
                  "--options-file nested/defs.rsp -Xcompiler=-fPIC\n"));
  FS->addFile("/build/nested/defs.rsp", 0,
              llvm::MemoryBuffer::getMemBuffer("-DFROM_FILE=1 '-DQUOTED=a b'\n"
                                               "-gencode arch=compute_80,"
                                               "code=sm_80"));
  FS->addFile("/abs/more.rsp", 0, llvm::MemoryBuffer::getMemBuffer("-DMORE"));
  EXPECT_EQ(
      join(translate({"nvcc", "-DBEFORE", "--options-file", "includes.rsp",
                      "-optf=/abs/more.rsp", "-DAFTER", "-c", "a.cu"},
                     *FS)),
      join({"clang++", "-DBEFORE", "-I/src/dir with space", "-isystem", "/dep",
            "-DFROM_FILE=1", "-DQUOTED=a b", "-fPIC", "-DMORE", "-DAFTER", "-c",
            "a.cu", "--cuda-gpu-arch=sm_80"}));
  // nvcc takes comma-separated lists of options files too.
  EXPECT_EQ(
      join(translate({"nvcc", "-optf", "nested/defs.rsp,/abs/more.rsp"}, *FS)),
      "clang++ -DFROM_FILE=1 -DQUOTED=a b -DMORE --cuda-gpu-arch=sm_80");
}

TEST(CudaCompilationTest, ReportsUnreadableOptionsFile) {
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  llvm::Expected<Args> Result = translateNvccArguments(
      {"nvcc", "--options-file", "missing.rsp", "a.cu"}, *FS, "/build");
  ASSERT_FALSE(Result);
  std::string Message = llvm::toString(Result.takeError());
  EXPECT_NE(Message.find("/build/missing.rsp"), std::string::npos) << Message;
}

TEST(CudaCompilationTest, ReportsOptionsFileCycle) {
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  FS->addFile("/build/self.rsp", 0,
              llvm::MemoryBuffer::getMemBuffer("-DX -optf self.rsp"));
  llvm::Expected<Args> Result = translateNvccArguments(
      {"nvcc", "-optf", "self.rsp", "a.cu"}, *FS, "/build");
  ASSERT_FALSE(Result);
  std::string Message = llvm::toString(Result.takeError());
  EXPECT_NE(Message.find("self.rsp"), std::string::npos) << Message;
}

// --- Host-analysis flags against fake toolkits ------------------------------

class FakeToolkit {
public:
  FakeToolkit(bool WithCccl, bool WithTextureFetchHeader) {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("xfer-fake-cuda", Root));
    add("include/cuda_runtime.h");
    add("include/texture_indirect_functions.h");
    add("include/curand_mtgp32_kernel.h");
    if (WithTextureFetchHeader)
      add("include/texture_fetch_functions.h");
    if (WithCccl)
      add("include/cccl/cuda/std/atomic");
  }
  ~FakeToolkit() { llvm::sys::fs::remove_directories(Root); }

  std::string path() const { return std::string(Root); }

private:
  void add(llvm::StringRef Relative) {
    llvm::SmallString<256> Path(Root);
    llvm::sys::path::append(Path, Relative);
    EXPECT_FALSE(
        llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path)));
    std::error_code EC;
    llvm::raw_fd_ostream File(Path, EC);
    EXPECT_FALSE(EC) << Path.str().str();
  }

  llvm::SmallString<256> Root;
};

TEST(CudaCompilationTest, HostAnalysisFlagsForToolkitVariants) {
  for (bool WithCccl : {false, true}) {
    for (bool WithTextureFetch : {false, true}) {
      FakeToolkit Toolkit(WithCccl, WithTextureFetch);
      Args Expected = {"--cuda-host-only", "--cuda-path=" + Toolkit.path(),
                       "-nocudalib", "-Wno-unknown-cuda-version",
                       "-D__restrict__="};
      if (WithCccl)
        Expected.insert(Expected.end(),
                        {"-isystem", Toolkit.path() + "/include/cccl"});
      if (!WithTextureFetch)
        Expected.insert(Expected.end(),
                        {"-idirafter", CudaCompatHeaderDir.str(), "-include",
                         CudaCompatHeaderDir.str() +
                             "/xfer_tidy_cuda_legacy.h"});
      EXPECT_EQ(join(cudaHostAnalysisFlags({Toolkit.path()})), join(Expected))
          << "cccl " << WithCccl << ", texture_fetch_functions.h "
          << WithTextureFetch;

      Args Missing = missingCudaWrapperHeaders(Toolkit.path());
      EXPECT_EQ(Missing.empty(), WithTextureFetch);
    }
  }
}

TEST(CudaCompilationTest, HostAnalysisFlagsForUnknownToolkit) {
  EXPECT_EQ(join(cudaHostAnalysisFlags({""})),
            join({"--cuda-host-only", "-nocudalib", "-Wno-unknown-cuda-version",
                  "-D__restrict__=", "-idirafter", CudaCompatHeaderDir.str(),
                  "-include",
                  CudaCompatHeaderDir.str() + "/xfer_tidy_cuda_legacy.h"}));
}

TEST(CudaCompilationTest, ServesCompatHeadersFromMemory) {
  llvm::vfs::InMemoryFileSystem FS;
  addCudaCompatHeaders(FS);
  addCudaCompatHeaders(FS, "/elsewhere");
  for (llvm::StringRef Header : cudaCompatHeaderNames()) {
    for (llvm::StringRef Dir : {llvm::StringRef(CudaCompatHeaderDir),
                                llvm::StringRef("/elsewhere")}) {
      llvm::SmallString<128> Path(Dir);
      llvm::sys::path::append(Path, Header);
      EXPECT_TRUE(FS.exists(Path)) << Path.str().str();
    }
  }
  EXPECT_TRUE(
      llvm::is_contained(cudaCompatHeaderNames(), "texture_fetch_functions.h"));
}

TEST(CudaCompilationTest, ServesLegacyDeclarationsHeader) {
  llvm::vfs::InMemoryFileSystem FS;
  addCudaCompatHeaders(FS);
  auto Buffer = FS.getBufferForFile(CudaCompatHeaderDir.str() + "/" +
                                    CudaLegacyHeaderName.str());
  ASSERT_TRUE(static_cast<bool>(Buffer));
  llvm::StringRef Text = (*Buffer)->getBuffer();
  EXPECT_EQ(Text, cudaLegacyHeaderContents());
  for (llvm::StringRef Declared :
       {"cudaThreadSynchronize(void)", "cudaThreadExit(void)",
        "cudaThreadSetLimit(", "cudaThreadGetLimit(", "struct textureReference",
        "texture : public textureReference", "cudaBindTexture(",
        "cudaBindTexture2D(", "cudaUnbindTexture(", "tex1Dfetch", "tex1D,",
        "tex2D,", "#if CUDART_VERSION >= 13000",
        "#if CUDART_VERSION >= 12000"})
    EXPECT_TRUE(Text.contains(Declared)) << Declared.str();
  // No toolkit: no driver_types.h or cuda_runtime_api.h to patch.
  for (const auto &[Path, Contents] : cudaCompatFiles(""))
    EXPECT_TRUE(llvm::StringRef(Path).starts_with(CudaCompatHeaderDir) ||
                llvm::StringRef(Path).starts_with(LibraryCompatHeaderDir))
        << Path;
}

const char *DriverTypesCuda13 = R"h(#define __DRIVER_TYPES_H__
struct __device_builtin__ cudaDeviceProp
{
    char         name[256];                  /**< ASCII string */
    int          maxTexture2DLinear[3];      /**< Maximum 2D texture */
    int          clockRateInfo;              /**< not clockRate */
    int          reserved[56];               /**< Reserved for future use */
};
struct __device_builtin__ cudaOther
{
    int          clockRate;
};
)h";

TEST(CudaCompilationTest, PatchesRemovedDevicePropFieldsBack) {
  std::optional<std::string> Patched = patchDriverTypesHeader(DriverTypesCuda13);
  ASSERT_TRUE(Patched.has_value());
  llvm::StringRef Text = *Patched;
  llvm::StringRef Struct = Text.take_front(Text.find("struct __device_builtin__ cudaOther"));
  for (llvm::StringRef Field :
       {"clockRate", "deviceOverlap", "kernelExecTimeoutEnabled", "computeMode",
        "maxTexture1DLinear", "memoryClockRate"})
    EXPECT_TRUE(Struct.contains(("    int " + Field + "; ").str()))
        << Field.str() << "\n" << Text.str();
  // Added at the end of the struct, after every original member.
  EXPECT_LT(Struct.find("reserved[56]"), Struct.find("int clockRate;"));
  EXPECT_TRUE(Struct.ends_with("};\n"));
  EXPECT_TRUE(Text.ends_with(llvm::StringRef(DriverTypesCuda13)
                                 .drop_front(llvm::StringRef(DriverTypesCuda13)
                                                 .find("struct __device_builtin__ cudaOther"))));

  // A toolkit that still has every field is left alone.
  std::string Complete = *Patched;
  EXPECT_FALSE(patchDriverTypesHeader(Complete).has_value());
  EXPECT_FALSE(patchDriverTypesHeader("struct cudaOther { int x; };\n"));
}

TEST(CudaCompilationTest, PatchedDriverTypesServedOverTheToolkitsOwn) {
  llvm::StringRef CudaPath = XFER_TEST_CUDA_PATH;
  if (CudaPath.empty() ||
      !llvm::sys::fs::exists(CudaPath + "/include/driver_types.h"))
    GTEST_SKIP() << "no CUDA toolkit configured for tests";
  auto Original =
      llvm::MemoryBuffer::getFile(CudaPath + "/include/driver_types.h");
  ASSERT_TRUE(static_cast<bool>(Original));
  bool Lacks = patchDriverTypesHeader((*Original)->getBuffer()).has_value();
  bool Served = false;
  for (const auto &[Path, Contents] : cudaCompatFiles(CudaPath)) {
    if (!llvm::StringRef(Path).ends_with("/driver_types.h"))
      continue;
    Served = true;
    EXPECT_TRUE(llvm::StringRef(Contents).contains("int clockRate;")) << Path;
    EXPECT_TRUE(llvm::sys::fs::exists(Path)) << Path << " is not a real path";
  }
  EXPECT_EQ(Lacks, Served);
}

TEST(CudaCompilationTest, PatchesRemovedThreadFunctionsIntoTheRuntimeHeader) {
  const char *RuntimeApi = "#if !defined(__CUDA_RUNTIME_API_H__)\n"
                           "#define __CUDA_RUNTIME_API_H__\n"
                           "extern cudaError_t cudaDeviceSynchronize(void);\n"
                           "#endif /* !__CUDA_RUNTIME_API_H__ */\n";
  std::optional<std::string> Patched = patchRuntimeApiHeader(RuntimeApi);
  ASSERT_TRUE(Patched.has_value());
  llvm::StringRef Text = *Patched;
  // Inside the include guard, after the original declarations.
  size_t Added = Text.find("CUDARTAPI cudaThreadSynchronize(void);");
  ASSERT_NE(Added, llvm::StringRef::npos) << Text.str();
  EXPECT_LT(Text.find("cudaDeviceSynchronize"), Added);
  EXPECT_LT(Added, Text.find("#endif /* !__CUDA_RUNTIME_API_H__ */"));
  EXPECT_TRUE(Text.contains("cudaThreadExit(void);"));
  EXPECT_TRUE(Text.ends_with("#endif /* !__CUDA_RUNTIME_API_H__ */\n"));
  // A toolkit that declares them, or a file without a guard, is left alone.
  EXPECT_FALSE(patchRuntimeApiHeader(Text).has_value());
  EXPECT_FALSE(patchRuntimeApiHeader("int x;\n").has_value());
}

class ScopedEnvironment {
public:
  explicit ScopedEnvironment(const char *Name, const char *Value) : Name(Name) {
    if (const char *Old = std::getenv(Name))
      Saved = Old;
    if (Value)
      ::setenv(Name, Value, 1);
    else
      ::unsetenv(Name);
  }
  ~ScopedEnvironment() {
    if (Saved)
      ::setenv(Name, Saved->c_str(), 1);
    else
      ::unsetenv(Name);
  }

private:
  const char *Name;
  std::optional<std::string> Saved;
};

TEST(CudaCompilationTest, DetectsCudaPath) {
  FakeToolkit FromEnvironment(false, false);
  FakeToolkit FromBuild(false, false);
  {
    ScopedEnvironment CudaPath("CUDA_PATH", nullptr);
    ScopedEnvironment CudaHome("CUDA_HOME", nullptr);
    EXPECT_EQ(detectCudaPath("/explicit", FromBuild.path()), "/explicit");
    EXPECT_EQ(detectCudaPath("", FromBuild.path()), FromBuild.path());
    bool HasDefault =
        llvm::sys::fs::exists("/usr/local/cuda/include/cuda_runtime.h");
    EXPECT_EQ(detectCudaPath("", "/does/not/exist"),
              HasDefault ? "/usr/local/cuda" : "");
  }
  {
    ScopedEnvironment CudaPath("CUDA_PATH", nullptr);
    ScopedEnvironment CudaHome("CUDA_HOME", FromEnvironment.path().c_str());
    EXPECT_EQ(detectCudaPath("", FromBuild.path()), FromEnvironment.path());
  }
  {
    ScopedEnvironment CudaPath("CUDA_PATH", FromEnvironment.path().c_str());
    ScopedEnvironment CudaHome("CUDA_HOME", "/not/a/toolkit");
    EXPECT_EQ(detectCudaPath("", FromBuild.path()), FromEnvironment.path());
    EXPECT_EQ(detectCudaPath("/explicit", ""), "/explicit");
  }
}

// --- The language standard CUDA 13's libraries need -------------------------

TEST(CudaCompilationTest, RaisesOlderStandardsToTheMinimum) {
  struct Case {
    Args Command;
    std::string Expected;
  } Cases[] = {
      {{"clang++", "-std=c++14", "a.cu"},
       "clang++ -std=c++14 a.cu -std=c++17 -Wno-register "
       "-Wno-dynamic-exception-spec"},
      {{"clang++", "-std=gnu++11", "a.cu"},
       "clang++ -std=gnu++11 a.cu -std=gnu++17 -Wno-register "
       "-Wno-dynamic-exception-spec"},
      // The last -std= is the one that counts; the flags go before "--".
      {{"clang++", "-std=c++20", "-std=c++1y", "--", "a.cu"},
       "clang++ -std=c++20 -std=c++1y -std=c++17 -Wno-register "
       "-Wno-dynamic-exception-spec -- a.cu"},
      // Recent enough, or clang's default (gnu++17), or not C++: kept.
      {{"clang++", "-std=c++17", "a.cu"}, "clang++ -std=c++17 a.cu"},
      {{"clang++", "-std=c++20", "a.cu"}, "clang++ -std=c++20 a.cu"},
      {{"clang++", "-std=gnu++2b", "a.cu"}, "clang++ -std=gnu++2b a.cu"},
      {{"clang++", "a.cu"}, "clang++ a.cu"},
      {{"clang", "-std=c11", "a.c"}, "clang -std=c11 a.c"},
  };
  for (Case &C : Cases) {
    Args Command = C.Command;
    bool Raised = raiseLanguageStandard(Command, 17);
    EXPECT_EQ(join(Command), C.Expected);
    EXPECT_EQ(Raised, Command != C.Command) << C.Expected;
  }
}

TEST(CudaCompilationTest, ReadsTheToolkitRuntimeVersion) {
  llvm::SmallString<256> Root;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("xfer-cuda-version", Root));
  llvm::SmallString<256> Include(Root);
  llvm::sys::path::append(Include, "include");
  ASSERT_FALSE(llvm::sys::fs::create_directories(Include));
  auto WriteRuntimeHeader = [&](llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream File((Include + "/cuda_runtime_api.h").str(), EC);
    ASSERT_FALSE(EC);
    File << Text;
  };
  EXPECT_EQ(cudaRuntimeVersion(Root), std::nullopt); // no header
  WriteRuntimeHeader("#define CUDART_VERSION_MINOR 0\n"
                     "#define CUDART_VERSION  13000\n");
  EXPECT_EQ(cudaRuntimeVersion(Root), 13000u);
  EXPECT_EQ(cudaRuntimeVersion(""), std::nullopt);

  // A CUDA 13 toolkit raises -std=c++14; a CUDA 12 toolkit does not.
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  auto Adjusted = [&] {
    llvm::Expected<Args> Result =
        adjustCudaCommand({"clang++", "-std=c++14", "-c", "/src/a.cu"},
                          "/src/a.cu", {std::string(Root)}, *FS, "/src");
    EXPECT_TRUE(static_cast<bool>(Result));
    return Result ? join(*Result) : std::string();
  };
  EXPECT_NE(Adjusted().find(" -std=c++17 -Wno-register"), std::string::npos)
      << Adjusted();
  WriteRuntimeHeader("#define CUDART_VERSION 12080\n");
  EXPECT_EQ(Adjusted().find("-std=c++17"), std::string::npos) << Adjusted();
  llvm::sys::fs::remove_directories(Root);
}

// --- The arguments adjuster -------------------------------------------------

TEST(CudaCompilationTest, AdjusterTranslatesAndAddsHostFlags) {
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  FS->addFile("/build/flags.rsp", 0, llvm::MemoryBuffer::getMemBuffer("-DF"));
  ASSERT_FALSE(FS->setCurrentWorkingDirectory("/build"));
  auto Errors = std::make_shared<CudaCommandErrors>();
  clang::tooling::ArgumentsAdjuster Adjust =
      makeCudaArgumentsAdjuster({""}, FS, Errors);
  Args HostFlags = libraryCompatFlags();
  for (const std::string &Flag : cudaHostAnalysisFlags({""}))
    HostFlags.push_back(Flag);

  Args Expected = {"clang++", "-DF", "-c", "/src/a.cu"};
  Expected.insert(Expected.end(), HostFlags.begin(), HostFlags.end());
  EXPECT_EQ(join(Adjust({"nvcc", "-optf", "flags.rsp", "-c", "/src/a.cu"},
                        "/src/a.cu")),
            join(Expected));

  // Host code compiled by nvcc is translated but gets no CUDA flags.
  EXPECT_EQ(join(Adjust({"nvcc", "-DX", "-c", "/src/b.cpp"}, "/src/b.cpp")),
            "clang++ -DX -c /src/b.cpp -idirafter /xfer-tidy-library-compat");

  // Other compilers' commands keep their flags unless the source is CUDA;
  // every command searches the library stand-ins last.
  EXPECT_EQ(join(Adjust({"g++", "-c", "/src/c.cpp"}, "/src/c.cpp")),
            "g++ -c /src/c.cpp -idirafter /xfer-tidy-library-compat");

  // A .cuh header needs its language spelled out.
  Expected = {"clang++", "-x", "cuda", "/src/d.cuh"};
  Expected.insert(Expected.end(), HostFlags.begin(), HostFlags.end());
  EXPECT_EQ(join(Adjust({"clang++", "/src/d.cuh"}, "/src/d.cuh")),
            join(Expected));

  // So does a header whose code uses CUDA qualifiers; one that only
  // defines a macro for them (for nvcc builds) stays C++.
  FS->addFile("/src/kernels.h", 0,
              llvm::MemoryBuffer::getMemBuffer(
                  "#pragma once\n__global__ void step(float *x);\n"));
  FS->addFile("/src/portable.h", 0,
              llvm::MemoryBuffer::getMemBuffer(
                  "#define HD __host__ __device__\n// __global__ here\n"
                  "HD int f();\n"));
  Expected = {"clang++", "-x", "cuda", "/src/kernels.h"};
  Expected.insert(Expected.end(), HostFlags.begin(), HostFlags.end());
  EXPECT_EQ(join(Adjust({"clang++", "/src/kernels.h"}, "/src/kernels.h")),
            join(Expected));
  EXPECT_EQ(join(Adjust({"clang++", "/src/portable.h"}, "/src/portable.h")),
            "clang++ /src/portable.h -idirafter /xfer-tidy-library-compat");

  // An interpolated command (a file missing from the compilation database)
  // ends in "-- <file>": the flags go before it, nvcc's translation keeps it
  // last.
  Expected = {"clang++", "-x", "cuda", "-DY", "--cuda-gpu-arch=sm_90"};
  Expected.insert(Expected.end(), HostFlags.begin(), HostFlags.end());
  Expected.insert(Expected.end(), {"--", "/src/f.cuh"});
  EXPECT_EQ(join(Adjust({"nvcc", "-arch=sm_90", "-x", "cu", "-DY", "--",
                         "/src/f.cuh"},
                        "/src/f.cuh")),
            join(Expected));

  // A command naming its toolkit keeps it.
  Args Adjusted =
      Adjust({"clang++", "--cuda-path=/opt/cuda", "/src/e.cu"}, "/src/e.cu");
  EXPECT_TRUE(llvm::is_contained(Adjusted, "--cuda-path=/opt/cuda"));
  EXPECT_EQ(llvm::count(Adjusted, "--cuda-path=/opt/cuda"), 2);
  EXPECT_TRUE(Errors->empty());

  // Untranslatable commands pass unchanged and the reason is recorded.
  Args Broken = {"nvcc", "-optf", "gone.rsp", "-c", "/src/f.cu"};
  EXPECT_EQ(Adjust(Broken, "/src/f.cu"), Broken);
  std::vector<std::string> Messages = Errors->takeMessages();
  ASSERT_EQ(Messages.size(), 1u);
  EXPECT_NE(Messages[0].find("/src/f.cu"), std::string::npos) << Messages[0];
  EXPECT_NE(Messages[0].find("/build/gone.rsp"), std::string::npos)
      << Messages[0];
  EXPECT_TRUE(Errors->empty());
}

// --- Parsing CUDA with the real clang driver --------------------------------

class ErrorCollector : public clang::DiagnosticConsumer {
public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level < clang::DiagnosticsEngine::Error)
      return;
    llvm::SmallString<128> Text;
    Info.FormatDiagnostic(Text);
    std::string Location;
    if (Info.hasSourceManager() && Info.getLocation().isValid())
      Location = Info.getLocation().printToString(Info.getSourceManager());
    Errors.push_back(Location + ": " + std::string(Text));
  }

  std::vector<std::string> Errors;
};

constexpr const char *KernelSource = R"cuda(
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cuda/std/atomic>
#include <vector>

namespace cg = cooperative_groups;

__global__ void scale(float *Data, __half *Halves, __nv_bfloat16 *Brains,
                      int Count, cuda::std::atomic<int> *Visited) {
  cg::thread_block Block = cg::this_thread_block();
  int Index = blockIdx.x * blockDim.x + threadIdx.x;
  if (Index < Count) {
    Data[Index] *= 2.0f;
    Halves[Index] = __float2half(Data[Index]);
    Brains[Index] = __float2bfloat16(Data[Index]);
    Visited->fetch_add(1, cuda::std::memory_order_relaxed);
  }
  Block.sync();
}

int run() {
  constexpr int Count = 1024;
  std::vector<float> Host(Count, 1.0f);
  float *Device = nullptr;
  cudaMalloc(&Device, Count * sizeof(float));
  cudaMemcpy(Device, Host.data(), Count * sizeof(float),
             cudaMemcpyHostToDevice);
  scale<<<(Count + 255) / 256, 256>>>(Device, nullptr, nullptr, Count,
                                      nullptr);
  cudaStream_t Stream;
  cudaStreamCreate(&Stream);
  scale<<<4, 256, 0, Stream>>>(Device, nullptr, nullptr, Count, nullptr);
  cudaMemcpyAsync(Host.data(), Device, Count * sizeof(float),
                  cudaMemcpyDeviceToHost, Stream);
  cudaStreamSynchronize(Stream);
  cudaFree(Device);
  return static_cast<int>(Host[0]);
}
)cuda";

/// The errors clang reports on \p File, compiled by \p Command after
/// adjustCudaCommand against the toolkit at \p CudaPath, reading \p Memory
/// (the compatibility files and the sources) over the real file system; ""
/// when it parses, else the command and the errors.
std::string
parseErrors(llvm::StringRef CudaPath, const Args &Command, llvm::StringRef File,
            llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Memory) {
  auto Overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::getRealFileSystem());
  Overlay->pushOverlay(Memory);
  llvm::Expected<Args> Adjusted =
      adjustCudaCommand(Command, File, {CudaPath.str()}, *Overlay, "/");
  if (!Adjusted)
    return llvm::toString(Adjusted.takeError());
  Args Invocation = *Adjusted;
  Invocation.insert(Invocation.begin() + 1,
                    {"-fsyntax-only",
                     std::string("-resource-dir=") + XFER_CLANG_RESOURCE_DIR});

  auto Files = llvm::makeIntrusiveRefCnt<clang::FileManager>(
      clang::FileSystemOptions(), Overlay);
  ErrorCollector Collector;
  clang::tooling::ToolInvocation Tool(
      Invocation, std::make_unique<clang::SyntaxOnlyAction>(), Files.get());
  Tool.setDiagnosticConsumer(&Collector);
  bool Succeeded = Tool.run();

  std::string AllErrors;
  for (const std::string &Error : Collector.Errors)
    AllErrors += Error + "\n";
  if (!Succeeded && AllErrors.empty())
    AllErrors = "the invocation failed";
  return AllErrors.empty() ? ""
                           : "command: " + join(Invocation) + "\n" + AllErrors;
}

/// The errors clang reports on \p Source compiled as an nvcc command
/// would be, after adjustCudaCommand; "" when it parses.
std::string cudaParseErrors(llvm::StringRef CudaPath, const char *Source) {
  auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  addCudaCompatHeaders(*Memory);
  Memory->addFile("/xfer-test/kernel.cu", 0,
                  llvm::MemoryBuffer::getMemBuffer(Source));
  Args Command = {(CudaPath + "/bin/nvcc").str(),
                  "-std=c++17",
                  "--generate-code=arch=compute_90,code=[compute_90,sm_90]",
                  "--expt-relaxed-constexpr",
                  "-Xcompiler=-Wall",
                  "-x",
                  "cu",
                  "-c",
                  "/xfer-test/kernel.cu"};
  return parseErrors(CudaPath, Command, "/xfer-test/kernel.cu", Memory);
}

bool haveCudaToolkit(llvm::StringRef CudaPath) {
  return !CudaPath.empty() &&
         llvm::sys::fs::exists(CudaPath + "/include/cuda_runtime.h");
}

TEST(CudaCompilationTest, ParsesCudaSourceAsHostCode) {
  llvm::StringRef CudaPath = XFER_TEST_CUDA_PATH;
  if (!haveCudaToolkit(CudaPath))
    GTEST_SKIP() << "no CUDA toolkit configured for tests";
  EXPECT_EQ("", cudaParseErrors(CudaPath, KernelSource));
}

// nvcc's runtime header brings parts of the C library in: CUDA sources call
// them having included nothing else.
TEST(CudaCompilationTest, ParsesCLibraryCallsNvccDeclares) {
  llvm::StringRef CudaPath = XFER_TEST_CUDA_PATH;
  if (!haveCudaToolkit(CudaPath))
    GTEST_SKIP() << "no CUDA toolkit configured for tests";
  const char *Source = R"cuda(
int run() {
  srand(time(nullptr));
  float *Copy = static_cast<float *>(malloc(sizeof(float)));
  float Value = 1.0f;
  memcpy(Copy, &Value, sizeof(float));
  printf("%f %d\n", Copy[0], ::isnan(Copy[0]) ? 1 : 0);
  free(Copy);
  return 0;
}
)cuda";
  EXPECT_EQ("", cudaParseErrors(CudaPath, Source));
}

/// The errors clang reports on \p Source, a host C++ file compiled with
/// g++ and \p Flags, with the compatibility files of the toolkit at
/// \p CudaPath and \p Extra files overlaid; "" when it parses.
std::string hostParseErrors(
    llvm::StringRef CudaPath, const char *Source, Args Flags,
    llvm::ArrayRef<std::pair<const char *, const char *>> Extra = {}) {
  auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  addCudaCompatHeaders(*Memory, CudaCompatHeaderDir, CudaPath);
  for (const auto &[Path, Text] : Extra)
    Memory->addFile(Path, 0, llvm::MemoryBuffer::getMemBuffer(Text));
  Memory->addFile("/xfer-test/host.cpp", 0,
                  llvm::MemoryBuffer::getMemBuffer(Source));
  Args Command = {"g++", "-std=c++17"};
  Command.insert(Command.end(), Flags.begin(), Flags.end());
  Command.insert(Command.end(), {"-c", "/xfer-test/host.cpp"});
  return parseErrors(CudaPath, Command, "/xfer-test/host.cpp", Memory);
}

// nvcc accepts __restrict__ written before the pointee type, where it
// qualifies the integer rather than the pointer.
TEST(CudaCompilationTest, ParsesRestrictBeforeThePointeeType) {
  llvm::StringRef CudaPath = XFER_TEST_CUDA_PATH;
  if (!haveCudaToolkit(CudaPath))
    GTEST_SKIP() << "no CUDA toolkit configured for tests";
  const char *Source = R"cuda(
__host__ __device__ unsigned load(const __restrict__ unsigned *addr) {
  return *addr;
}
__global__ void copy(const unsigned *__restrict__ in,
                     unsigned *__restrict__ out) {
  out[threadIdx.x] = load(in + threadIdx.x);
}
)cuda";
  EXPECT_EQ("", cudaParseErrors(CudaPath, Source));
}

// Host files that include the runtime header themselves get no forced
// include, so the removed cudaThread* functions come from the patched
// cuda_runtime_api.h.
TEST(CudaCompilationTest, ParsesRemovedThreadFunctionsInHostSources) {
  llvm::StringRef CudaPath = XFER_TEST_CUDA_PATH;
  if (!haveCudaToolkit(CudaPath))
    GTEST_SKIP() << "no CUDA toolkit configured for tests";
  const char *Source = R"cpp(#include <cuda_runtime.h>
int run() {
  cudaThreadSynchronize();
  return cudaThreadExit() == cudaSuccess ? 0 : 1;
}
)cpp";
  EXPECT_EQ("", hostParseErrors(CudaPath, Source,
                                {"-I" + CudaPath.str() + "/include"}));
}

// A LibTorch package built without CUDA ships c10/cuda headers but not the
// header its build generates for them.
TEST(CudaCompilationTest, ServesGeneratedLibraryHeadersAPackageLacks) {
  const char *Macros = "#include <c10/cuda/impl/cuda_cmake_macros.h>\n"
                       "#ifndef C10_CUDA_BUILD_SHARED_LIBS\n"
                       "#error stand-in not read\n#endif\n";
  const char *Source = "#include <c10/cuda/CUDAMacros.h>\nint run();\n";
  EXPECT_EQ("", hostParseErrors(
                    "", Source, {"-I/xfer-torch/include"},
                    {{"/xfer-torch/include/c10/cuda/CUDAMacros.h", Macros}}));
  // A package's own header wins over the stand-in.
  EXPECT_EQ("", hostParseErrors(
                    "", "#include <c10/cuda/CUDAMacros.h>\nint run();\n",
                    {"-I/xfer-torch/include"},
                    {{"/xfer-torch/include/c10/cuda/CUDAMacros.h",
                      "#include <c10/cuda/impl/cuda_cmake_macros.h>\n"
                      "#ifndef FROM_PACKAGE\n#error stand-in read\n#endif\n"},
                     {"/xfer-torch/include/c10/cuda/impl/cuda_cmake_macros.h",
                      "#define FROM_PACKAGE\n"}}));
}

// Every row of include/xfer/CudaApis.def is recognised by its name and
// named back.
TEST(CudaApiCatalogueTest, KnowsEveryTableRow) {
  using namespace clang::ast_matchers;
  using clang::tidy::xfer::CudaApi;
  using clang::tidy::xfer::MemcpyDirection;
  struct ApiRow {
    CudaApi Api;
    const char *Name;
  };
  const ApiRow Apis[] = {
#define XFER_CUDA_API(Enumerator, Name) {CudaApi::Enumerator, Name},
#include "xfer/CudaApis.def"
  };
  struct KindRow {
    MemcpyDirection Direction;
    const char *Name;
  };
  const KindRow Kinds[] = {
#define XFER_CUDA_MEMCPY_KIND(Enumerator, Name)                                \
  {MemcpyDirection::Enumerator, Name},
#include "xfer/CudaApis.def"
  };
  std::string Code = "enum cudaMemcpyKind {";
  for (const KindRow &Kind : Kinds)
    Code += std::string(Kind.Name) + ", ";
  Code += "};\n";
  for (const ApiRow &Api : Apis)
    Code += std::string("int ") + Api.Name + "(...);\n";
  Code += "void use() {\n";
  for (const ApiRow &Api : Apis)
    Code += std::string("  ") + Api.Name + "();\n";
  for (const KindRow &Kind : Kinds)
    Code += std::string("  cudaMemcpy(") + Kind.Name + ");\n";
  Code += "}\n";
  std::unique_ptr<clang::ASTUnit> AST =
      clang::tooling::buildASTFromCode(Code, "apis.cpp");
  ASSERT_TRUE(AST);
  clang::ASTContext &Ctx = AST->getASTContext();
  auto Calls = match(callExpr().bind("call"), Ctx);
  ASSERT_EQ(std::size(Apis) + std::size(Kinds), Calls.size());
  for (size_t I = 0; I < std::size(Apis); ++I) {
    const auto *Call = Calls[I].getNodeAs<clang::CallExpr>("call");
    std::optional<CudaApi> Api = clang::tidy::xfer::identifyCudaCall(Call);
    ASSERT_TRUE(Api) << Apis[I].Name;
    EXPECT_EQ(Apis[I].Api, *Api) << Apis[I].Name;
    EXPECT_EQ(Apis[I].Name, clang::tidy::xfer::cudaApiName(*Api));
  }
  for (size_t I = 0; I < std::size(Kinds); ++I) {
    const auto *Call =
        Calls[std::size(Apis) + I].getNodeAs<clang::CallExpr>("call");
    std::optional<MemcpyDirection> Direction =
        clang::tidy::xfer::evaluateMemcpyKind(Call->getArg(0), Ctx);
    ASSERT_TRUE(Direction) << Kinds[I].Name;
    EXPECT_EQ(Kinds[I].Direction, *Direction) << Kinds[I].Name;
    EXPECT_EQ(Kinds[I].Name, clang::tidy::xfer::memcpyKindName(*Direction));
  }
}

} // namespace

// Launch brackets written with spaces, as nvcc accepts them, are joined in
// place: offsets, lines and columns stay where they were.
TEST(CudaLaunchSpellingTest, JoinsSpacedLaunchBrackets) {
  EXPECT_EQ(std::nullopt, xfer::joinSpacedLaunchBrackets(
                              "step<<<Grid, Block>>>(Data);\nx = a << b;\n"));
  EXPECT_EQ(std::optional<std::string>("step<<< Grid, Block>>> (Data);"),
            xfer::joinSpacedLaunchBrackets("step<< <Grid, Block>> >(Data);"));
  EXPECT_EQ(
      std::optional<std::string>("step<<<  \n  Grid, Block >>>\t(D);"),
      xfer::joinSpacedLaunchBrackets("step<<  \n  <Grid, Block >>\t>(D);"));
  // Only the opening was spaced; a closing already joined stays.
  EXPECT_EQ(std::optional<std::string>("k<<< 1, 2>>>(D);"),
            xfer::joinSpacedLaunchBrackets("k<< <1, 2>>>(D);"));
  // Explicit template arguments of the shift operator are not a launch.
  EXPECT_EQ(std::nullopt,
            xfer::joinSpacedLaunchBrackets(
                "friend std::ostream &operator<< <T>(std::ostream &, "
                "const Box<T> &);\nstd::vector<std::vector<int>> > x;"));
  std::string Text = "a<< <n, m>> >(p); b << c; d<< <1,1>> >();";
  std::optional<std::string> Joined = xfer::joinSpacedLaunchBrackets(Text);
  ASSERT_TRUE(Joined);
  EXPECT_EQ("a<<< n, m>>> (p); b << c; d<<< 1,1>>> ();", *Joined);
  EXPECT_EQ(Text.size(), Joined->size());
}
