// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
// A dataset of the program that is given no device leaves its examples on
// the host: a CUDA model called with a batch of them is a mismatch.
#include <torch/torch.h>

class Images : public torch::data::datasets::Dataset<Images> {
public:
  explicit Images(torch::Tensor Pixels) : Pixels(Pixels) {}
  torch::data::Example<> get(size_t Index) override;

private:
  torch::Tensor Pixels;
};

void trainOnHostDataset(torch::data::DataLoader<> &Loader) {
  torch::nn::Linear Model(2, 1);
  Model->to(torch::kCUDA);
  for (auto &Batch : Loader)
    Model(Batch.data).sum().backward();
  // XFER-WARNING: :[[@LINE-1]]:5: warning: calling 'Model' mixes a cuda module and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
}
