// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
#include <torch/torch.h>
#include <iostream>

// Several values read back one after another in an iteration wait once: the
// first read drains the queue. One finding, the others as notes on it.
void keypointCoordinates(torch::Tensor Xs, torch::Tensor Ys, int N) {
  auto X = Xs.to(torch::kCUDA);
  auto Y = Ys.to(torch::kCUDA);
  for (int I = 0; I < N; ++I) {
    int Col = X[I].item<int>();
    // XFER-WARNING: :[[@LINE-1]]:20: warning: 'item<int>()' synchronizes with the GPU on every iteration of the loop at line 11: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:20: note: each iteration reads one element of 'X': copy it to the host once before the loop ('X.cpu()') and read the elements there, one wait instead of one per element
    int Row = Y[I].item<int>();
    // XFER-NOTE: :[[@LINE-1]]:20: note: the same iteration reads back here too, with no GPU work in between: copy these values together in one transfer
    std::cout << Col << Row << X[I].item<float>() << "\n";
    // XFER-NOTE: :[[@LINE-1]]:37: note: the same iteration reads back here too, with no GPU work in between: copy these values together in one transfer
  }
}

// Work queued between two reads makes the second wait again: two findings.
void lossAndAccuracy(torch::nn::Linear Model, torch::Tensor Input, int N) {
  Model->to(torch::kCUDA);
  auto X = Input.to(torch::kCUDA);
  for (int I = 0; I < N; ++I) {
    auto Out = Model->forward(X);
    float Loss = Out.mean().item<float>();
    // XFER-WARNING: :[[@LINE-1]]:29: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 27: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    auto Again = Model->forward(X);
    float Max = Again.sum().item<float>();
    // XFER-WARNING: :[[@LINE-1]]:29: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 27: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-8]]:3: note: loop starts here
    (void)Loss;
    (void)Max;
  }
}

// A copy moves its own bytes: two copies stay two findings; a value read
// after a copy is a note on the copy.
void copiesThenValue(torch::Tensor Input, int N) {
  auto X = Input.to(torch::kCUDA);
  for (int I = 0; I < N; ++I) {
    auto A = X.cpu();
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'cpu()' copies device memory to the host on every iteration of the loop at line 45: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    auto B = X.cpu();
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'cpu()' copies device memory to the host on every iteration of the loop at line 45: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-6]]:3: note: loop starts here
    float V = X[0].item<float>();
    // XFER-NOTE: :[[@LINE-1]]:20: note: the same iteration reads back here too, with no GPU work in between: copy these values together in one transfer
    (void)A;
    (void)B;
    (void)V;
  }
}

// A read in a branch's condition is not joined with the reads after the
// branch, in either direction: both stay findings.
void readInCondition(torch::Tensor Flags, torch::Tensor Xs, int N) {
  auto F = Flags.to(torch::kCUDA);
  auto X = Xs.to(torch::kCUDA);
  for (int I = 0; I < N; ++I) {
    if (F[I].item<int>() == 0)
      continue;
    // XFER-WARNING: :[[@LINE-2]]:14: warning: 'item<int>()' synchronizes with the GPU on every iteration of the loop at line 65: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-4]]:14: note: each iteration reads one element of 'F': copy it to the host once before the loop ('F.cpu()') and read the elements there, one wait instead of one per element
    float A = X[I].item<float>();
    // XFER-WARNING: :[[@LINE-1]]:20: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 65: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-8]]:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:20: note: each iteration reads one element of 'X': copy it to the host once before the loop ('X.cpu()') and read the elements there, one wait instead of one per element
    float B = X[I + 1].item<float>();
    // XFER-NOTE: :[[@LINE-1]]:24: note: the same iteration reads back here too, with no GPU work in between: copy these values together in one transfer
    std::cout << A + B << "\n";
  }
}
