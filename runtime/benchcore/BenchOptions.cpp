//===- BenchOptions.cpp - xfer-bench command line -------------------------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "benchcore/BenchOptions.h"

#include <algorithm>
#include <cstring>

namespace xferbench {

bool globMatches(const std::string &Pattern, const std::string &Text) {
  // Iterative matcher with single-star backtracking: linear in practice and
  // no recursion on hostile patterns.
  size_t P = 0, T = 0, StarP = std::string::npos, StarT = 0;
  while (T < Text.size()) {
    if (P < Pattern.size() && (Pattern[P] == '?' || Pattern[P] == Text[T])) {
      ++P;
      ++T;
    } else if (P < Pattern.size() && Pattern[P] == '*') {
      StarP = P++;
      StarT = T;
    } else if (StarP != std::string::npos) {
      P = StarP + 1;
      T = ++StarT;
    } else {
      return false;
    }
  }
  while (P < Pattern.size() && Pattern[P] == '*')
    ++P;
  return P == Pattern.size();
}

bool BenchOptions::selects(const std::string &PatternId) const {
  if (OnlyGlobs.empty())
    return true;
  for (const auto &Glob : OnlyGlobs)
    if (globMatches(Glob, PatternId))
      return true;
  return false;
}

bool BenchOptions::selectsAnyWithPrefix(const std::string &Prefix) const {
  if (OnlyGlobs.empty())
    return true;
  for (const auto &Glob : OnlyGlobs) {
    // Conservative: a glob may select an id starting with Prefix when its
    // literal head (up to the first wildcard) agrees with Prefix as far as
    // both go. A false "yes" only costs a group's setup.
    size_t Wildcard = Glob.find_first_of("*?");
    if (Wildcard == std::string::npos) {
      if (Glob.compare(0, Prefix.size(), Prefix) == 0)
        return true;
      continue;
    }
    size_t Common = std::min(Wildcard, Prefix.size());
    if (Glob.compare(0, Common, Prefix, 0, Common) == 0)
      return true;
  }
  return false;
}

std::string benchUsage(const char *ProgramName) {
  std::string Name = ProgramName ? ProgramName : "xfer-bench";
  return "usage: " + Name +
         " [--output <costs.json>] [--quick] [--only <pattern-glob>]... "
         "[--help]\n"
         "\n"
         "Measures what host<->device transfers and synchronizations cost on\n"
         "this machine's first CUDA device and writes the xfer-tidy cost\n"
         "model (JSON schema version 1).\n"
         "\n"
         "  --output <file>   write the cost model to <file> (atomically:\n"
         "                    a temporary file renamed into place)\n"
         "  --quick           fewer repetitions and sizes (a sanity pass)\n"
         "  --only <glob>     measure only pattern ids matching <glob>\n"
         "                    ('*' and '?'; repeatable, or comma-separated)\n"
         "  --help            print this text\n"
         "\n"
         "Exit status: 0 success, 1 a CUDA call or check failed, 2 no CUDA\n"
         "device, 64 bad command line.\n";
}

static void appendGlobs(const std::string &List,
                        std::vector<std::string> &Out) {
  size_t Start = 0;
  while (Start <= List.size()) {
    size_t Comma = List.find(',', Start);
    if (Comma == std::string::npos)
      Comma = List.size();
    if (Comma > Start)
      Out.push_back(List.substr(Start, Comma - Start));
    Start = Comma + 1;
  }
}

bool parseBenchOptions(int Argc, const char *const *Argv, BenchOptions &Out,
                       std::string &Error) {
  Out = BenchOptions();
  for (int I = 1; I < Argc; ++I) {
    std::string Arg = Argv[I];
    std::string Value;
    bool HasInlineValue = false;
    if (Arg.rfind("--", 0) == 0) {
      size_t Equals = Arg.find('=');
      if (Equals != std::string::npos) {
        Value = Arg.substr(Equals + 1);
        Arg = Arg.substr(0, Equals);
        HasInlineValue = true;
      }
    }
    auto TakeValue = [&](const char *Option) {
      if (HasInlineValue)
        return true;
      if (I + 1 >= Argc) {
        Error = std::string(Option) + " needs a value";
        return false;
      }
      Value = Argv[++I];
      return true;
    };
    if (Arg == "--help" || Arg == "-h") {
      Out.Help = true;
    } else if (Arg == "--quick") {
      Out.Quick = true;
    } else if (Arg == "--output" || Arg == "-o") {
      if (!TakeValue("--output"))
        return false;
      if (Value.empty()) {
        Error = "--output needs a non-empty file name";
        return false;
      }
      Out.OutputPath = Value;
    } else if (Arg == "--only") {
      if (!TakeValue("--only"))
        return false;
      size_t Before = Out.OnlyGlobs.size();
      appendGlobs(Value, Out.OnlyGlobs);
      if (Out.OnlyGlobs.size() == Before) {
        Error = "--only needs a non-empty pattern glob";
        return false;
      }
    } else {
      Error = "unknown argument '" + std::string(Argv[I]) + "'";
      return false;
    }
  }
  return true;
}

} // namespace xferbench
