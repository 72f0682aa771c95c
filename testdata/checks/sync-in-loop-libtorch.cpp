// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
#include <torch/torch.h>
#include <iostream>

torch::Device Gpu(torch::kCUDA);

void perIterationReadback(const torch::Tensor &W) {
  for (int I = 0; I < 1000; ++I) {
    torch::Tensor X = torch::randn({1000, 4}, Gpu);
    torch::Tensor Loss = X.matmul(W).mean();
    float Value = Loss.item<float>();
    // XFER-WARNING: :[[@LINE-1]]:24: warning: 'item<float>()' synchronizes with the GPU on each of 1000 iterations of the loop at line 9: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-5]]:3: note: loop starts here
    std::cout << Value << Loss << "\n";
    // XFER-NOTE: :[[@LINE-1]]:24: note: the same iteration reads back here too, with no GPU work in between: copy these values together in one transfer
    // The value was read back just before: one wait, noted on the first.
  }
}

// The fix the seed documents recommend: read back every N iterations.
void guardedReadback(const torch::Tensor &W, int Iters, int LogEvery) {
  auto X = torch::randn({1000, 4}, torch::kCUDA);
  for (int I = 0; I < Iters; ++I) {
    auto Loss = X.matmul(W).mean();
    if (I % 100 == 0)
      std::cout << Loss.item<float>() << "\n";
    if (I % LogEvery == 0)
      std::cout << Loss.item<double>() << "\n";
    if ((I + 1) % 50 == 0 && I > 0)
      std::cout << Loss.item<double>() << "\n";
    if (I == Iters - 1)
      std::cout << Loss.item<float>() << "\n";
  }
  // Outside any loop: paid once.
  std::cout << X.mean().item<float>() << "\n";
}

// Frequent guards are still per-iteration hazards at the default threshold.
void everyOtherIteration(torch::Tensor Loss) {
  for (int I = 0; I < 100; ++I) {
    if (I % 2 == 0)
      (void)Loss.cuda().item<float>();
    // XFER-WARNING: :[[@LINE-1]]:25: warning: 'item<float>()' synchronizes with the GPU once every 2 iterations of the loop at line 41: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
  }
}

// Tensors known to be on the host never synchronize.
void hostTensors() {
  torch::Tensor Cpu = torch::randn({3});
  for (int I = 0; I < 10; ++I) {
    float A = Cpu.item<float>();
    float B = Cpu.cuda().cpu().item<float>();
    (void)A;
    (void)B;
  }
}

// All the synchronizing LibTorch operations, through at:: and torch::
// spellings, aliases and auto.
using Tensor = at::Tensor;
void everySyncingOperation(Tensor T, at::Tensor Mask, int N) {
  auto G = T.to(torch::kCUDA);
  while (N-- > 0) {
    (void)G.item(); G.add_(G); // new work: a new wait
    // XFER-WARNING: :[[@LINE-1]]:13: warning: 'item()' synchronizes with the GPU on every iteration of the loop at line 65: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    (void)G.equal(G); G.add_(G); // new work: a new wait
    // XFER-WARNING: :[[@LINE-1]]:13: warning: 'equal()' synchronizes with the GPU on every iteration of the loop at line 65: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-6]]:3: note: loop starts here
    (void)torch::allclose(G, G); G.add_(G); // new work: a new wait
    // XFER-WARNING: :[[@LINE-1]]:11: warning: 'at::allclose()' synchronizes with the GPU on every iteration of the loop at line 65: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-9]]:3: note: loop starts here
    (void)G.is_nonzero(); G.add_(G); // new work: a new wait
    // XFER-WARNING: :[[@LINE-1]]:13: warning: 'is_nonzero()' synchronizes with the GPU on every iteration of the loop at line 65: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-12]]:3: note: loop starts here
    auto Idx = G.nonzero(); G.add_(G); // new work: a new wait
    // XFER-WARNING: :[[@LINE-1]]:18: warning: 'nonzero()' synchronizes with the GPU on every iteration of the loop at line 65: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-15]]:3: note: loop starts here
    auto Sel = at::masked_select(G, Mask); G.add_(G); // new work: a new wait
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'at::masked_select()' synchronizes with the GPU on every iteration of the loop at line 65: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-18]]:3: note: loop starts here
    auto Row = G[Idx]; G.add_(G); // new work: a new wait
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'operator[] with a tensor index' synchronizes with the GPU on every iteration of the loop at line 65: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-21]]:3: note: loop starts here
    auto Unique = G.unique_consecutive();
    // XFER-WARNING: :[[@LINE-1]]:21: warning: 'unique_consecutive()' synchronizes with the GPU on every iteration of the loop at line 65: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-24]]:3: note: loop starts here
    auto Scalar = G[0];      // an integer index stays on the device
    auto Sum = G.add(G) * 2; // queued, not waited for
    torch::cuda::synchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'torch::cuda::synchronize()' synchronizes with the GPU on every iteration of the loop at line 65: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-29]]:3: note: loop starts here
    (void)Sel;
    (void)Row;
    (void)Unique;
    (void)Scalar;
    (void)Sum;
  }
}

