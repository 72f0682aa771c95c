//===- TorchInferenceLoop.h - Reference loop: batched inference -*- C++ -*-===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// A small classifier run over batches already on the device. The hazards
// read a per-batch result back to the host every iteration (item() or
// cpu()); the fixes keep the results on the device and read 100 iterations'
// worth at once, adding no work to the other iterations.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_REFERENCE_LOOPS_TORCHINFERENCELOOP_H
#define XFER_REFERENCE_LOOPS_TORCHINFERENCELOOP_H

#include <torch/torch.h>

#include <vector>

namespace xferbench {

/// MLP 256 -> 512 -> 512 -> 10.
torch::nn::Sequential makeClassifier();

/// Hazard: the batch's top softmax probability via item() every iteration.
/// Returns the mean confidence.
float meanConfidenceReadingEachBatch(torch::nn::Sequential &Model,
                                     const std::vector<torch::Tensor> &Batches,
                                     int Iterations);
/// Fix: confidences kept on the device, summed and read every 100
/// iterations.
float meanConfidenceReadingEvery100(torch::nn::Sequential &Model,
                                    const std::vector<torch::Tensor> &Batches,
                                    int Iterations);

/// Hazard: the batch's predicted classes copied to the host with cpu()
/// every iteration to count class 0. Returns the count.
int64_t
countClassZeroCopyingEachBatch(torch::nn::Sequential &Model,
                               const std::vector<torch::Tensor> &Batches,
                               int Iterations);
/// Fix: predictions kept on the device, copied 100 batches at a time.
int64_t countClassZeroReadingEvery100(torch::nn::Sequential &Model,
                                      const std::vector<torch::Tensor> &Batches,
                                      int Iterations);

} // namespace xferbench

#endif // XFER_REFERENCE_LOOPS_TORCHINFERENCELOOP_H
