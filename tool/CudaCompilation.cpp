//===- CudaCompilation.cpp - Analysing CUDA sources as host code ----------===//
//
// See CudaCompilation.h and docs/cuda.md.
//
//===----------------------------------------------------------------------===//

#include "CudaCompilation.h"

#include "clang/Basic/Cuda.h"
#include "clang/Driver/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Option/Arg.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/StringSaver.h"

#include <optional>

namespace xfer {

namespace {

using llvm::StringRef;

/// Lower-cased file name of a command's program, accepting both '/' and '\'
/// separators since compilation databases may come from Windows builds.
std::string programName(StringRef Program) {
  std::string Name =
      llvm::sys::path::filename(Program, llvm::sys::path::Style::windows)
          .lower();
  StringRef Trimmed(Name);
  if (Trimmed.consume_back(".exe"))
    return Trimmed.str();
  return Name;
}

bool isCompilerLauncher(StringRef Program) {
  std::string Name = programName(Program);
  return Name == "ccache" || Name == "sccache" || Name == "buildcache";
}

bool isNvccProgram(StringRef Program) {
  return StringRef(programName(Program)).ends_with("nvcc");
}

/// Number of leading arguments naming the compiler (a launcher plus nvcc, or
/// just nvcc); 0 when the command does not invoke nvcc.
size_t nvccProgramArgCount(llvm::ArrayRef<std::string> Args) {
  if (Args.empty())
    return 0;
  if (isNvccProgram(Args[0]))
    return 1;
  if (isCompilerLauncher(Args[0]) && Args.size() > 1 && isNvccProgram(Args[1]))
    return 2;
  return 0;
}

enum class SourceLanguage { Unspecified, Cuda, Other };

SourceLanguage languageFromXValue(StringRef Value) {
  if (Value == "cu" || Value == "cuda")
    return SourceLanguage::Cuda;
  if (Value == "none" || Value.empty())
    return SourceLanguage::Unspecified;
  return SourceLanguage::Other;
}

bool hasCudaExtension(StringRef File) {
  StringRef Extension = llvm::sys::path::extension(File);
  return Extension.equals_insensitive(".cu") ||
         Extension.equals_insensitive(".cuh");
}

/// What translateNvccArguments does with one nvcc option.
enum class NvccAction {
  Drop,          // nvcc-only: dropped, with its value if it has one.
  Define,        // -D
  Undefine,      // -U
  IncludePath,   // -I
  SystemInclude, // -isystem
  PreInclude,    // -include
  Standard,      // -std
  Optimize,      // -O
  Debug,         // -g
  Machine,       // -m
  Language,      // -x
  GpuArch,       // -arch
  GpuCode,       // -code
  GenerateCode,  // -gencode
  HostOptions,   // -Xcompiler
  OptionsFile,   // -optf
  DefaultStream, // -default-stream
  Output,        // -o
  Compile,       // -c and the nvcc modes that imply it (-dc, -dw)
  Preprocess,    // -E
  KeepForHost,   // Options both nvcc and clang spell and mean alike.
};

struct NvccOption {
  StringRef LongName;  // Without the leading "--".
  StringRef ShortName; // Without the leading "-"; may be empty.
  bool TakesValue;
  NvccAction Action;
};

// nvcc's options (CUDA 12/13 `nvcc --help`). Every option with a value must be
// listed so the value is consumed with it: nvcc accepts `-opt value`,
// `-opt=value`, `--long-opt value` and `--long-opt=value` alike.
constexpr NvccOption NvccOptions[] = {
    // Preprocessing, language and output: translated for clang.
    {"define-macro", "D", true, NvccAction::Define},
    {"undefine-macro", "U", true, NvccAction::Undefine},
    {"include-path", "I", true, NvccAction::IncludePath},
    {"system-include", "isystem", true, NvccAction::SystemInclude},
    {"pre-include", "include", true, NvccAction::PreInclude},
    {"std", "std", true, NvccAction::Standard},
    {"optimize", "O", true, NvccAction::Optimize},
    {"debug", "g", false, NvccAction::Debug},
    {"machine", "m", true, NvccAction::Machine},
    {"x", "x", true, NvccAction::Language},
    {"gpu-architecture", "arch", true, NvccAction::GpuArch},
    {"gpu-code", "code", true, NvccAction::GpuCode},
    {"generate-code", "gencode", true, NvccAction::GenerateCode},
    {"compiler-options", "Xcompiler", true, NvccAction::HostOptions},
    {"options-file", "optf", true, NvccAction::OptionsFile},
    {"default-stream", "default-stream", true, NvccAction::DefaultStream},
    {"output-file", "o", true, NvccAction::Output},
    {"compile", "c", false, NvccAction::Compile},
    {"device-c", "dc", false, NvccAction::Compile},
    {"device-w", "dw", false, NvccAction::Compile},
    {"preprocess", "E", false, NvccAction::Preprocess},
    {"Wno-deprecated-declarations", "Wno-deprecated-declarations", false,
     NvccAction::KeepForHost},
    {"Wreorder", "Wreorder", false, NvccAction::KeepForHost},

    // Options forwarded to other tools of the nvcc pipeline.
    {"linker-options", "Xlinker", true, NvccAction::Drop},
    {"ptxas-options", "Xptxas", true, NvccAction::Drop},
    {"nvlink-options", "Xnvlink", true, NvccAction::Drop},
    {"archive-options", "Xarchive", true, NvccAction::Drop},
    {"fatbin-options", "Xfatbin", true, NvccAction::Drop},
    {"cudafe-options", "Xcudafe", true, NvccAction::Drop},
    {"nvvm-options", "Xnvvm", true, NvccAction::Drop},
    {"compiler-bindir", "ccbin", true, NvccAction::Drop},
    {"allow-unsupported-compiler", "allow-unsupported-compiler", false,
     NvccAction::Drop},
    {"forward-unknown-to-host-compiler", "forward-unknown-to-host-compiler",
     false, NvccAction::Drop},
    {"forward-unknown-to-host-linker", "forward-unknown-to-host-linker", false,
     NvccAction::Drop},
    {"forward-unknown-opts", "forward-unknown-opts", false, NvccAction::Drop},
    {"use-local-env", "use-local-env", false, NvccAction::Drop},

    // Linking and libraries.
    {"library", "l", true, NvccAction::Drop},
    {"library-path", "L", true, NvccAction::Drop},
    {"shared", "shared", false, NvccAction::Drop},
    {"cudart", "cudart", true, NvccAction::Drop},
    {"cudadevrt", "cudadevrt", true, NvccAction::Drop},
    {"libdevice-directory", "ldir", true, NvccAction::Drop},
    {"target-directory", "target-dir", true, NvccAction::Drop},
    {"output-directory", "odir", true, NvccAction::Drop},
    {"entries", "e", true, NvccAction::Drop},

    // Compilation phases other than host compilation.
    {"cuda", "cuda", false, NvccAction::Drop},
    {"ptx", "ptx", false, NvccAction::Drop},
    {"cubin", "cubin", false, NvccAction::Drop},
    {"fatbin", "fatbin", false, NvccAction::Drop},
    {"optix-ir", "optix-ir", false, NvccAction::Drop},
    {"ltoir", "ltoir", false, NvccAction::Drop},
    {"device-link", "dlink", false, NvccAction::Drop},
    {"link", "link", false, NvccAction::Drop},
    {"lib", "lib", false, NvccAction::Drop},
    {"run", "run", false, NvccAction::Drop},
    {"run-args", "run-args", true, NvccAction::Drop},
    {"dependency-output", "MF", true, NvccAction::Drop},
    {"dependency-target-name", "MT", true, NvccAction::Drop},
    {"generate-dependencies", "M", false, NvccAction::Drop},
    {"generate-nonsystem-dependencies", "MM", false, NvccAction::Drop},
    {"generate-dependencies-with-compile", "MD", false, NvccAction::Drop},
    {"generate-nonsystem-dependencies-with-compile", "MMD", false,
     NvccAction::Drop},
    {"generate-dependency-targets", "MP", false, NvccAction::Drop},
    {"dependency-drive-prefix", "ddp", true, NvccAction::Drop},
    {"input-drive-prefix", "idp", true, NvccAction::Drop},
    {"drive-prefix", "dp", true, NvccAction::Drop},

    // Device code generation.
    {"relocatable-device-code", "rdc", true, NvccAction::Drop},
    {"extensible-whole-program", "ewp", false, NvccAction::Drop},
    {"dlink-time-opt", "dlto", false, NvccAction::Drop},
    {"lto", "lto", false, NvccAction::Drop},
    {"gen-opt-lto", "gen-opt-lto", false, NvccAction::Drop},
    {"device-debug", "G", false, NvccAction::Drop},
    {"generate-line-info", "lineinfo", false, NvccAction::Drop},
    {"dopt", "dopt", true, NvccAction::Drop},
    {"use_fast_math", "use_fast_math", false, NvccAction::Drop},
    {"ftz", "ftz", true, NvccAction::Drop},
    {"prec-div", "prec-div", true, NvccAction::Drop},
    {"prec-sqrt", "prec-sqrt", true, NvccAction::Drop},
    {"fmad", "fmad", true, NvccAction::Drop},
    {"maxrregcount", "maxrregcount", true, NvccAction::Drop},
    {"extra-device-vectorization", "extra-device-vectorization", false,
     NvccAction::Drop},
    {"restrict", "restrict", false, NvccAction::Drop},
    {"source-in-ptx", "src-in-ptx", false, NvccAction::Drop},
    {"keep-device-functions", "keep-device-functions", false, NvccAction::Drop},
    {"jump-table-density", "jtd", true, NvccAction::Drop},
    {"device-stack-protector", "device-stack-protector", true,
     NvccAction::Drop},
    {"static-global-template-stub", "static-global-template-stub", true,
     NvccAction::Drop},
    {"device-entity-has-hidden-visibility",
     "device-entity-has-hidden-visibility", true, NvccAction::Drop},
    {"compress-mode", "compress-mode", true, NvccAction::Drop},
    {"no-compress", "no-compress", false, NvccAction::Drop},
    {"minimal", "minimal", false, NvccAction::Drop},
    {"split-compile", "split-compile", true, NvccAction::Drop},
    {"split-compile-extended", "split-compile-extended", true,
     NvccAction::Drop},
    {"threads", "t", true, NvccAction::Drop},
    {"fdevice-syntax-only", "fdevice-syntax-only", false, NvccAction::Drop},
    {"fdevice-time-trace", "fdevice-time-trace", true, NvccAction::Drop},
    {"frandom-seed", "frandom-seed", true, NvccAction::Drop},

    // Front-end language extensions clang enables for CUDA by default.
    {"expt-relaxed-constexpr", "expt-relaxed-constexpr", false,
     NvccAction::Drop},
    {"expt-extended-lambda", "expt-extended-lambda", false, NvccAction::Drop},
    {"extended-lambda", "extended-lambda", false, NvccAction::Drop},
    {"no-host-device-initializer-list", "nohdinitlist", false,
     NvccAction::Drop},
    {"no-host-device-move-forward", "nohdmoveforward", false, NvccAction::Drop},

    // Diagnostics of nvcc's own front end.
    {"disable-warnings", "w", false, NvccAction::Drop},
    {"Werror", "Werror", true, NvccAction::Drop},
    {"Wno-deprecated-gpu-targets", "Wno-deprecated-gpu-targets", false,
     NvccAction::Drop},
    {"Wdefault-stream-launch", "Wdefault-stream-launch", false,
     NvccAction::Drop},
    {"Wmissing-launch-bounds", "Wmissing-launch-bounds", false,
     NvccAction::Drop},
    {"Wext-lambda-captures-this", "Wext-lambda-captures-this", false,
     NvccAction::Drop},
    {"display-error-number", "err-no", false, NvccAction::Drop},
    {"no-display-error-number", "no-err-no", false, NvccAction::Drop},
    {"diag-error", "diag-error", true, NvccAction::Drop},
    {"diag-suppress", "diag-suppress", true, NvccAction::Drop},
    {"diag-warn", "diag-warn", true, NvccAction::Drop},
    {"diag_suppress", "diag_suppress", true, NvccAction::Drop},
    {"resource-usage", "res-usage", false, NvccAction::Drop},
    {"optimization-info", "opt-info", true, NvccAction::Drop},

    // Driver behaviour and intermediate files.
    {"keep", "keep", false, NvccAction::Drop},
    {"keep-dir", "keep-dir", true, NvccAction::Drop},
    {"save-temps", "save-temps", false, NvccAction::Drop},
    {"clean-targets", "clean", false, NvccAction::Drop},
    {"dryrun", "dryrun", false, NvccAction::Drop},
    {"verbose", "v", false, NvccAction::Drop},
    {"time", "time", true, NvccAction::Drop},
    {"qpp-config", "qpp-config", true, NvccAction::Drop},
    {"list-gpu-arch", "arch-ls", false, NvccAction::Drop},
    {"list-gpu-code", "code-ls", false, NvccAction::Drop},
    {"version", "V", false, NvccAction::Drop},
    {"help", "h", false, NvccAction::Drop},
};

const NvccOption *findNvccOption(StringRef Name, bool IsLongForm) {
  // nvcc is lenient about the number of dashes, so try the other spelling
  // too, preferring the one the argument used.
  for (bool MatchLong : {IsLongForm, !IsLongForm})
    for (const NvccOption &Option : NvccOptions)
      if ((MatchLong ? Option.LongName : Option.ShortName) == Name)
        return &Option;
  return nullptr;
}

// nvcc accepts these short options with the value glued on (-DNAME, -O3).
constexpr StringRef JoinableShortOptions = "DUILlO";

// Values of nvcc's -Werror, which otherwise reads like the host flag.
bool isNvccWerrorKindList(StringRef Value) {
  static const llvm::StringSet<> Kinds = {"all-warnings",
                                          "cross-execution-space-call",
                                          "reorder",
                                          "default-stream-launch",
                                          "missing-launch-bounds",
                                          "ext-lambda-captures-this",
                                          "deprecated-declarations"};
  llvm::SmallVector<StringRef, 4> Parts;
  Value.split(Parts, ',');
  return llvm::all_of(Parts,
                      [](StringRef Part) { return Kinds.contains(Part); });
}

bool looksLikeInputFile(StringRef Arg) {
  static const llvm::StringSet<> Extensions = {
      ".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".c++",   ".h",     ".hpp",
      ".o",  ".obj", ".a", ".so", ".lib", ".ptx", ".cubin", ".fatbin"};
  return Extensions.contains(llvm::sys::path::extension(Arg).lower());
}

/// Splits "a,b,[c,d]" at the commas outside brackets.
llvm::SmallVector<StringRef, 4> splitOutsideBrackets(StringRef List) {
  llvm::SmallVector<StringRef, 4> Parts;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I < List.size(); ++I) {
    if (List[I] == '[')
      ++Depth;
    else if (List[I] == ']')
      --Depth;
    else if (List[I] == ',' && Depth == 0) {
      Parts.push_back(List.slice(Start, I));
      Start = I + 1;
    }
  }
  Parts.push_back(List.substr(Start));
  return Parts;
}

/// Host-compiler options accepted by clang's driver but meaningless or
/// harmful for a syntax-only analysis.
bool isUnwantedHostOption(const llvm::opt::Option &Opt) {
  namespace Opts = clang::driver::options;
  return Opt.matches(Opts::OPT_M_Group) || Opt.matches(Opts::OPT_Link_Group) ||
         Opt.matches(Opts::OPT_o) || Opt.matches(Opts::OPT_c) ||
         Opt.getKind() == llvm::opt::Option::InputClass ||
         Opt.getKind() == llvm::opt::Option::UnknownClass;
}

/// Reads the host-compiler option starting at Args[0] with clang's driver
/// option table. Returns how many arguments it spans, or 0 when its values
/// are missing from \p Args. Appends it to \p Out unless clang does not know
/// it or it is unwanted for analysis.
size_t consumeHostOption(llvm::ArrayRef<std::string> Args,
                         std::vector<std::string> &Out) {
  // No driver option takes more than a handful of separate values.
  llvm::ArrayRef<std::string> Window = Args.take_front(4);
  llvm::SmallVector<const char *, 4> Pointers;
  for (const std::string &Arg : Window)
    Pointers.push_back(Arg.c_str());
  unsigned MissingIndex = 0;
  unsigned MissingCount = 0;
  llvm::opt::InputArgList Parsed = clang::driver::getDriverOptTable().ParseArgs(
      Pointers, MissingIndex, MissingCount,
      llvm::opt::Visibility(clang::driver::options::ClangOption));
  if (MissingCount > 0 && MissingIndex == 0)
    return 0;
  auto It = Parsed.begin();
  if (It == Parsed.end())
    return 1; // An empty argument.
  const llvm::opt::Arg *First = *It;
  size_t Span = Window.size();
  if (++It != Parsed.end())
    Span = (*It)->getIndex();
  if (!isUnwantedHostOption(First->getOption()))
    Out.insert(Out.end(), Window.begin(), Window.begin() + Span);
  return Span;
}

/// State of one nvcc command's translation, shared across nested options
/// files.
class NvccTranslator {
public:
  NvccTranslator(llvm::vfs::FileSystem &FS, StringRef WorkingDir)
      : FS(FS), WorkingDir(WorkingDir) {}

