// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// Whether a read-back costs a synchronization depends on where the tensor
// lives; these follow LibTorch's placement rules across statements, lambdas
// and the functions of this file. Unknown placement is not reported.
#include <torch/torch.h>
#include <iostream>

torch::Device Gpu(torch::kCUDA); // a global nothing here reassigns

// A data loader's batches are on the host until the program moves them.
void hostBatches(torch::data::DataLoader<> &Loader) {
  for (auto &Batch : Loader) {
    auto Labels = Batch.target.to(torch::kCPU); // already on the host: no copy
    std::cout << Labels[0].item<int>() << "\n";  // a host read
    auto Loss = Batch.data.to(Gpu).mean();
    std::cout << Loss.item<float>() << "\n";
    // XFER-WARNING: :[[@LINE-1]]:23: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 13: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-6]]:3: note: loop starts here
  }
}

// Factories without a device create on the host; indexing keeps it there.
float hostFactories() {
  float Sum = 0;
  for (int I = 0; I < 100; ++I)
    Sum += torch::rand({1})[0].item<float>();
  return Sum;
}

// std::get of a tuple returned by an operation: where its operand is.
void tuples() {
  auto Logits = torch::randn({8, 10}, Gpu);
  for (int I = 0; I < 100; ++I) {
    auto Best = std::get<1>(Logits.max(1));
    (void)Best.cpu();
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'cpu()' copies device memory to the host on each of 100 iterations of the loop at line 34: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
  }
}

// Parameters take the placement of their callers' arguments, and a call to
// a function defined here returns what its return statements do.
static float meanOf(const torch::Tensor &T) { return T.mean().item<float>(); }
static torch::Tensor toGpu(const torch::Tensor &T) { return T.to(Gpu); }

void throughFunctions() {
  auto Host = torch::ones({4});
  auto Step = [&](int I) { return toGpu(Host).mul(toGpu(Host)); };
  for (int I = 0; I < 10; ++I) {
    auto Moved = Step(I);
    (void)Moved.item<float>();
    // XFER-WARNING: :[[@LINE-1]]:17: warning: 'item<float>()' synchronizes with the GPU on each of 10 iterations of the loop at line 50: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    (void)meanOf(Moved);
    // XFER-WARNING: :[[@LINE-1]]:11: warning: 'meanOf()' synchronizes with the GPU on each of 10 iterations of the loop at line 50: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-7]]:3: note: loop starts here
    // XFER-NOTE: :44:63: note: 'item<float>()' synchronizes with the GPU here
  }
}

// A parameter no caller here passes: its placement is unknown, and unknown
// is no evidence of a GPU (ReportUnknownPlacement reports it; see
// sync-in-loop-threshold.cpp).
void unknownParameter(torch::Tensor Loss, int Iters) {
  for (int I = 0; I < Iters; ++I)
    std::cout << Loss.item<float>() << "\n";
}

// An element of a std::vector of tensors is where the pushed tensors are.
void containers(int Steps) {
  std::vector<torch::Tensor> Outputs;
  Outputs.push_back(torch::ones({4}, Gpu));
  for (int I = 0; I < Steps; ++I)
    (void)Outputs[0].mean().item<float>();
    // XFER-WARNING: :[[@LINE-1]]:29: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 74: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
}

// std::tie of an operation's tuple: each tied tensor is where it ran.
void tiedResults(const torch::Tensor &Scores, int Steps) {
  auto Probabilities = Scores.to(Gpu);
  torch::Tensor Best;
  torch::Tensor HostBest;
  for (int I = 0; I < Steps; ++I) {
    std::tie(std::ignore, Best) = Probabilities.max(1);
    (void)Best.sum().item<float>();
    // XFER-WARNING: :[[@LINE-1]]:22: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 85: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    std::tie(std::ignore, HostBest) = Scores.max(1); // on the host
    (void)HostBest.sum().item<float>();
  }
}

// A device member defaulted to the CPU that every constructor overwrites
// with the model's device: the default is never what the methods see, and
// the device is a run-time choice, not the host.
struct Trainer {
  explicit Trainer(const torch::Tensor &Weights) { Device = Weights.device(); }
  void train(const torch::Tensor &Input, int Steps) {
    for (int I = 0; I < Steps; ++I) {
      auto Loss = Input.to(Device).sum();
      Loss.backward();
      (void)Loss.item<float>();
      // XFER-WARNING: :[[@LINE-1]]:18: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 101: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-5]]:5: note: loop starts here
    }
  }
  torch::Device Device = torch::Device(torch::kCPU);
};

