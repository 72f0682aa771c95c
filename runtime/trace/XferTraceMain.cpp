//===- XferTraceMain.cpp - xfer-trace: run a program under the collector --===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
//   xfer-trace [options] -- <program> [args...]
//
// Checks that a GPU and CUPTI are there (exit 2 with one line otherwise),
// runs the program with the collector injected through
// CUDA_INJECTION64_PATH, and moves the collector's report into place only
// once it is complete. Exit status: the program's, or 2 when no trace could
// be written.
//
//===----------------------------------------------------------------------===//

#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifndef XFER_TRACE_VERSION
#define XFER_TRACE_VERSION "0.1.0"
#endif

namespace {

constexpr int TraceError = 2;

/// --sample's default: every call.
constexpr const char *DefaultSample = "all";

int error(const std::string &Message) {
  std::fprintf(stderr, "xfer-trace: error: %s\n", Message.c_str());
  return TraceError;
}

const char *const Usage =
    "usage: xfer-trace [options] -- <program> [args...]\n"
    "\n"
    "Runs <program> with a CUPTI collector injected and writes, per call site\n"
    "in the program's own code, the CUDA calls that block the host or copy:\n"
    "calls, bytes, host time blocked, GPU idle time that followed, host\n"
    "memory kind, streams and API paths. Build the program with -g.\n"
    "\n"
    "options:\n"
    "  --output=<file>         trace summary to write (default trace.json)\n"
    "  --skip-seconds=<s>      start recording <s> seconds after CUDA starts\n"
    "  --max-seconds=<s>       record for <s> seconds only (default: to exit)\n"
    "  --sample=<w>/<p>|all    record a window of <w> ms in every <p> ms, at a\n"
    "                          random phase, and scale the figures to the\n"
    "                          traced time (e.g. 1/20); default all: every\n"
    "                          call\n"
    "  --library-path=<text>   source paths containing <text> are library\n"
    "                          code, not call sites (repeatable)\n"
    "  --collector=<file>      the collector library (default: the one\n"
    "                          installed with xfer-trace)\n"
    "  --version, --help\n"
    "\n"
    "Exit status: the program's; 2 when no trace could be written (no GPU,\n"
    "no CUPTI, a usage error, or the program never used CUDA).\n";

std::string directoryOf(const std::string &Path) {
  size_t Slash = Path.rfind('/');
  return Slash == std::string::npos ? "." : Path.substr(0, Slash);
}

std::string selfDirectory() {
  char Buffer[4096];
  ssize_t Length = readlink("/proc/self/exe", Buffer, sizeof(Buffer) - 1);
  if (Length <= 0)
    return ".";
  return directoryOf(std::string(Buffer, size_t(Length)));
}

bool exists(const std::string &Path) {
  struct stat Info;
  return stat(Path.c_str(), &Info) == 0;
}

/// Beside the executable (build tree), else <prefix>/lib.
std::string defaultCollector() {
  const std::string Name = "libxfer-trace-collector.so";
  std::string Self = selfDirectory();
  for (const std::string &Candidate :
       {Self + "/" + Name, Self + "/trace/" + Name, Self + "/../lib/" + Name})
    if (exists(Candidate))
      return Candidate;
  return Self + "/" + Name;
}

bool parseSeconds(const std::string &Text, double &Seconds) {
  char *End = nullptr;
  errno = 0;
  Seconds = std::strtod(Text.c_str(), &End);
  return !Text.empty() && End && *End == '\0' && errno == 0 && Seconds >= 0;
}

/// "<window ms>/<period ms>", the window shorter than the period.
bool parseSample(const std::string &Text, double &Window, double &Period) {
  size_t Slash = Text.find('/');
  if (Slash == std::string::npos)
    return false;
  auto Number = [](const std::string &Part, double &Into) {
    char *End = nullptr;
    errno = 0;
    Into = std::strtod(Part.c_str(), &End);
    return !Part.empty() && End && *End == '\0' && errno == 0 && Into > 0;
  };
  return Number(Text.substr(0, Slash), Window) &&
         Number(Text.substr(Slash + 1), Period) && Window < Period;
}

/// Whether a CUDA device can be used; the reason when not.
bool gpuAvailable(std::string &Reason) {
  void *Driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Driver) {
    Reason = "no CUDA driver (libcuda.so.1 cannot be loaded); tracing needs "
             "an NVIDIA GPU";
    return false;
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int *);
  using NameFn = int (*)(int, const char **);
  auto Init = reinterpret_cast<InitFn>(dlsym(Driver, "cuInit"));
  auto Count = reinterpret_cast<CountFn>(dlsym(Driver, "cuDeviceGetCount"));
  auto ErrorName = reinterpret_cast<NameFn>(dlsym(Driver, "cuGetErrorName"));
  if (!Init || !Count) {
    Reason = "the CUDA driver lacks cuInit/cuDeviceGetCount";
    return false;
  }
  int Status = Init(0);
  if (Status != 0) {
    const char *Name = nullptr;
    if (!ErrorName || ErrorName(Status, &Name) != 0 || !Name)
      Name = "unknown error";
    Reason = std::string("no usable CUDA GPU (cuInit: ") + Name + ")";
    return false;
  }
  int Devices = 0;
  if (Count(&Devices) != 0 || Devices == 0) {
    Reason = "no CUDA GPU visible";
    return false;
  }
  return true;
}

