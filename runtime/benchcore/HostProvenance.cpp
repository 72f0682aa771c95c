//===- HostProvenance.cpp - Facts about the host a run happened on --------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "benchcore/HostProvenance.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace xferbench {

static std::string trim(const std::string &Text) {
  const char *Space = " \t\r\n";
  size_t Begin = Text.find_first_not_of(Space);
  if (Begin == std::string::npos)
    return "";
  size_t End = Text.find_last_not_of(Space);
  return Text.substr(Begin, End - Begin + 1);
}

std::string cpuModelFromCpuinfo(const std::string &CpuinfoText) {
  std::istringstream Lines(CpuinfoText);
  std::string Line;
  while (std::getline(Lines, Line)) {
    size_t Colon = Line.find(':');
    if (Colon == std::string::npos)
      continue;
    if (trim(Line.substr(0, Colon)) == "model name")
      return trim(Line.substr(Colon + 1));
  }
  return "";
}

std::optional<std::string> readTextFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return std::nullopt;
  std::ostringstream Buffer;
  Buffer << In.rdbuf();
  return Buffer.str();
}

std::string readCpuModel() {
  if (auto Text = readTextFile("/proc/cpuinfo")) {
    std::string Model = cpuModelFromCpuinfo(*Text);
    if (!Model.empty())
      return Model;
  }
  return "unknown";
}

unsigned logicalCoreCount() { return std::thread::hardware_concurrency(); }

std::string formatUtc(std::time_t Time) {
  std::tm Utc{};
  gmtime_r(&Time, &Utc);
  char Buffer[32];
  std::strftime(Buffer, sizeof(Buffer), "%Y-%m-%dT%H:%M:%SZ", &Utc);
  return Buffer;
}

std::string utcNow() { return formatUtc(std::time(nullptr)); }

std::optional<std::string> driverFromProcVersion(const std::string &Text) {
  // The version is the first token after "Kernel Module" that starts with a
  // digit (open and proprietary modules word the line slightly differently).
  size_t At = Text.find("Kernel Module");
  if (At == std::string::npos)
    return std::nullopt;
  std::istringstream Words(Text.substr(At + std::strlen("Kernel Module")));
  std::string Word;
  while (Words >> Word)
    if (!Word.empty() && Word[0] >= '0' && Word[0] <= '9')
      return Word;
  return std::nullopt;
}

static std::string shellQuote(const std::string &Word) {
  if (!Word.empty() &&
      Word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                             "WXYZ0123456789-_./=,:+@%") == std::string::npos)
    return Word;
  std::string Quoted = "'";
  for (char C : Word)
    Quoted += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Quoted + "'";
}

std::string joinCommandLine(int Argc, const char *const *Argv) {
  std::string Line;
  for (int I = 0; I < Argc; ++I) {
    std::string Word = Argv[I] ? Argv[I] : "";
    if (I == 0) {
      size_t Slash = Word.find_last_of('/');
      if (Slash != std::string::npos)
        Word = Word.substr(Slash + 1);
    }
    if (I)
      Line += ' ';
    Line += shellQuote(Word);
  }
  return Line;
}

bool writeFileAtomically(const std::string &Path, const std::string &Contents,
                         std::string &Error) {
  // The temporary lives in the target's directory so that rename() stays on
  // one file system and is atomic.
  std::string Temporary = Path + ".tmp." + std::to_string(getpid());
  int Fd =
      open(Temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0) {
    Error = "cannot create '" + Temporary + "': " + std::strerror(errno);
    return false;
  }
  auto Fail = [&](const std::string &What) {
    Error = What + " '" + Temporary + "': " + std::strerror(errno);
    close(Fd);
    unlink(Temporary.c_str());
    return false;
  };
  size_t Written = 0;
  while (Written < Contents.size()) {
    ssize_t N = write(Fd, Contents.data() + Written, Contents.size() - Written);
    if (N < 0) {
      if (errno == EINTR)
        continue;
      return Fail("cannot write");
    }
    Written += size_t(N);
  }
  if (fsync(Fd) != 0)
    return Fail("cannot flush");
  if (close(Fd) != 0) {
    Error = "cannot close '" + Temporary + "': " + std::strerror(errno);
    unlink(Temporary.c_str());
    return false;
  }
  if (std::rename(Temporary.c_str(), Path.c_str()) != 0) {
    Error = "cannot rename '" + Temporary + "' to '" + Path +
            "': " + std::strerror(errno);
    unlink(Temporary.c_str());
    return false;
  }
  return true;
}

} // namespace xferbench