// A constructor that leaves the default: the member stays on the host.
struct HostWorker {
  HostWorker() {}
  void run(const torch::Tensor &Input, int Steps) {
    for (int I = 0; I < Steps; ++I) {
      auto Loss = Input.to(Device).sum();
      Loss.backward();
      (void)Loss.item<float>();
    }
  }
  torch::Device Device = torch::Device(torch::kCPU);
};

void useTrainers(const torch::Tensor &Input) {
  Trainer(Input).train(Input, 100);
  HostWorker().run(Input, 100);
}

// An input of unknown placement moved to the GPU when one is available: on
// a GPU run it is there.
void movedWhenAvailable(torch::Tensor Input, int Steps) {
  if (torch::cuda::is_available())
    Input = Input.to(torch::kCUDA);
  for (int I = 0; I < Steps; ++I) {
    auto Loss = Input.sum();
    (void)Loss.item<float>();
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 135: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
  }
}

// Elements assigned into a std::vector of tensors (`v[i] = t`, `v.at(i) = t`)
// are where the assigned tensors are; assigning into a tensor's own element
// copies across devices and leaves the tensor where it was.
void assignedElements(size_t Trials) {
  std::vector<torch::Tensor> Energies;
  Energies.resize(Trials);
  for (size_t I = 0; I < Trials; ++I)
    Energies[I] = torch::ones({1}, Gpu) * 2.0;
  std::vector<torch::Tensor> Checked(Trials);
  for (size_t I = 0; I < Trials; ++I)
    Checked.at(I) = torch::ones({1}, Gpu);
  for (size_t I = 0; I < Trials; ++I)
    (void)Energies[I].item<float>();
    // XFER-WARNING: :[[@LINE-1]]:23: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 154: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
  for (size_t I = 0; I < Trials; ++I)
    (void)Checked[I].item<float>();
    // XFER-WARNING: :[[@LINE-1]]:22: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 158: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
  torch::Tensor OnHost = torch::zeros({4});
  for (size_t I = 0; I < Trials; ++I) {
    OnHost[0] = Energies[I];
    // XFER-WARNING: :[[@LINE-1]]:15: warning: 'assigning into a tensor view' copies device memory to the host on every iteration of the loop at line 163: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    (void)OnHost.sum().item<float>();
  }
}

// Names bound to the parts of a tuple or pair of tensors (`auto [v, i] =`)
// are where the whole is: the tuple a LibTorch operation or a function of
// this file returns lives where its tensors were made.
static std::tuple<torch::Tensor, torch::Tensor>
sampleActions(const torch::Tensor &Logits) {
  return {Logits * 2.0, Logits};
}
struct Rollout {
  torch::Tensor Actions;
  int Steps;
};
void boundParts(int Envs, int Steps) {
  auto Observations = torch::zeros({Envs, 4}, Gpu);
  for (int S = 0; S < Steps; ++S) {
    auto [Best, Where] = Observations.max(1);
    (void)Best.item<float>();
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 184: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    Observations.zero_();
  }
  std::vector<int> Chosen(Envs);
  for (int S = 0; S < Steps; ++S) {
    auto [Actions, Logits] = sampleActions(Observations);
    // One element per environment: the note says to copy the whole once.
    for (int E = 0; E < Envs; ++E)
      Chosen[E] = Actions[E].item<int>();
      // XFER-WARNING: :[[@LINE-1]]:30: warning: 'item<int>()' synchronizes with the GPU on every iteration of the loop at line 195: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-3]]:5: note: loop starts here
      // XFER-NOTE: :[[@LINE-3]]:30: note: each iteration reads one element of 'Actions': copy it to the host once before the loop ('Actions.cpu()') and read the elements there, one wait instead of one per element
    // The same element on every iteration, or a tensor the loop changes:
    // no copy before the loop replaces the reads.
    for (int E = 0; E < Envs; ++E)
      Chosen[E] += Logits[0].item<int>();
      // XFER-WARNING: :[[@LINE-1]]:30: warning: 'item<int>()' synchronizes with the GPU on every iteration of the loop at line 202: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-3]]:5: note: loop starts here
    for (int E = 0; E < Envs; ++E) {
      Chosen[E] -= Logits[E].item<int>();
      // XFER-WARNING: :[[@LINE-1]]:30: warning: 'item<int>()' synchronizes with the GPU on every iteration of the loop at line 206: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-3]]:5: note: loop starts here
      Logits.zero_();
    }
  }
  // Parts of a tuple made on the host, and of a struct nothing stores a
  // device tensor into, are on the host: reading them waits for nothing.
  auto OnHost = torch::zeros({Envs, 4});
  Rollout Last{torch::zeros({Envs}), 0};
  for (int S = 0; S < Steps; ++S) {
    auto [Best, Where] = OnHost.max(1);
    (void)Best.item<float>();
    auto [Actions, Count] = Last;
    (void)Actions.item<float>();
    OnHost.zero_();
  }
}