  llvm::Error translate(llvm::ArrayRef<std::string> Args, unsigned Depth);
  std::vector<std::string> finish();

private:
  void apply(const NvccOption &Option, StringRef Value);
  void addArchitectures(StringRef Arch, StringRef Code);
  void addHostOptions(StringRef Value);
  void flushHostOptions();
  llvm::Error readOptionsFiles(StringRef FileList, unsigned Depth);

  llvm::vfs::FileSystem &FS;
  std::string WorkingDir;
  std::vector<std::string> Out;
  std::optional<std::string> LanguageFlag;
  std::optional<std::string> GlobalArch;
  std::optional<std::string> GlobalCode;
  llvm::StringSet<> GpuTargets;
  bool HasUnresolvedGpuTarget = false;
  // Host options from -Xcompiler whose values may follow in the next
  // -Xcompiler (`-Xcompiler -isystem -Xcompiler /dir`).
  std::vector<std::string> PendingHostOptions;
};

// Options files can include each other; a cycle must not recurse forever.
constexpr unsigned MaxOptionsFileDepth = 16;

llvm::Error NvccTranslator::translate(llvm::ArrayRef<std::string> Args,
                                      unsigned Depth) {
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef Arg = Args[I];
    if (Arg.size() < 2 || Arg[0] != '-') {
      flushHostOptions();
      Out.push_back(Arg.str());
      continue;
    }

    bool IsLongForm = Arg.starts_with("--");
    StringRef Body = Arg.drop_front(IsLongForm ? 2 : 1);
    const NvccOption *Option = findNvccOption(Body, IsLongForm);
    std::optional<StringRef> Value;
    if (!Option) {
      auto [Name, Joined] = Body.split('=');
      if (Body.contains('=') && (Option = findNvccOption(Name, IsLongForm))) {
        if (!Option->TakesValue)
          Option = nullptr;
        else
          Value = Joined;
      }
    }
    if (!Option && !IsLongForm && JoinableShortOptions.contains(Body.front())) {
      Option = findNvccOption(Body.take_front(1), false);
      Value = Body.drop_front(1);
    }
    // -m64 / -m32 are nvcc's --machine; other -m flags belong to the host.
    if (!Option && !IsLongForm && (Body == "m64" || Body == "m32")) {
      Option = findNvccOption("m", false);
      Value = Body.drop_front(1);
    }

    if (!Option) {
      if (IsLongForm) {
        // An nvcc option this table does not know: drop it, and its value if
        // one evidently follows.
        if (!Body.contains('=') && I + 1 < Args.size() &&
            !StringRef(Args[I + 1]).starts_with("-") &&
            !looksLikeInputFile(Args[I + 1]))
          ++I;
        continue;
      }
      // What nvcc does not know it forwards to the host compiler (CMake
      // passes --forward-unknown-to-host-compiler); keep what clang knows.
      flushHostOptions();
      size_t Span = consumeHostOption(Args.drop_front(I), Out);
      I += (Span == 0 ? Args.size() : Span) - 1;
      continue;
    }

    if (Option->TakesValue && !Value) {
      StringRef Next = I + 1 < Args.size() ? StringRef(Args[I + 1]) : "";
      // nvcc's -Werror requires a kind; a bare -Werror came from the host
      // compiler's flags.
      if (Option->LongName == "Werror" && !isNvccWerrorKindList(Next)) {
        flushHostOptions();
        Out.push_back(Arg.str());
        continue;
      }
      // -O without a level in the next argument means the default level.
      if (Option->Action == NvccAction::Optimize &&
          !(Next.size() == 1 && llvm::isDigit(Next[0]))) {
        Value = "";
      } else if (I + 1 < Args.size()) {
        Value = Args[++I];
      } else {
        continue; // A trailing option without its value.
      }
    }

    if (Option->Action == NvccAction::OptionsFile) {
      if (llvm::Error Err = readOptionsFiles(*Value, Depth))
        return Err;
      continue;
    }
    if (Option->Action != NvccAction::HostOptions)
      flushHostOptions();
    apply(*Option, Value.value_or(""));
  }
  return llvm::Error::success();
}