std::string readFirstLine(const std::string &Path) {
  std::ifstream File(Path);
  std::string Line;
  std::getline(File, Line);
  return Line;
}

std::string shellWords(const std::vector<std::string> &Words) {
  std::string Text;
  for (const std::string &Word : Words) {
    if (!Text.empty())
      Text += ' ';
    bool Plain = !Word.empty() &&
                 Word.find_first_of(" \t\"'\\$`") == std::string::npos;
    Text += Plain ? Word : "'" + Word + "'";
  }
  return Text;
}

} // namespace

int main(int Argc, char **Argv) {
  std::string Output = "trace.json";
  std::string Collector;
  double SkipSeconds = 0, MaxSeconds = 0;
  std::string Sample = DefaultSample;
  std::string LibraryPaths;
  int First = Argc;
  for (int I = 1; I < Argc; ++I) {
    std::string Arg = Argv[I];
    auto Value = [&](const char *Name, std::string &Into) {
      std::string Prefix = std::string(Name) + "=";
      if (Arg.rfind(Prefix, 0) != 0)
        return false;
      Into = Arg.substr(Prefix.size());
      return true;
    };
    std::string Text;
    if (Arg == "--") {
      First = I + 1;
      break;
    }
    if (Arg == "--help" || Arg == "-h") {
      std::fputs(Usage, stdout);
      return 0;
    }
    if (Arg == "--version") {
      std::printf("xfer-trace %s\n", XFER_TRACE_VERSION);
      return 0;
    }
    if (Value("--output", Output) || Value("--collector", Collector))
      continue;
    if (Value("--sample", Text)) {
      double Window = 0, Period = 0;
      if (Text != "all" && !parseSample(Text, Window, Period))
        return error(Arg + ": expected <window ms>/<period ms> with the "
                           "window shorter than the period, or all");
      Sample = Text;
      continue;
    }
    if (Value("--library-path", Text)) {
      LibraryPaths += (LibraryPaths.empty() ? "" : ":") + Text;
      continue;
    }
    if (Value("--skip-seconds", Text) || Value("--max-seconds", Text)) {
      double &Into = Arg.rfind("--skip", 0) == 0 ? SkipSeconds : MaxSeconds;
      if (!parseSeconds(Text, Into))
        return error(Arg + ": expected a non-negative number of seconds");
      continue;
    }
    if (Arg.rfind("-", 0) == 0)
      return error("unknown option " + Arg + " (see --help)");
    First = I; // the program, without "--"
    break;
  }
  if (First >= Argc)
    return error("no program to trace (xfer-trace [options] -- <program> "
                 "[args...])");
  if (Output.empty())
    return error("--output: empty file name");
  if (!exists(directoryOf(Output)))
    return error("cannot write " + Output + ": no such directory '" +
                 directoryOf(Output) + "'");

  std::string Reason;
  if (!gpuAvailable(Reason))
    return error(Reason);
  if (Collector.empty())
    Collector = defaultCollector();
  if (Collector.find('/') == std::string::npos)
    Collector = "./" + Collector;
  // Loading it here also loads libcupti: a missing CUPTI fails now, in one
  // line, rather than silently inside the program.
  if (void *Handle = dlopen(Collector.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    dlclose(Handle);
  } else {
    const char *Why = dlerror();
    return error("cannot load the CUPTI collector: " +
                 std::string(Why ? Why : Collector));
  }

  std::vector<std::string> Command(Argv + First, Argv + Argc);
  const std::string Suffix = "." + std::to_string(getpid());
  const std::string Partial = Output + ".partial" + Suffix;
  const std::string ErrorFile = Output + ".error" + Suffix;
  std::remove(Partial.c_str());
  std::remove(ErrorFile.c_str());

  pid_t Child = fork();
  if (Child < 0)
    return error(std::string("fork: ") + std::strerror(errno));
  if (Child == 0) {
    setenv("CUDA_INJECTION64_PATH", Collector.c_str(), 1);
    setenv("XFER_TRACE_OUTPUT", Partial.c_str(), 1);
    setenv("XFER_TRACE_ERROR", ErrorFile.c_str(), 1);
    setenv("XFER_TRACE_SKIP_SECONDS", std::to_string(SkipSeconds).c_str(), 1);
    setenv("XFER_TRACE_MAX_SECONDS", std::to_string(MaxSeconds).c_str(), 1);
    setenv("XFER_TRACE_SAMPLE", Sample.c_str(), 1);
    setenv("XFER_TRACE_LIBRARY_PATHS", LibraryPaths.c_str(), 1);
    setenv("XFER_TRACE_COMMAND", shellWords(Command).c_str(), 1);
    std::vector<char *> Args;
    for (std::string &Word : Command)
      Args.push_back(Word.data());
    Args.push_back(nullptr);
    execvp(Args[0], Args.data());
    std::fprintf(stderr, "xfer-trace: error: cannot run %s: %s\n", Args[0],
                 std::strerror(errno));
    _exit(127);
  }
  int Status = 0;
  while (waitpid(Child, &Status, 0) < 0)
    if (errno != EINTR)
      return error(std::string("waitpid: ") + std::strerror(errno));
  int ProgramStatus = WIFEXITED(Status)     ? WEXITSTATUS(Status)
                      : WIFSIGNALED(Status) ? 128 + WTERMSIG(Status)
                                            : 1;
  if (WIFEXITED(Status) && WEXITSTATUS(Status) == 127 && !exists(Partial) &&
      !exists(ErrorFile))
    return TraceError;

  if (exists(ErrorFile)) {
    std::string Line = readFirstLine(ErrorFile);
    std::remove(ErrorFile.c_str());
    std::remove(Partial.c_str());
    return error(Line.empty() ? "the collector failed" : Line);
  }
  if (!exists(Partial))
    return error("no trace written: " + Command.front() +
                 (WIFSIGNALED(Status) ? " was killed by a signal"
                                      : " never initialized CUDA or left "
                                        "without running its exit handlers"));
  if (std::rename(Partial.c_str(), Output.c_str()) != 0) {
    std::remove(Partial.c_str());
    return error("cannot write " + Output + ": " + std::strerror(errno));
  }
  std::fprintf(stderr, "xfer-trace: wrote %s\n", Output.c_str());
  return ProgramStatus;
}