// A structured binding reassigned with its host copy lives on the host
// from then on.
void bindingCopiedToHost(torch::Tensor X, int Steps) {
  auto Gpu = X.to(torch::kCUDA);
  for (int I = 0; I < Steps; ++I) {
    auto [Values, Indices] = Gpu.max(1);
    Indices = Indices.cpu();
    // XFER-WARNING: :[[@LINE-1]]:23: warning: 'cpu()' copies device memory to the host on every iteration of the loop at line 230: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :230:3: note: loop starts here
    auto Scaled = Gpu.mul(Gpu);
    auto Picked = Indices.nonzero(); // on the host: no wait
    float Best = Values.sum().item<float>();
    // XFER-WARNING: :[[@LINE-1]]:31: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 230: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :230:3: note: loop starts here
    (void)Picked, (void)Best, (void)Scaled;
  }
}

// A local container of tensors holds what it was filled with: torch::cat of
// it is where its tensors are (a detector concatenating the decoded outputs
// of each scale before suppression).
std::vector<torch::Tensor> suppress(torch::Tensor Prediction) {
  std::vector<torch::Tensor> Kept;
  for (int64_t I = 0; I < Prediction.size(0); ++I) {
    auto Boxes = Prediction[I];
    Kept.push_back(Boxes.masked_select(Boxes.gt(0.5)));
    // XFER-WARNING: :[[@LINE-1]]:26: warning: 'masked_select()' synchronizes with the GPU on every iteration of the loop at line 249: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :249:3: note: loop starts here
  }
  return Kept;
}
void suppressScales(const std::vector<torch::Tensor> &Small,
                    const std::vector<torch::Tensor> &Large) {
  for (size_t F = 0; F < Small.size(); ++F) {
    std::vector<torch::Tensor> Scales;
    Scales.push_back(Small[F].to(Gpu));
    Scales.push_back(Large[F].to(Gpu));
    (void)suppress(torch::cat(Scales, 1));
    // XFER-WARNING: :[[@LINE-1]]:11: warning: 'suppress()' synchronizes with the GPU on every iteration of the loop at line 259: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :259:3: note: loop starts here
    // XFER-NOTE: :251:26: note: 'masked_select()' synchronizes with the GPU here
  }
}

// A global device type declared without an initializer and set where the
// program starts: the device is what the program stores (CUDA when there is
// one). One the program never sets is not known.
torch::DeviceType TrainingDevice;
torch::DeviceType UnsetDevice;
void chooseDevice() {
  TrainingDevice = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
}
void trainOnChosenDevice(torch::data::DataLoader<> &Loader) {
  float Total = 0;
  for (auto &Batch : Loader) {
    Total += Batch.data.to(TrainingDevice).mean().item<float>();
    // XFER-WARNING: :[[@LINE-1]]:51: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 280: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :280:3: note: loop starts here
    Total += Batch.data.to(UnsetDevice).mean().item<float>();
  }
}

// An aggregate built with braces stores each of its fields: a loss struct
// returned as `{total, data}` holds tensors where the model ran.
struct LossParts {
  torch::Tensor Total;
  torch::Tensor Data;
};
LossParts lossParts(torch::nn::Linear &Model, const torch::Tensor &Input) {
  torch::Tensor Data = Model->forward(Input).mean();
  torch::Tensor Total = Data * 2.0;
  return {Total, Data};
}
void trainOnParts(torch::nn::Linear &Model, torch::Tensor X, int Steps) {
  torch::Tensor Input = X.to(Gpu);
  for (int Step = 0; Step < Steps; ++Step) {
    LossParts Loss = lossParts(Model, Input);
    Loss.Total.backward();
    std::cout << Loss.Data.item<float>() << "\n";
    // XFER-WARNING: :[[@LINE-1]]:28: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 301: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :301:3: note: loop starts here
  }
}
