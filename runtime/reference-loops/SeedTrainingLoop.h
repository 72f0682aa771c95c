//===- SeedTrainingLoop.h - Reference loop: the seed's training -*- C++ -*-===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// The training loop of the tutorial the project started from, in LibTorch:
// an MLP 4 -> 128 -> 128 -> 1 trained with Adam on N samples of two
// 2-feature inputs, in the tutorial's three variants. Runs on CUDA or CPU.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_REFERENCE_LOOPS_SEEDTRAININGLOOP_H
#define XFER_REFERENCE_LOOPS_SEEDTRAININGLOOP_H

#include <torch/torch.h>

#include <ostream>

namespace xferbench {

torch::nn::Sequential makeSeedModel();

/// Variant 1 (hazard): inputs drawn on the host and moved to \p Device every
/// iteration; the loss printed with item() every iteration.
float trainWithHostDataEveryIteration(torch::nn::Sequential &Model,
                                      torch::optim::Optimizer &Optimizer,
                                      int64_t Samples, int Iterations,
                                      torch::Device Device, std::ostream &Log);

/// Variant 2: inputs resident on the model's device; loss printed with
/// item() every iteration.
float trainWithResidentDataEveryIteration(torch::nn::Sequential &Model,
                                          torch::optim::Optimizer &Optimizer,
                                          const torch::Tensor &X,
                                          const torch::Tensor &Y,
                                          int Iterations, std::ostream &Log);

/// Variant 3 (the tutorial's fix): inputs resident, loss read every
/// 100 iterations only.
float trainWithResidentDataPrintEvery100(torch::nn::Sequential &Model,
                                         torch::optim::Optimizer &Optimizer,
                                         const torch::Tensor &X,
                                         const torch::Tensor &Y, int Iterations,
                                         std::ostream &Log);

/// One epoch over X/Y in minibatches of \p Batch (the tutorial's "GPU
/// advantage critical point" table). With \p PrintEachStep the loss is read
/// with item() after every step, else once at the end.
float trainOneEpoch(torch::nn::Sequential &Model,
                    torch::optim::Optimizer &Optimizer, const torch::Tensor &X,
                    const torch::Tensor &Y, int64_t Batch, bool PrintEachStep,
                    std::ostream &Log);

} // namespace xferbench

#endif // XFER_REFERENCE_LOOPS_SEEDTRAININGLOOP_H
