// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// An evaluation pass once per epoch, beside the training loop of the same
// epoch, is periodic evaluation: its read-backs are what the user wants.
// The training loop's own read-backs are not.
#include <torch/torch.h>
#include <vector>

torch::Device Gpu(torch::kCUDA);

void trainAndValidate(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
                      torch::data::DataLoader<> &Train,
                      torch::data::DataLoader<> &Valid, int Epochs) {
  for (int Epoch = 0; Epoch < Epochs; ++Epoch) {
    double Sum = 0;
    for (auto &Batch : Train) {
      auto Loss = Model(Batch.data.to(Gpu)).mean();
      Opt.zero_grad();
      Loss.backward();
      Opt.step();
      Sum += Loss.item<double>();
      // XFER-WARNING: :[[@LINE-1]]:19: warning: 'item<double>()' synchronizes with the GPU on every iteration of the loop at line 16: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-7]]:5: note: loop starts here
    }
    Model->eval();
    double ValidSum = 0;
    for (auto &Batch : Valid) { // evaluation pass: silent
      auto Loss = Model(Batch.data.to(Gpu)).mean();
      ValidSum += Loss.item<double>();
    }
  }
}

// A training step taken through a helper counts as training too.
void trainStep(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
               const torch::Tensor &X) {
  auto Loss = Model(X).mean();
  Loss.backward();
  Opt.step();
}

void helperTrainsBesideEvaluation(torch::nn::Linear &Model,
                                  torch::optim::Optimizer &Opt,
                                  torch::data::DataLoader<> &Valid,
                                  const torch::Tensor &X, int Epochs) {
  for (int Epoch = 0; Epoch < Epochs; ++Epoch) {
    for (int Step = 0; Step < 100; ++Step)
      trainStep(Model, Opt, X);
    for (auto &Batch : Valid) { // evaluation pass: silent
      auto Out = Model(Batch.data.to(Gpu));
      float Best = Out.sum().item<float>();
      (void)Best;
    }
  }
}

// Without a training loop beside it, a loop over batches is the hot loop
// (an inference application), however it is named.
void inferenceOnly(torch::nn::Linear &Model, torch::data::DataLoader<> &Valid,
                   int Rounds) {
  for (int Round = 0; Round < Rounds; ++Round) {
    for (auto &Batch : Valid) {
      auto Out = Model(Batch.data.to(Gpu));
      float Score = Out.sum().item<float>();
      // XFER-WARNING: :[[@LINE-1]]:31: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 62: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-4]]:5: note: loop starts here
      (void)Score;
    }
  }
}

// A final test pass after the training loop of the same function runs once.
void trainThenTest(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
                   torch::data::DataLoader<> &Train,
                   torch::data::DataLoader<> &Test) {
  for (auto &Batch : Train) {
    auto Loss = Model(Batch.data.to(Gpu)).mean();
    Loss.backward();
    Opt.step();
  }
  long Correct = 0;
  for (auto &Batch : Test) // evaluation pass: silent
    Correct += Model(Batch.data.to(Gpu)).sum().item<long>();
}

// An evaluation helper of this training program: it switches the model to
// evaluation mode first and is called every few hundred steps.
double evaluate(torch::nn::Linear &Model, std::vector<torch::Tensor> &Batches) {
  Model->eval();
  double Sum = 0;
  for (auto &Batch : Batches) // evaluation pass: silent
    Sum += Model(Batch.to(Gpu)).mean().item<double>();
  Model->train();
  return Sum;
}

// A reinforcement-learning rollout beside the update fills the buffers the
// update trains on: it runs on every iteration, like the update, and its
// read-backs are hazards. An evaluation pass stores into no such buffer.
void rolloutThenUpdate(torch::nn::Linear &Policy, torch::optim::Optimizer &Opt,
                       int Iterations, int Steps) {
  Policy->to(Gpu);
  auto Observations = torch::zeros({Steps, 4}, Gpu);
  auto Rewards = torch::zeros({Steps}, Gpu);
  auto Next = torch::zeros({4}, Gpu);
  for (int Iteration = 0; Iteration < Iterations; ++Iteration) {
    for (int Step = 0; Step < Steps; ++Step) {
      torch::NoGradGuard NoGrad;
      Observations[Step] = Next;
      int Action = Policy(Next).sum().item<int>();
      // XFER-WARNING: :[[@LINE-1]]:39: warning: 'item<int>()' synchronizes with the GPU on every iteration of the loop at line 107: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-5]]:5: note: loop starts here
      Rewards[Step] = Next.sum() * static_cast<double>(Action);
    }
    auto Loss = Policy(Observations).mean() + Rewards.mean();
    Opt.zero_grad();
    Loss.backward();
    Opt.step();
  }
}

