// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// Corpus: an inner loop that only collates a batch (moving or converting
// tensors element by element) is not the batch loop of an epoch, so the
// read-back after it still runs on every batch.
#include <torch/torch.h>
#include <vector>

void trainStep(
    std::vector<std::vector<torch::Tensor>> &Batches, int Size) {
  for (auto &Batch : Batches) {
    std::vector<torch::Tensor> Images;
    for (int I = 0; I < Size; ++I)
      Images.push_back(Batch[I].to(torch::kCUDA));
    auto Loss = torch::stack(Images).mean();
    (void)Loss.item<float>();
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 11: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-7]]:3: note: loop starts here
  }
}

// An inner loop bounded by a tensor's size that fills a host vector (a
// column of begin-of-sequence tokens) reads metadata, queues nothing.
struct Vocabulary {
  long operator[](const char *Token) const { return Token[0]; }
};

void decodeStep(std::vector<torch::Tensor> &Batches, const Vocabulary &Vocab) {
  for (auto &Y : Batches) {
    std::vector<long> Column;
    for (int I = 0; I < Y.size(0); ++I)
      Column.push_back(Vocab["<bos>"]);
    auto Loss = Y.to(torch::kCUDA).mean();
    (void)Loss.item<float>();
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 29: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-7]]:3: note: loop starts here
  }
}

// A helper that decodes a result by reading it back element by element
// computes nothing: it is no step loop, and the read-back beside its call
// still runs on every image.
std::string decode(const torch::Tensor &Indices, int Length) {
  std::string Text;
  for (int I = 0; I < Length; ++I)
    Text.push_back(static_cast<char>(Indices[I].item<int>()));
  // XFER-WARNING: :[[@LINE-1]]:49: warning: 'item<int>()' synchronizes with the GPU on every iteration of the loop at line 45: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
  // XFER-NOTE: :[[@LINE-3]]:49: note: each iteration reads one element of 'Indices': copy it to the host once before the loop ('Indices.cpu()') and read the elements there, one wait instead of one per element
  return Text;
}

void recognise(std::vector<torch::Tensor> &Crops, std::vector<std::string> &Out) {
  for (auto &Crop : Crops) {
    auto Scores = Crop.to(torch::kCUDA).mul(Crop.to(torch::kCUDA));
    (void)Scores.mean().item<float>();
    // XFER-WARNING: :[[@LINE-1]]:25: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 54: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    Out.push_back(decode(Scores.view({-1}), 8));
    // XFER-WARNING: :[[@LINE-1]]:19: warning: 'decode()' synchronizes with the GPU on every iteration of the loop at line 54: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-7]]:3: note: loop starts here
    // XFER-NOTE: :46:49: note: 'item<int>()' synchronizes with the GPU here
  }
}

// An inner loop that compares the shapes of a batch's images on the host
// (LibTorch's size lists are host containers) queues no device work either.
void sameShapes(const std::vector<torch::Tensor> &Images, torch::Device Gpu,
                int BatchSize) {
  for (size_t I = 0; I < Images.size(); I += BatchSize) {
    bool Same = true;
    auto First = Images[I].sizes();
    for (size_t J = I; J < I + BatchSize; ++J) {
      auto Current = Images[J].sizes();
      for (const int64_t *D = Current.begin(), *F = First.begin();
           D != Current.end(); ++D, ++F)
        Same = Same && *D == *F;
    }
    auto Out = Images[I].to(Gpu).mean();
    (void)Out.sum().item<float>();
    // XFER-WARNING: :[[@LINE-1]]:21: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 70: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-12]]:3: note: loop starts here
  }
}
