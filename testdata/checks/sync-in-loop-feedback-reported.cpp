// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {xfer-sync-in-loop.ReportFeedbackReadBacks: true}}
// With ReportFeedbackReadBacks, a read-back the host needs for the loop's
// next upload is reported too.
#include <torch/torch.h>
#include <vector>

struct Observation {
  std::vector<float> Features;
};
struct Game {
  Observation step(int Action);
};

void play(torch::nn::Linear &Policy, Game &Env, Observation State) {
  while (true) {
    auto Input = torch::from_blob(State.Features.data(), {4}).to(torch::kCUDA);
    int Action = Policy(Input).sum().item<int>();
    // XFER-WARNING: :[[@LINE-1]]:38: warning: 'item<int>()' synchronizes with the GPU on every iteration of the loop at line 17: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:38: note: the host makes what the loop uploads next from the value: reading it back is necessary, keep it to one small read per iteration
    State = Env.step(Action);
  }
}
