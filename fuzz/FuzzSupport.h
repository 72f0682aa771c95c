//===--- FuzzSupport.h - what several fuzz targets assert -----------------===//

#ifndef XFER_TIDY_FUZZ_FUZZSUPPORT_H
#define XFER_TIDY_FUZZ_FUZZSUPPORT_H

#include "OutputFormats.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>
#include <cstdlib>
#include <string>

namespace xfer::fuzz {

/// Aborts (a finding for libFuzzer) unless \p Report, written as xfer-tidy
/// writes its JSON and SARIF reports, parses back as JSON.
inline void requireValidJson(const llvm::json::Value &Report,
                             const char *What) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  xfer::writeJson(OS, Report);
  OS.flush();
  llvm::Expected<llvm::json::Value> Reparsed = llvm::json::parse(Text);
  if (!Reparsed) {
    std::fprintf(stderr, "the %s report is not valid JSON: %s\n%s\n", What,
                 llvm::toString(Reparsed.takeError()).c_str(), Text.c_str());
    std::abort();
  }
}

} // namespace xfer::fuzz

#endif // XFER_TIDY_FUZZ_FUZZSUPPORT_H