void NvccTranslator::apply(const NvccOption &Option, StringRef Value) {
  switch (Option.Action) {
  case NvccAction::Drop:
    return;
  case NvccAction::Define:
    Out.push_back(("-D" + Value).str());
    return;
  case NvccAction::Undefine:
    Out.push_back(("-U" + Value).str());
    return;
  case NvccAction::IncludePath:
    Out.push_back(("-I" + Value).str());
    return;
  case NvccAction::SystemInclude:
    Out.push_back("-isystem");
    Out.push_back(Value.str());
    return;
  case NvccAction::PreInclude:
    Out.push_back("-include");
    Out.push_back(Value.str());
    return;
  case NvccAction::Standard:
    Out.push_back(("-std=" + Value).str());
    return;
  case NvccAction::Optimize:
    Out.push_back(("-O" + Value).str());
    return;
  case NvccAction::Debug:
    Out.push_back("-g");
    return;
  case NvccAction::Machine:
    if (Value == "64" || Value == "32")
      Out.push_back(("-m" + Value).str());
    return;
  case NvccAction::Language:
    switch (languageFromXValue(Value)) {
    case SourceLanguage::Cuda:
      LanguageFlag = "cuda";
      return;
    case SourceLanguage::Unspecified:
      LanguageFlag.reset();
      return;
    case SourceLanguage::Other:
      if (Value == "c" || Value == "c++")
        LanguageFlag = Value.str();
      return;
    }
    return;
  case NvccAction::GpuArch:
    GlobalArch = Value.str();
    return;
  case NvccAction::GpuCode:
    GlobalCode = Value.str();
    return;
  case NvccAction::GenerateCode: {
    StringRef Arch;
    StringRef Code;
    for (StringRef Part : splitOutsideBrackets(Value)) {
      auto [Key, Setting] = Part.split('=');
      if (Key.trim() == "arch")
        Arch = Setting.trim();
      else if (Key.trim() == "code")
        Code = Setting.trim();
    }
    addArchitectures(Arch, Code);
    return;
  }
  case NvccAction::HostOptions:
    addHostOptions(Value);
    return;
  case NvccAction::OptionsFile:
    return; // Handled by translate(), which can fail.
  case NvccAction::DefaultStream:
    // nvcc's "null" stream is the legacy default stream.
    if (Value == "per-thread")
      Out.push_back("-fgpu-default-stream=per-thread");
    else if (Value == "legacy" || Value == "null")
      Out.push_back("-fgpu-default-stream=legacy");
    return;
  case NvccAction::Output:
    Out.push_back("-o");
    Out.push_back(Value.str());
    return;
  case NvccAction::Compile:
    Out.push_back("-c");
    return;
  case NvccAction::Preprocess:
    Out.push_back("-E");
    return;
  case NvccAction::KeepForHost:
    Out.push_back(("-" + Option.ShortName).str());
    return;
  }
}

