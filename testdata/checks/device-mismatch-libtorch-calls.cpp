// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
#include <torch/torch.h>

void methods(torch::Tensor Unknown) {
  auto X = torch::randn({8, 16}).to(torch::kCUDA);
  auto W = torch::ones({16, 4});
  auto Batch = torch::ones({2, 16, 4}, torch::Device("cpu"));
  auto Index = torch::zeros({2}, torch::kLong);
  auto Mask = torch::zeros({8, 16}) > 0.5;
  (void)X.add(W);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'add' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)X.sub(W).div(X);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'sub' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)W.mul(X);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'mul' mixes a cpu tensor and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)X.matmul(W);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'matmul' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)X.mm(W);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'mm' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)Batch.bmm(X.view({1, 8, 16}));
  // XFER-WARNING: :[[@LINE-1]]:15: warning: 'bmm' mixes a cpu tensor and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)X.index_select(0, Index);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'index_select' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)X.masked_fill(Mask, 0.0);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'masked_fill' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]

  // Negatives: copying between devices is what copy_ and to() are for; the
  // *_as methods only read the other tensor's shape; unknown placements and
  // same-device operations are not reported.
  W.copy_(X);
  X.copy_(W, /*NonBlocking=*/true);
  (void)W.to(X);
  (void)W.view_as(X);
  (void)X.add(Unknown);
  (void)X.add(W.cuda());
  (void)X.cpu().matmul(W);
  (void)X.add(W.to(X));
  (void)X[Index];
  auto Moved = W;
  Moved = X;
  (void)Moved.add(X);
}

void freeFunctions() {
  auto A = torch::randn({3}, torch::TensorOptions().device(torch::kCUDA));
  auto B = torch::randn({3});
  (void)torch::cat({A, B});
  // XFER-WARNING: :[[@LINE-1]]:9: warning: 'at::cat' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)torch::stack({B, B, A}, 1);
  // XFER-WARNING: :[[@LINE-1]]:9: warning: 'at::stack' mixes a cpu tensor and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)torch::where(A > 0.0, A, B);
  // XFER-WARNING: :[[@LINE-1]]:9: warning: 'at::where' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)torch::mse_loss(B, A);
  // XFER-WARNING: :[[@LINE-1]]:9: warning: 'at::mse_loss' mixes a cpu tensor and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)torch::nn::functional::mse_loss(A, B);
  // XFER-WARNING: :[[@LINE-1]]:9: warning: 'torch::nn::functional::mse_loss' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)torch::matmul(A, B.cuda());
  (void)torch::cat({A.cpu(), B});
  (void)torch::nn::functional::linear(A, A.view({1, 3}));
}

// 0-dim CPU tensors are read as scalars next to CUDA tensors: legal.
void scalarTensors(torch::Tensor Weights) {
  auto G = torch::randn({3}, torch::kCUDA);
  auto Two = torch::tensor(2.0);
  auto Three = torch::scalar_tensor(3.0);
  auto Total = torch::randn({3}).sum();
  (void)(G * Two);
  (void)(G / torch::tensor(2.0));
  (void)G.add(Three);
  (void)G.sub(Total);
  (void)torch::where(G > 0.0, G, torch::scalar_tensor(0.0));
  // Arithmetic of a 0-dim tensor and numbers stays 0-dim (a mixing weight).
  auto Lambda = torch::rand({4}).sum();
  (void)(Lambda * G + (1 - Lambda) * G);
  // A 1-element list is not a scalar.
  (void)(G * torch::tensor({2.0f}));
  // XFER-WARNING: :[[@LINE-1]]:12: warning: 'operator*' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // ... nor is arithmetic that involves a full-size host tensor.
  (void)((1 - Lambda * torch::ones({3})) * G);
  // XFER-WARNING: :[[@LINE-1]]:42: warning: 'operator*' mixes a cpu tensor and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
}

// One element of a host list of numbers or of a range is a 0-dim tensor:
// legal next to CUDA tensors. A row of a host matrix is not.
void elementsOfHostLists(torch::Tensor Gradient, int64_t Trials) {
  auto G = torch::randn({3}, torch::kCUDA);
  auto Deltas = torch::tensor({0.001, 0.01, 0.1});
  auto Steps = torch::arange(4.0);
  for (int64_t I = 0; I < Trials; ++I) {
    (void)(Deltas[I] * G);
    (void)(G + Steps[I]);
  }
  auto Rows = torch::ones({3, 3});
  (void)(Rows[0] * G);
  // XFER-WARNING: :[[@LINE-1]]:18: warning: 'operator*' mixes a cpu tensor and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
}

// A helper of the program that computes only with its parameters returns a
// 0-dim tensor when given 0-dim tensors; a host scalar tensor divided by a
// CUDA tensor leaves a CUDA tensor. A helper that makes a full-size tensor
// of its own does not return a scalar.
torch::Tensor boxArea(torch::Tensor W, torch::Tensor H) {
  torch::Tensor Pad = (W + H) * 0.5;
  return (W + Pad) * (H + Pad);
}
torch::Tensor padded(torch::Tensor W) { return W + torch::ones({3}); }
void scalarsThroughHelpers(float Width, float Height) {
  auto Box = torch::randn({4}, torch::kCUDA);
  (void)(boxArea(Box, Box) /
         boxArea(torch::tensor(Width), torch::tensor(Height)));
  auto Ratio = torch::tensor(Width / Height) / Box;
  (void)(Ratio * Box);
  (void)(Box * padded(torch::tensor(Width)));
  // XFER-WARNING: :[[@LINE-1]]:14: warning: 'operator*' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
}