// A loop that gathers a batch of a couple of samples (a bound set once and
// never changed) is no step loop of its own: the statements beside it run
// on every step.
void gatherThenTrain(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
                     std::vector<torch::Tensor> &Samples, int Steps) {
  int BatchSize = 2;
  for (int Step = 0; Step < Steps; ++Step) {
    std::vector<torch::Tensor> Inputs;
    for (int I = 0; I < BatchSize; ++I)
      Inputs.push_back(Samples[I].index({torch::indexing::Slice(0, 4)}).to(Gpu));
    auto Loss = Model(torch::stack(Inputs)).mean();
    Opt.zero_grad();
    Loss.backward();
    Opt.step();
    (void)Loss.item<float>();
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 128: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-10]]:3: note: loop starts here
  }
}

// A batch loop that calls methods of its elements (`B.to(Gpu)`, a tensor,
// not a part of a model) is the step loop of its function; the evaluation
// beside the call in the epoch loop runs once per epoch.
void trainOnBatches(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
                    std::vector<torch::Tensor> &Batches) {
  for (auto &B : Batches) {
    auto Loss = Model(B.to(Gpu)).mean();
    Opt.zero_grad();
    Loss.backward();
    Opt.step();
  }
}
float validate(torch::nn::Linear &Model, torch::Tensor Held) {
  return Model(Held.to(Gpu)).mean().cpu().item<float>();
}
void epochsOfBatches(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
                     std::vector<torch::Tensor> &Batches, torch::Tensor Held,
                     int Epochs) {
  for (int E = 0; E < Epochs; ++E) {
    trainOnBatches(Model, Opt, Batches);
    float Score = validate(Model, Held);
    (void)Score;
  }
}

// A metrics helper that loops over each validation batch's samples, called
// only from the evaluation pass, is periodic work too, also when the whole
// program is this one file; called from the training loop it is not.
int countMatches(const torch::Tensor &Out, const torch::Tensor &Target) {
  int Matches = 0;
  for (int64_t I = 0; I < Out.size(0); ++I)
    Matches += Out[I].sum().item<int>() == Target[I].sum().item<int>();
  return Matches;
}
int countAgreement(const torch::Tensor &Out, const torch::Tensor &Target) {
  int Agreed = 0;
  for (int64_t I = 0; I < Out.size(0); ++I)
    Agreed += Out[I].sum().item<int>() == Target[I].sum().item<int>();
  // XFER-WARNING: :[[@LINE-1]]:28: warning: 'item<int>()' synchronizes with the GPU on every iteration of the loop at line 178: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  // XFER-WARNING: :[[@LINE-2]]:59: warning: 'item<int>()' synchronizes with the GPU on every iteration of the loop at line 178: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  // XFER-NOTE: :178:3: note: loop starts here
  // XFER-NOTE: :178:3: note: loop starts here
  return Agreed;
}
void trainThenMeasure(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
                      torch::data::DataLoader<> &Train,
                      torch::data::DataLoader<> &Valid, int Epochs) {
  for (int Epoch = 0; Epoch < Epochs; ++Epoch) {
    for (auto &Batch : Train) {
      auto Out = Model(Batch.data.to(Gpu));
      auto Loss = Out.mean();
      Opt.zero_grad();
      Loss.backward();
      Opt.step();
      (void)countAgreement(Out, Batch.target.to(Gpu));
    }
    Model->eval();
    int Correct = 0;
    for (auto &Batch : Valid) // evaluation pass: silent
      Correct += countMatches(Model(Batch.data.to(Gpu)), Batch.target.to(Gpu));
    (void)Correct;
  }
}

// An evaluation helper that collects its losses in a tensor, as nanoGPT's
// estimate_loss does, still only evaluates: it switches the model to
// evaluation mode and takes no training step.
torch::Tensor estimateLoss(torch::nn::Linear &Model,
                           torch::data::DataLoader<> &Valid, int Batches) {
  Model->eval();
  auto Losses = torch::zeros({Batches});
  int K = 0;
  for (auto &Batch : Valid) // evaluation pass: silent
    Losses[K++] = Model(Batch.data.to(Gpu)).mean().item<float>();
  Model->train();
  return Losses.mean();
}

// The same loop in a helper that also trains on what it collects is no
// evaluation pass.
void collectThenTrain(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
                      torch::data::DataLoader<> &Valid, int Batches) {
  Model->eval();
  auto Losses = torch::zeros({Batches});
  int K = 0;
  for (auto &Batch : Valid)
    Losses[K++] = Model(Batch.data.to(Gpu)).mean().item<float>();
  // XFER-WARNING: :[[@LINE-1]]:52: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 227: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  // XFER-NOTE: :227:3: note: loop starts here
  Model->train();
  Losses.mean().backward();
  Opt.step();
}