void NvccTranslator::addArchitectures(StringRef Arch, StringRef Code) {
  // The code list names what is actually built; without it nvcc builds for
  // the (virtual) architecture alone.
  StringRef Targets = Code.empty() ? Arch : Code;
  Targets = Targets.trim();
  if (Targets.consume_front("["))
    Targets.consume_back("]");
  for (StringRef Target : splitOutsideBrackets(Targets)) {
    Target = Target.trim();
    if (Target.empty())
      continue;
    std::string Normalized = Target.str();
    for (StringRef Prefix : {"compute_", "lto_", "sm_"}) {
      if (Target.starts_with(Prefix)) {
        Normalized = ("sm_" + Target.drop_front(Prefix.size())).str();
        break;
      }
    }
    if (!StringRef(Normalized).starts_with("sm_")) {
      // "native", "all", "all-major": the architecture depends on the build
      // machine or is several.
      HasUnresolvedGpuTarget = true;
      continue;
    }
    GpuTargets.insert(Normalized);
  }
}

void NvccTranslator::addHostOptions(StringRef Value) {
  // nvcc splits -Xcompiler values at commas and hands each piece to the host
  // compiler's shell command line, where spaces separate arguments.
  llvm::SmallVector<StringRef, 4> Pieces;
  Value.split(Pieces, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  llvm::BumpPtrAllocator Allocator;
  llvm::StringSaver Saver(Allocator);
  for (StringRef Piece : Pieces) {
    llvm::SmallVector<const char *, 4> Tokens;
    llvm::cl::TokenizeGNUCommandLine(Piece, Saver, Tokens);
    for (const char *Token : Tokens)
      PendingHostOptions.push_back(Token);
  }
  size_t I = 0;
  while (I < PendingHostOptions.size()) {
    size_t Span = consumeHostOption(
        llvm::ArrayRef(PendingHostOptions).drop_front(I), Out);
    if (Span == 0)
      break; // Wait for the values in a following -Xcompiler.
    I += Span;
  }
  PendingHostOptions.erase(PendingHostOptions.begin(),
                           PendingHostOptions.begin() + I);
}

void NvccTranslator::flushHostOptions() {
  // An option still waiting for its value never gets it.
  PendingHostOptions.clear();
}

llvm::Error NvccTranslator::readOptionsFiles(StringRef FileList,
                                             unsigned Depth) {
  llvm::SmallVector<StringRef, 2> Files;
  FileList.split(Files, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef File : Files) {
    llvm::SmallString<256> Path(File);
    if (llvm::sys::path::is_relative(Path) && !WorkingDir.empty()) {
      Path = WorkingDir;
      llvm::sys::path::append(Path, File);
    }
    if (Depth >= MaxOptionsFileDepth)
      return llvm::createStringError(
          std::make_error_code(std::errc::too_many_links),
          "nvcc options file '%s' nests options files too deeply",
          Path.c_str());
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
        FS.getBufferForFile(Path);
    if (!Buffer)
      return llvm::createStringError(
          Buffer.getError(), "cannot read nvcc options file '%s': %s",
          Path.c_str(), Buffer.getError().message().c_str());
    llvm::BumpPtrAllocator Allocator;
    llvm::StringSaver Saver(Allocator);
    llvm::SmallVector<const char *, 16> Tokens;
    llvm::cl::TokenizeGNUCommandLine((*Buffer)->getBuffer(), Saver, Tokens);
    std::vector<std::string> Contents(Tokens.begin(), Tokens.end());
    if (llvm::Error Err = translate(Contents, Depth + 1))
      return Err;
  }
  return llvm::Error::success();
}

std::vector<std::string> NvccTranslator::finish() {
  flushHostOptions();
  if (GlobalArch || GlobalCode)
    addArchitectures(GlobalArch.value_or(""), GlobalCode.value_or(""));

  std::vector<std::string> Result = {"clang++"};
  // nvcc's -x applies to every input, wherever it appears; clang's only to
  // the inputs after it.
  if (LanguageFlag) {
    Result.push_back("-x");
    Result.push_back(*LanguageFlag);
  }
  Result.insert(Result.end(), Out.begin(), Out.end());
  if (!HasUnresolvedGpuTarget && GpuTargets.size() == 1) {
    StringRef Arch = GpuTargets.begin()->getKey();
    if (isClangKnownCudaArch(Arch))
      Result.push_back(("--cuda-gpu-arch=" + Arch).str());
  }
  return Result;
}

// Headers that __clang_cuda_runtime_wrapper.h (clang 19) includes for every
// CUDA version the toolkit may not have.
constexpr llvm::StringLiteral CompatHeaderNames[] = {
    // Removed in CUDA 13 together with the texture reference API.
    "texture_fetch_functions.h",
    // Still shipped by CUDA 13, but included unconditionally as well.
    "texture_indirect_functions.h",
    // Part of cuRAND, absent from toolkits installed without it.
    "curand_mtgp32_kernel.h",
};

bool isRegularFile(const llvm::Twine &Path) {
  return llvm::sys::fs::is_regular_file(Path);
}

std::optional<std::string> environmentValue(StringRef Name) {
  std::optional<std::string> Value = llvm::sys::Process::GetEnv(Name);
  if (Value && Value->empty())
    return std::nullopt;
  return Value;
}

bool hasCudaRuntimeHeader(StringRef CudaPath) {
  return !CudaPath.empty() &&
         isRegularFile(CudaPath + "/include/cuda_runtime.h");
}

} // namespace

