//===- HostProvenance.h - Facts about the host a run happened on -*- C++
//-*-===//
//
// Part of xfer-tidy. Host-only.
//
//===----------------------------------------------------------------------===//
//
// Only facts that explain a number go into a cost model: CPU model, core
// count, date. The host name and file-system paths are deliberately left out
// so that a committed model says nothing about the machine beyond that.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_BENCHCORE_HOSTPROVENANCE_H
#define XFER_BENCHCORE_HOSTPROVENANCE_H

#include <ctime>
#include <optional>
#include <string>

namespace xferbench {

/// The "model name" line of a /proc/cpuinfo text, or "" if it has none.
std::string cpuModelFromCpuinfo(const std::string &CpuinfoText);
/// The CPU model of this machine ("unknown" where unreadable).
std::string readCpuModel();
unsigned logicalCoreCount();

/// ISO 8601 UTC time, e.g. "2026-11-22T10:04:05Z".
std::string formatUtc(std::time_t Time);
std::string utcNow();

/// The NVIDIA kernel driver version from a /proc/driver/nvidia/version text
/// ("NVRM version: NVIDIA UNIX ... Kernel Module  580.159.04  ...").
std::optional<std::string> driverFromProcVersion(const std::string &Text);

/// The command line as a shell would read it back, with the program's
/// directory dropped (it would name a path on the measuring machine).
std::string joinCommandLine(int Argc, const char *const *Argv);

/// Reads a whole file; nullopt if it cannot be opened.
std::optional<std::string> readTextFile(const std::string &Path);

/// Writes \p Contents to \p Path so that readers never see a partial file:
/// a temporary file next to it is written, flushed to disk and renamed over
/// \p Path. On failure the temporary is removed, \p Path is left as it was,
/// \p Error says why and false is returned.
bool writeFileAtomically(const std::string &Path, const std::string &Contents,
                         std::string &Error);

} // namespace xferbench

#endif // XFER_BENCHCORE_HOSTPROVENANCE_H
