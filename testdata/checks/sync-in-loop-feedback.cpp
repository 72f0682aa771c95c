// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// A value the host needs to make the loop's next input (the action that
// steps a game whose observation is uploaded next) must come back on every
// iteration: the device cannot run ahead of the host's answer. Such a
// feedback read-back is necessary work, silent by default
// (ReportFeedbackReadBacks reports it). A value read back only for logging
// is still a hazard, and so are element-by-element reads of one tensor.
#include <torch/torch.h>
#include <vector>

struct Observation {
  std::vector<float> Features;
  bool Done;
};
struct Game {
  Observation reset();
  Observation step(int Action);
};
struct Games {
  std::vector<Observation> step(const std::vector<int> &Actions);
};

torch::Device Gpu(torch::kCUDA);

void play(torch::nn::Linear &Policy, Game &Env) {
  Observation State = Env.reset();
  double Total = 0;
  while (true) {
    auto Input = torch::from_blob(State.Features.data(), {4}).to(Gpu);
    auto Scores = Policy(Input);
    int Action = Scores.sum().item<int>(); // feedback: silent
    State = Env.step(Action);
    Total += Scores.mean().item<double>();
    // XFER-WARNING: :[[@LINE-1]]:28: warning: 'item<double>()' synchronizes with the GPU on every iteration of the loop at line 29: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-7]]:3: note: loop starts here
    if (State.Done)
      State = Env.reset();
  }
}

// Many environments: the actions are needed, but one copy of them all
// would do where each element is read on its own.
void playMany(torch::nn::Linear &Policy, Games &Envs, int Count, int Steps) {
  std::vector<Observation> States(Count);
  std::vector<int> Actions(Count);
  for (int Step = 0; Step < Steps; ++Step) {
    auto Input = torch::from_blob(States[0].Features.data(), {4}).to(Gpu);
    auto Chosen = Policy(Input);
    for (int I = 0; I < Count; ++I)
      Actions[I] = Chosen[I].item<int>();
      // XFER-WARNING: :[[@LINE-1]]:30: warning: 'item<int>()' synchronizes with the GPU on every iteration of the loop at line 50: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-3]]:5: note: loop starts here
      // XFER-NOTE: :[[@LINE-3]]:30: note: each iteration reads one element of 'Chosen': copy it to the host once before the loop ('Chosen.cpu()') and read the elements there, one wait instead of one per element
    States = Envs.step(Actions);
  }
}