bool isNvccCommand(llvm::ArrayRef<std::string> Args) {
  return nvccProgramArgCount(Args) > 0;
}

bool isCudaSource(StringRef File, llvm::ArrayRef<std::string> Args) {
  SourceLanguage Language = SourceLanguage::Unspecified;
  bool SawFile = false;
  for (size_t I = 0; I < Args.size() && !SawFile; ++I) {
    StringRef Arg = Args[I];
    if (Arg == File) {
      SawFile = true;
    } else if ((Arg == "-x" || Arg == "--x" || Arg == "--language") &&
               I + 1 < Args.size()) {
      Language = languageFromXValue(Args[++I]);
    } else if (Arg.consume_front("--x=") || Arg.consume_front("-x=") ||
               Arg.consume_front("--language=") || Arg.consume_front("-x")) {
      Language = languageFromXValue(Arg);
    }
  }
  if (Language == SourceLanguage::Unspecified)
    return hasCudaExtension(File);
  return Language == SourceLanguage::Cuda;
}

bool isClangKnownCudaArch(StringRef Arch) {
  return clang::IsNVIDIAOffloadArch(clang::StringToOffloadArch(Arch));
}

llvm::Expected<std::vector<std::string>>
translateNvccArguments(llvm::ArrayRef<std::string> Args,
                       llvm::vfs::FileSystem &FS, StringRef WorkingDir) {
  size_t ProgramArgs = nvccProgramArgCount(Args);
  if (ProgramArgs == 0 && !Args.empty())
    ProgramArgs = 1;
  NvccTranslator Translator(FS, WorkingDir);
  if (llvm::Error Err = Translator.translate(Args.drop_front(ProgramArgs), 0))
    return std::move(Err);
  return Translator.finish();
}