// Range-for and do-while loops; a lambda called directly is not a loop.
void otherLoops(const std::vector<torch::Tensor> &Batch) {
  for (const auto &T : Batch)
    (void)T.cuda().item<int>();
  // XFER-WARNING: :[[@LINE-1]]:20: warning: 'item<int>()' synchronizes with the GPU on every iteration of the loop at line 105: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
  int K = 0;
  do {
    (void)Batch[0].cuda().item<int>();
    // XFER-WARNING: :[[@LINE-1]]:27: warning: 'item<int>()' synchronizes with the GPU on every iteration of the loop at line 110: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
  } while (++K < 3);
  auto ReadOnce = [&] { return Batch[0].cuda().item<int>(); };
  (void)ReadOnce();
}

// A loop that stops right after reading back pays the sync once.
int findFirstPositive(const std::vector<torch::Tensor> &Values) {
  for (const auto &V : Values) {
    auto G = V.cuda();
    // Runs every iteration, but decides whether the loop goes on: a
    // termination check (see loop-roles-termination.cpp), silent.
    if (G.mean().item<float>() > 0.0f) {
      std::cout << G.sum().item<float>() << "\n";
      return 1;
    }
  }
  return 0;
}

// Accumulate on the device and flush every N: the batched-readback fix.
void flushEvery100(const std::vector<torch::Tensor> &Batches) {
  std::vector<torch::Tensor> Pending;
  int Count = 0;
  for (const auto &Batch : Batches) {
    Pending.push_back(Batch.cuda().sum());
    if (Pending.size() == 100) {
      (void)torch::cat(Pending).sum().item<double>();
      Pending.clear();
    }
    if (++Count >= 50) {
      (void)Batch.cuda().item<float>();
      Count = 0;
    }
    // Without a reset, the guard is not a period: every iteration after 10.
    if (Pending.size() >= 10)
      (void)Batch.cuda().item<float>();
    // XFER-WARNING: :[[@LINE-1]]:26: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 137: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-14]]:3: note: loop starts here
  }
}

// An operation that mixes a device tensor with a host one throws on a GPU
// run (xfer-device-mismatch reports it); once the host operand is moved, its
// result lives on the device, and reading it every step is a sync of its own.
void lossOfMixedOperands(torch::nn::Linear &Model, int Steps) {
  torch::Device Device(torch::kCUDA);
  Model->to(Device);
  for (int Step = 0; Step < Steps; ++Step) {
    auto Output = Model(torch::randn({8, 16}, Device));
    auto Labels = torch::zeros({8, 16}); // on the host: the mismatch
    auto Loss = (Output - Labels).sum();
    std::cout << Loss.item<float>() << "\n";
    // XFER-WARNING: :[[@LINE-1]]:23: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 161: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :161:3: note: loop starts here
  }
}

// A training step handed to the batch loop as a std::function runs on every
// batch: what the lambda does (clipping each parameter's gradient, which
// reads its norm back) is a cost of the call in the loop. A loop over the
// parameters inside it is part of one step, not a step loop of its own.
#include <functional>
void eachBatch(torch::nn::Linear &Model, std::vector<torch::Tensor> &Inputs,
               std::function<void(torch::Tensor)> Step,
               std::function<void(torch::Tensor)> Report) {
  for (auto &Input : Inputs) {
    torch::Tensor Loss = Model->forward(Input.to(Gpu)).sum();
    Step(Loss);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'Step()' synchronizes with the GPU on every iteration of the loop at line 179: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :179:3: note: loop starts here
    // XFER-NOTE: :194:7: note: 'torch::nn::utils::clip_grad_norm_()' synchronizes with the GPU here
    Report(Loss);
  }
}
void trainWithClipping(torch::nn::Linear &Model,
                       std::vector<torch::Tensor> &Inputs) {
  Model->to(Gpu);
  auto Step = [&](torch::Tensor Loss) {
    Loss.backward();
    for (auto &Parameter : Model->parameters())
      torch::nn::utils::clip_grad_norm_({Parameter}, 1.0);
  };
  auto Report = [&](torch::Tensor Loss) { (void)Loss; };
  eachBatch(Model, Inputs, Step, Report);
}
