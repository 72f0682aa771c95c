// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-create-on-device
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A helper that returns a tensor a factory made on the host, moved to the
// device by its caller on every step (an epsilon-greedy agent's random
// action): create it on the device in the helper.
#include <torch/torch.h>

struct Agent {
  torch::nn::Linear Model{nullptr};
  float Epsilon = 0.1f;
  torch::Tensor act(torch::Tensor State) {
    if (torch::rand({1}).item<float>() < Epsilon)
      return torch::randn({1, 4});
    return Model->forward(State);
  }
  torch::Tensor greedy(torch::Tensor State) {
    return Model->forward(State);
  }
  void play(torch::Tensor State, torch::Device Device, int Steps) {
    for (int Step = 0; Step < Steps; ++Step) {
      torch::Tensor Action = act(State).to(Device);
      // XFER-WARNING: :[[@LINE-1]]:41: warning: tensor returned by 'act()' created on the host by 'torch::randn()' is copied to a device chosen at run time by 'to()' on every iteration of the loop at line 21; pass the device to the factory to create it there directly [xfer-create-on-device]
      // XFER-NOTE: :14:14: note: 'act()' creates it on the host here
      // XFER-NOTE: :[[@LINE-4]]:5: note: loop starts here
      // A helper that makes nothing on the host.
      torch::Tensor Best = greedy(State).to(Device);
      State = State + Action + Best;
    }
  }
};

// Called once, before the loop: setup.
torch::Tensor initialState() { return torch::zeros({1, 4}); }
void run(Agent &A, torch::Device Device, int Steps) {
  torch::Tensor State = initialState().to(Device);
  A.play(State, Device, Steps);
}

// The device kept as a torch::DeviceType member, set by the constructor
// from what its constructions pass (kCUDA here).
struct Runner {
  torch::DeviceType Device;
  explicit Runner(torch::DeviceType D) { this->Device = D; }
  void steps(int N) {
    for (int I = 0; I < N; ++I) {
      torch::Tensor Noise = torch::randn({8}).to(Device);
      // XFER-WARNING: :[[@LINE-1]]:47: warning: tensor created on the host by 'torch::randn()' is copied to the GPU by 'to()' on every iteration of the loop at line 46; pass the device to the factory to create it there directly [xfer-create-on-device]
      // XFER-NOTE: :[[@LINE-3]]:5: note: loop starts here
      (void)Noise;
    }
  }
};
void runOnGpu(int N) {
  Runner R(torch::kCUDA);
  R.steps(N);
}
