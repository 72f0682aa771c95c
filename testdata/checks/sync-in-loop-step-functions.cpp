// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// A module's forward() runs once per step of the model even where no loop
// around it is visible: its read-backs of device tensors are per-step
// costs. Where a loop in this file calls it, the warning is at that call.
#include <torch/torch.h>

struct GateImpl : torch::nn::Module {
  torch::Tensor Scale = torch::ones({4}, torch::kCUDA);
  torch::Tensor forward(const torch::Tensor &X) {
    if (Scale.sum().item<float>() > 4.0f)
    // XFER-WARNING: :[[@LINE-1]]:21: warning: 'item<float>()' synchronizes with the GPU on every call of 'GateImpl::forward()', once per step of the model: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      return X;
    return X * Scale;
  }
  // Not forward(): runs when called, and nothing here calls it in a loop.
  float summary() { return Scale.sum().item<float>(); }
};

// A module's inputs are on the module's device: in a program that uses a
// GPU, a debugging check of them is a per-step sync.
struct CheckedImpl : torch::nn::Module {
  torch::nn::Linear Layer{4, 4};
  torch::Tensor forward(const torch::Tensor &X) {
    if (X.sum().item<float>() > 1e6f)
    // XFER-WARNING: :[[@LINE-1]]:17: warning: 'item<float>()' synchronizes with the GPU on every call of 'CheckedImpl::forward()', once per step of the model: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      return X * 0.0;
    return X;
  }
};

// A plain struct's forward() is not a module's.
struct Helper {
  torch::Tensor Scale = torch::ones({4}, torch::kCUDA);
  float forward() { return Scale.sum().item<float>(); }
};

struct HeadImpl : torch::nn::Module {
  torch::Tensor Bias = torch::ones({4}, torch::kCUDA);
  torch::Tensor forward(const torch::Tensor &X) {
    float B = Bias.sum().item<float>();
    return X * B;
  }
};

void run(HeadImpl &Head, const torch::Tensor &X, int Steps) {
  for (int I = 0; I < Steps; ++I)
    Head.forward(X);
  // XFER-WARNING: :[[@LINE-1]]:10: warning: 'forward()' synchronizes with the GPU on every iteration of the loop at line 47: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
  // XFER-NOTE: :[[@LINE-10]]:26: note: 'item<float>()' synchronizes with the GPU here
}

// A loop inside forward(): what runs once per image, between the loops over
// its detections, still runs on every step.
struct DetectImpl : torch::nn::Module {
  torch::Tensor Anchors = torch::ones({4}, torch::kCUDA);
  torch::Tensor forward(const torch::Tensor &X) {
    torch::Tensor Kept = X;
    for (int Image = 0; Image < X.size(0); ++Image) {
      torch::Tensor Boxes = torch::nonzero(X[Image] * Anchors);
      // XFER-WARNING: :[[@LINE-1]]:29: warning: 'at::nonzero()' synchronizes with the GPU on every call of 'DetectImpl::forward()', once per step of the model: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      for (int64_t Box = 0; Box < Boxes.size(0); ++Box)
        Kept = Kept + Boxes[Box];
    }
    return Kept;
  }
};
