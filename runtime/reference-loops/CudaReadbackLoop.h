//===- CudaReadbackLoop.h - Reference loop: residual readback ---*- C++ -*-===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// An iterative solver step (three small kernels) followed by a 4-byte
// cudaMemcpy of the residual to the host for a convergence test. The hazard
// tests every iteration; the fixes test every CheckInterval iterations or
// once after the loop. xfer-bench times them; the analyzer predicts them.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_REFERENCE_LOOPS_CUDAREADBACKLOOP_H
#define XFER_REFERENCE_LOOPS_CUDAREADBACKLOOP_H

#include <vector>

namespace xferbench {

struct RelaxationProblem {
  float *DeviceX = nullptr;
  float *DeviceB = nullptr;
  float *DevicePartialSums = nullptr;
  float *DeviceResidual = nullptr;
  int Size = 0;
};

/// Allocates and fills a problem of \p Size unknowns.
RelaxationProblem createRelaxationProblem(int Size);
void destroyRelaxationProblem(RelaxationProblem &Problem);
/// Puts x back to its initial value so each timed run starts alike.
void resetRelaxationProblem(const RelaxationProblem &Problem);
/// Copies x to the host (for comparing variants bit for bit).
std::vector<float> readSolution(const RelaxationProblem &Problem);

/// Hazard: reads the residual back after every step.
int relaxCheckingEveryIteration(const RelaxationProblem &Problem,
                                int MaxIterations, float Tolerance);
/// Fix: reads the residual back every \p CheckInterval steps.
int relaxCheckingEvery(const RelaxationProblem &Problem, int MaxIterations,
                       float Tolerance, int CheckInterval);
/// Fix: runs a fixed number of steps, reads the residual once at the end.
float relaxThenCheckOnce(const RelaxationProblem &Problem, int Iterations);

} // namespace xferbench

#endif // XFER_REFERENCE_LOOPS_CUDAREADBACKLOOP_H