llvm::ArrayRef<llvm::StringLiteral> cudaCompatHeaderNames() {
  return CompatHeaderNames;
}

std::vector<std::string> missingCudaWrapperHeaders(StringRef CudaPath) {
  std::vector<std::string> Missing;
  for (StringRef Header : CompatHeaderNames)
    if (!isRegularFile(CudaPath + "/include/" + Header))
      Missing.push_back(Header.str());
  return Missing;
}

std::vector<std::string> cudaHostAnalysisFlags(const CudaAnalysisSetup &Setup) {
  // -nocudalib: host-only parsing never links libdevice, and without it clang
  // rejects toolkits that ship headers only.
  std::vector<std::string> Flags = {"--cuda-host-only"};
  if (!Setup.CudaPath.empty())
    Flags.push_back("--cuda-path=" + Setup.CudaPath);
  Flags.push_back("-nocudalib");
  // clang 19 knows CUDA up to 12.5 and warns about newer toolkits.
  Flags.push_back("-Wno-unknown-cuda-version");

  if (!Setup.CudaPath.empty()) {
    // CUDA 13 keeps libcu++, CUB and Thrust under include/cccl, a directory
    // nvcc adds by itself but clang does not.
    llvm::SmallString<256> CcclDir(Setup.CudaPath);
    llvm::sys::path::append(CcclDir, "include", "cccl");
    if (llvm::sys::fs::is_directory(CcclDir)) {
      Flags.push_back("-isystem");
      Flags.push_back(std::string(CcclDir));
    }
  }

  // Unknown toolkits get the stand-ins too: they are searched last, so they
  // only ever replace a header that does not exist.
  if (Setup.CudaPath.empty() ||
      !missingCudaWrapperHeaders(Setup.CudaPath).empty()) {
    Flags.push_back("-idirafter");
    Flags.push_back(CudaCompatHeaderDir.str());
  }
  return Flags;
}

