// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
// A data loader collates its dataset's examples on the host, so a batch is
// on the host until the program moves it: a CUDA model called with it is a
// mismatch. A dataset of the program that is given a device (or keeps one)
// moves its tensors there when it is built: its batches may already be on
// the device, and no mismatch is reported.
#include <torch/torch.h>
#include <memory>

class Ratings : public torch::data::datasets::Dataset<Ratings> {
public:
  Ratings(torch::Tensor Pairs, std::shared_ptr<torch::Device> Device)
      : Pairs(Pairs.to(*Device)) {}
  torch::data::Example<> get(size_t Index) override;

private:
  torch::Tensor Pairs;
};

void trainOnDeviceDataset(torch::data::DataLoader<> &Loader) {
  torch::nn::Linear Model(2, 1);
  Model->to(torch::kCUDA);
  for (auto &Batch : Loader)
    Model(Batch.data).sum().backward();
}
