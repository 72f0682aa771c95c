//===- StackResolver.cpp - Return addresses to user call sites ------------===//
//
// Part of xfer-tidy. Host-only.
//
//===----------------------------------------------------------------------===//

#include "trace/StackResolver.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>

namespace xfertrace {

namespace {

std::string baseName(const std::string &Path) {
  size_t Slash = Path.rfind('/');
  return Slash == std::string::npos ? Path : Path.substr(Slash + 1);
}

std::string demangle(const char *Name) {
  if (!Name)
    return "";
  int Status = 0;
  std::unique_ptr<char, void (*)(void *)> Demangled(
      abi::__cxa_demangle(Name, nullptr, nullptr, &Status), std::free);
  return Status == 0 && Demangled ? std::string(Demangled.get())
                                  : std::string(Name);
}

std::string mainExecutable() {
  char Buffer[4096];
  ssize_t Length = readlink("/proc/self/exe", Buffer, sizeof(Buffer) - 1);
  if (Length <= 0)
    return "";
  return std::string(Buffer, size_t(Length));
}

/// One frame: its object and the address addr2line wants there.
struct Frame {
  std::string Object;
  uintptr_t ObjectAddress = 0;
  std::string Symbol; ///< nearest dynamic symbol, demangled
};

/// One addr2line answer: the inline chain, innermost first.
struct InlineEntry {
  std::string Function;
  std::string File;
  unsigned Line = 0;
};

std::string shellQuote(const std::string &Text) {
  std::string Quoted = "'";
  for (char C : Text)
    Quoted += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Quoted + "'";
}

/// Runs addr2line once for all \p Addresses of \p Object.
std::map<uintptr_t, std::vector<InlineEntry>>
lookUpLines(const std::string &Object, const std::vector<uintptr_t> &Addresses) {
  std::map<uintptr_t, std::vector<InlineEntry>> Result;
  if (Addresses.empty())
    return Result;
  std::string Command = "addr2line -a -f -i -C -e " + shellQuote(Object);
  for (uintptr_t Address : Addresses) {
    char Hex[32];
    std::snprintf(Hex, sizeof(Hex), " 0x%lx", (unsigned long)Address);
    Command += Hex;
  }
  Command += " 2>/dev/null";
  FILE *Pipe = popen(Command.c_str(), "r");
  if (!Pipe)
    return Result;
  std::string Output;
  char Buffer[4096];
  size_t Read;
  while ((Read = std::fread(Buffer, 1, sizeof(Buffer), Pipe)) > 0)
    Output.append(Buffer, Read);
  pclose(Pipe);

  std::istringstream Lines(Output);
  std::string Text;
  std::vector<InlineEntry> *Current = nullptr;
  while (std::getline(Lines, Text)) {
    if (Text.rfind("0x", 0) == 0) {
      Current = &Result[uintptr_t(std::strtoull(Text.c_str(), nullptr, 16))];
      continue;
    }
    if (!Current)
      continue;
    InlineEntry Entry;
    Entry.Function = Text == "??" ? "" : Text;
    if (!std::getline(Lines, Text))
      break;
    // "file:line" or "file:line (discriminator N)"; "??:0" or "??:?" when
    // there is no line information.
    size_t Space = Text.find(" (discriminator");
    if (Space != std::string::npos)
      Text.resize(Space);
    size_t Colon = Text.rfind(':');
    if (Colon != std::string::npos && Text.compare(0, 2, "??") != 0) {
      Entry.File = Text.substr(0, Colon);
      Entry.Line = unsigned(std::strtoul(Text.c_str() + Colon + 1, nullptr, 10));
    }
    Current->push_back(Entry);
  }
  return Result;
}

} // namespace

bool isLibraryObject(const std::string &ObjectPath) {
  static const char *const Prefixes[] = {
      "libcupti",  "libcuda.",   "libcudart", "libxfer-trace", "libtorch",
      "libc10",    "libstdc++",  "libc.so",   "libc-",         "libgcc_s",
      "libpthread", "ld-linux",  "libm.so",   "libdl.so",      "libnvrtc",
      "libcublas", "libcudnn",   "libnccl",   "libgomp",       "libnvToolsExt",
      "libnvJitLink", "libcusparse", "libcufft", "libcurand", "libcusolver"};
  std::string Name = baseName(ObjectPath);
  for (const char *Prefix : Prefixes)
    if (Name.rfind(Prefix, 0) == 0)
      return true;
  return false;
}

bool isLibrarySource(const std::string &SourcePath,
                     const ResolverOptions &Options) {
  static const char *const Parts[] = {
      "/include/c++/", "/bits/",      "/torch/include/", "/torch/csrc/",
      "/ATen/",        "/c10/",       "/cuda/include",   "/targets/",
      "/crt/",         "cuda_runtime", "/usr/include/",  "/pybind11/"};
  for (const char *Part : Parts)
    if (SourcePath.find(Part) != std::string::npos)
      return true;
  for (const std::string &Part : Options.LibraryPathParts)
    if (!Part.empty() && SourcePath.find(Part) != std::string::npos)
      return true;
  return false;
}

std::string withoutParameters(const std::string &Function) {
  static const std::string Anonymous = "(anonymous namespace)";
  for (size_t I = 0; I < Function.size(); ++I) {
    if (Function.compare(I, Anonymous.size(), Anonymous) == 0) {
      I += Anonymous.size() - 1;
      continue;
    }
    if (Function[I] == '(')
      return Function.substr(0, I);
  }
  return Function;
}

std::vector<ResolvedSite>
resolveStacks(const std::vector<std::vector<void *>> &Stacks,
              const ResolverOptions &Options) {
  const std::string Executable = mainExecutable();
  std::map<void *, Frame> Frames;
  std::map<std::string, std::vector<uintptr_t>> Wanted; // per user object
  for (const std::vector<void *> &Stack : Stacks)
    for (void *Address : Stack) {
      if (Frames.count(Address))
        continue;
      Frame F;
      Dl_info Info{};
      link_map *Map = nullptr;
      if (dladdr1(Address, &Info, reinterpret_cast<void **>(&Map),
                  RTLD_DL_LINKMAP) != 0 &&
          Map) {
        F.Object = Map->l_name && *Map->l_name ? std::string(Map->l_name)
                                               : Executable;
        // A return address points after the call: look up the call.
        F.ObjectAddress = uintptr_t(Address) - 1 - uintptr_t(Map->l_addr);
        F.Symbol = withoutParameters(demangle(Info.dli_sname));
      }
      if (!F.Object.empty() && !isLibraryObject(F.Object))
        Wanted[F.Object].push_back(F.ObjectAddress);
      Frames[Address] = F;
    }

  std::map<std::string, std::map<uintptr_t, std::vector<InlineEntry>>> Lines;
  for (auto &[Object, Addresses] : Wanted)
    Lines[Object] = lookUpLines(Object, Addresses);

  std::vector<ResolvedSite> Sites;
  for (const std::vector<void *> &Stack : Stacks) {
    ResolvedSite Site;
    std::string Closest;     // the library function nearest the user frame
    std::string FirstCaller; // the caller of the CUDA API, for unattributed
    for (void *Address : Stack) {
      const Frame &F = Frames[Address];
      if (F.Object.empty())
        continue;
      std::string Name = baseName(F.Object);
      bool IsCuda = Name.rfind("libcupti", 0) == 0 ||
                    Name.rfind("libcuda.", 0) == 0 ||
                    Name.rfind("libcudart", 0) == 0 ||
                    Name.rfind("libxfer-trace", 0) == 0;
      if (isLibraryObject(F.Object)) {
        if (!F.Symbol.empty()) {
          if (!IsCuda && FirstCaller.empty())
            FirstCaller = F.Symbol;
          if (!IsCuda)
            Closest = F.Symbol;
        }
        continue;
      }
      auto ObjectLines = Lines.find(F.Object);
      const std::vector<InlineEntry> *Chain = nullptr;
      if (ObjectLines != Lines.end()) {
        auto It = ObjectLines->second.find(F.ObjectAddress);
        if (It != ObjectLines->second.end())
          Chain = &It->second;
      }
      bool Found = false;
      if (Chain)
        for (const InlineEntry &Entry : *Chain) {
          if (Entry.File.empty() || Entry.Line == 0 ||
              isLibrarySource(Entry.File, Options)) {
            if (!Entry.Function.empty()) {
              std::string Function = withoutParameters(Entry.Function);
              // Statically linked cudart has symbols but no lines.
              bool CudaEntry = Function.rfind("cuda", 0) == 0 ||
                               Function.rfind("__cudart", 0) == 0 ||
                               (Function.rfind("cu", 0) == 0 &&
                                Entry.File.empty());
              if (!CudaEntry) {
                Closest = Function;
                if (FirstCaller.empty())
                  FirstCaller = Function;
              }
            }
            continue;
          }
          Site.File = Entry.File;
          Site.Line = Entry.Line;
          Site.Function = withoutParameters(Entry.Function);
          Found = true;
          break;
        }
      if (Found)
        break;
    }
    Site.CalledFunction = Site.File.empty() ? FirstCaller : Closest;
    Sites.push_back(Site);
  }
  return Sites;
}

} // namespace xfertrace