void addCudaCompatHeaders(llvm::vfs::InMemoryFileSystem &FS,
                          StringRef VirtualDir) {
  for (StringRef Header : CompatHeaderNames) {
    llvm::SmallString<128> Path(VirtualDir);
    llvm::sys::path::append(Path, Header);
    std::string Contents =
        ("// Empty stand-in for " + Header +
         ", which clang's CUDA runtime wrapper includes but this CUDA toolkit "
         "lacks. Only reached when no real header exists.\n#pragma once\n")
            .str();
    FS.addFile(Path, /*ModificationTime=*/0,
               llvm::MemoryBuffer::getMemBufferCopy(Contents, Path));
  }
}

std::string detectCudaPath(StringRef Explicit, StringRef BuildDefault) {
  if (!Explicit.empty())
    return Explicit.str();
  for (StringRef Variable : {"CUDA_PATH", "CUDA_HOME"})
    if (std::optional<std::string> Value = environmentValue(Variable))
      if (hasCudaRuntimeHeader(*Value))
        return *Value;
  if (hasCudaRuntimeHeader(BuildDefault))
    return BuildDefault.str();
  if (hasCudaRuntimeHeader("/usr/local/cuda"))
    return "/usr/local/cuda";
  return "";
}

llvm::Expected<std::vector<std::string>>
adjustCudaCommand(llvm::ArrayRef<std::string> Args, StringRef File,
                  const CudaAnalysisSetup &Setup, llvm::vfs::FileSystem &FS,
                  StringRef WorkingDir) {
  std::vector<std::string> Result;
  if (isNvccCommand(Args)) {
    llvm::Expected<std::vector<std::string>> Translated =
        translateNvccArguments(Args, FS, WorkingDir);
    if (!Translated)
      return Translated.takeError();
    Result = std::move(*Translated);
  } else {
    Result.assign(Args.begin(), Args.end());
  }
  if (!isCudaSource(File, Result))
    return Result;

  // A command that names its toolkit (clang as CUDA compiler) keeps it.
  CudaAnalysisSetup Effective = Setup;
  for (StringRef Arg : Result)
    if (Arg.consume_front("--cuda-path="))
      Effective.CudaPath = Arg.str();

  // clang would take a .cuh file for a linker input.
  bool HasLanguage = llvm::any_of(Result, [](StringRef Arg) {
    return Arg == "-x" || Arg.starts_with("--language") ||
           (Arg.starts_with("-x") && Arg.size() > 2);
  });
  if (!HasLanguage &&
      llvm::sys::path::extension(File).equals_insensitive(".cuh")) {
    auto Position = Result.empty() ? Result.end() : Result.begin() + 1;
    Result.insert(Position, {"-x", "cuda"});
  }

  std::vector<std::string> Flags = cudaHostAnalysisFlags(Effective);
  Result.insert(Result.end(), Flags.begin(), Flags.end());
  return Result;
}

