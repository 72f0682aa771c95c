//===- SeedGraphExample.h - Reference loop: graph replay --------*- C++ -*-===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// The CUDA-graph example of the tutorial: Linear(1024, 1024) on a batch of
// 64, squared-error loss, SGD step. Eager steps pay one launch per kernel;
// the captured step replays all of them with one launch.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_REFERENCE_LOOPS_SEEDGRAPHEXAMPLE_H
#define XFER_REFERENCE_LOOPS_SEEDGRAPHEXAMPLE_H

#include <memory>

namespace xferbench {

class SeedGraphExample {
public:
  SeedGraphExample();
  ~SeedGraphExample();
  SeedGraphExample(const SeedGraphExample &) = delete;
  SeedGraphExample &operator=(const SeedGraphExample &) = delete;

  /// \p Steps eager training steps.
  void runEagerSteps(int Steps);
  /// Host time spent in each part of an eager step, summed over steps.
  struct PhaseTimesUs {
    double ZeroGrad = 0;      ///< Optimizer->zero_grad()
    double Linear = 0;        ///< Model->forward(X)
    double Sub = 0;           ///< Prediction - Y
    double Pow = 0;           ///< .pow(2)
    double Sum = 0;           ///< .sum()
    double Backward = 0;      ///< Loss.backward() (returns once launched)
    double OptimizerStep = 0; ///< Optimizer->step()
  };
  /// \p Steps eager training steps, the same as runEagerSteps, with the
  /// host time of each part added to \p Total (steady_clock; no
  /// synchronization: launches return before their kernels run).
  void runEagerStepsPhased(int Steps, PhaseTimesUs &Total);
  /// Captures one step into a CUDA graph (after warm-up on a side stream).
  void capture();
  /// \p Steps replays of the captured step.
  void replaySteps(int Steps);
  /// Re-initializes the weights, replays the captured step once and tells
  /// whether it changed them (the seed's learning rate makes the weights
  /// diverge over many steps, so this is checked on fresh weights).
  bool replayChangesWeights();

private:
  struct State;
  std::unique_ptr<State> Impl;
};

} // namespace xferbench

#endif // XFER_REFERENCE_LOOPS_SEEDGRAPHEXAMPLE_H
