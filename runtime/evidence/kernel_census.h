// What a stretch of a program launches on the GPU, read with CUPTI's
// activity API: every kernel, memset and memcpy that ran, and every CUDA
// runtime and driver API call made, by name. For seed_graph_measure's
// count of what one eager step of the seed graph example launches.
#ifndef XFER_EVIDENCE_KERNEL_CENSUS_H
#define XFER_EVIDENCE_KERNEL_CENSUS_H

#include <cstdint>
#include <map>
#include <string>

namespace census {

struct Counts {
  std::map<std::string, uint64_t> Kernels;    // demangled name -> count
  std::map<std::string, uint64_t> RuntimeApi; // cudaXxx -> count
  std::map<std::string, uint64_t> DriverApi;  // cuXxx -> count
  uint64_t KernelsInGraphs = 0;               // kernels with a graph id
  uint64_t Memsets = 0, Memcpys = 0, Dropped = 0;
  uint64_t kernels() const;
};

/// Registers the buffers (once) and enables the activity kinds. Returns
/// false, having printed the CUPTI error, when CUPTI cannot be used.
bool start();
/// Flushes and disables the activity kinds; what ran since start().
/// Returns false, having printed the CUPTI error, on failure.
bool stop(Counts &Out);

} // namespace census

#endif