void CudaCommandErrors::record(StringRef File, llvm::Error Err) {
  std::string Message = (File + ": " + llvm::toString(std::move(Err))).str();
  std::lock_guard<std::mutex> Guard(Lock);
  Messages.push_back(std::move(Message));
}

std::vector<std::string> CudaCommandErrors::takeMessages() {
  std::lock_guard<std::mutex> Guard(Lock);
  return std::exchange(Messages, {});
}

bool CudaCommandErrors::empty() const {
  std::lock_guard<std::mutex> Guard(Lock);
  return Messages.empty();
}

clang::tooling::ArgumentsAdjuster
makeCudaArgumentsAdjuster(CudaAnalysisSetup Setup,
                          llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
                          std::shared_ptr<CudaCommandErrors> Errors) {
  if (!FS)
    FS = llvm::vfs::getRealFileSystem();
  return [Setup = std::move(Setup), FS = std::move(FS),
          Errors = std::move(Errors)](
             const clang::tooling::CommandLineArguments &Args,
             StringRef File) -> clang::tooling::CommandLineArguments {
    std::string WorkingDir;
    if (llvm::ErrorOr<std::string> Current = FS->getCurrentWorkingDirectory())
      WorkingDir = std::move(*Current);
    llvm::Expected<std::vector<std::string>> Adjusted =
        adjustCudaCommand(Args, File, Setup, *FS, WorkingDir);
    if (Adjusted)
      return std::move(*Adjusted);
    if (Errors)
      Errors->record(File, Adjusted.takeError());
    else
      llvm::consumeError(Adjusted.takeError());
    return Args;
  };
}

} // namespace xfer
