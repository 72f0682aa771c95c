// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
#include <memory>
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &X);
};

void moduleOnGpuCpuInput() {
  torch::nn::Linear Fc(16, 4);
  Fc->to(torch::kCUDA);
  auto X = torch::randn({8, 16});
  (void)Fc(X);
  // XFER-WARNING: :[[@LINE-1]]:9: warning: calling 'Fc' mixes a cuda module and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)Fc->forward(X);
  // XFER-WARNING: :[[@LINE-1]]:13: warning: calling 'Fc' mixes a cuda module and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)Fc(X.cuda());
  (void)Fc->forward(X.to(torch::kCUDA));
}

void sharedModule(torch::Device Device) {
  torch::Device Gpu(torch::kCUDA);
  auto Model = std::make_shared<NetImpl>();
  Model->to(Gpu);
  auto Input = torch::ones({1, 16});
  (void)Model->forward(Input);
  // XFER-WARNING: :[[@LINE-1]]:16: warning: calling 'Model' mixes a cuda module and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // The reverse: a module left on the host called with a CUDA tensor.
  NetImpl HostNet;
  (void)HostNet.forward(Input.cuda());
  // XFER-WARNING: :[[@LINE-1]]:17: warning: calling 'HostNet' mixes a cpu module and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  torch::nn::Linear Head(16, 1);
  (void)Head(torch::randn({2, 16}, Gpu));
  // XFER-WARNING: :[[@LINE-1]]:9: warning: calling 'Head' mixes a cpu module and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  Model->to(torch::kCPU);
  (void)Model->forward(Input);
  (void)HostNet.forward(Input);
}

void moveModule(std::shared_ptr<NetImpl> &M);
void unknownModules(std::shared_ptr<NetImpl> Param, bool Flag) {
  auto X = torch::randn({4, 16});
  (void)Param->forward(X.cuda());
  // Moved by a function the analysis does not follow.
  auto Escaped = std::make_shared<NetImpl>();
  moveModule(Escaped);
  (void)Escaped->forward(X.cuda());
  torch::nn::Linear Empty{nullptr};
  (void)Empty(X.cuda());
}

// Moved on one path only: the device is a run-time choice, and the run that
// takes the path fails.
void movedOnOnePath(bool Flag) {
  auto X = torch::randn({4, 16});
  torch::nn::Linear Maybe(16, 4);
  if (Flag)
    Maybe->to(torch::kCUDA);
  (void)Maybe(X);
  // XFER-WARNING: :[[@LINE-1]]:9: warning: calling 'Maybe' mixes a maybe-cuda module and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
}

void movedOnOnePathAssumingGpu(bool Flag) {
  auto X = torch::randn({4, 16});
  torch::nn::Linear Maybe(16, 4);
  if (Flag)
    Maybe->to(torch::kCUDA);
  (void)Maybe(X);
  // XFER-WARNING: :[[@LINE-1]]:9: warning: calling 'Maybe' mixes a maybe-cuda module and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)Maybe(X.cuda());
}

// Tensor::to() returns a new tensor; unlike Module::to() it moves nothing.
struct Trainer {
  torch::Tensor Weights;
  void prepare(torch::Device Device) {
    Weights.to(Device);
    // XFER-WARNING: :[[@LINE-1]]:13: warning: the tensor returned by 'to()' is discarded: a tensor is not moved in place (unlike a module), so 'Weights' stays where it was [xfer-device-mismatch]
  }
};

void discardedMoves(torch::Device Device, bool Flag) {
  auto T = torch::randn({3});
  T.to(Device);
  // XFER-WARNING: :[[@LINE-1]]:5: warning: the tensor returned by 'to()' is discarded: a tensor is not moved in place (unlike a module), so 'T' stays on the cpu [xfer-device-mismatch]
  T.cuda();
  // XFER-WARNING: :[[@LINE-1]]:5: warning: the tensor returned by 'cuda()' is discarded: a tensor is not moved in place (unlike a module), so 'T' stays on the cpu [xfer-device-mismatch]
  if (Flag)
    T.to(torch::kCUDA, torch::kFloat);
  // XFER-WARNING: :[[@LINE-1]]:7: warning: the tensor returned by 'to()' is discarded: a tensor is not moved in place (unlike a module), so 'T' stays on the cpu [xfer-device-mismatch]
  // Not reported: results that are used, dtype-only conversions, modules.
  T = T.to(Device);
  auto U = T.cuda();
  T.to(torch::kFloat);
  (void)T.cuda();
  torch::nn::Linear Fc(3, 3);
  Fc->to(Device);
  (void)U;
}

// A discarded move to where the tensor already is does nothing: the output
// of a model on the device, moved to that device; a host tensor moved to
// the host.
void discardedMovesThatChangeNothing(torch::Device Device) {
  torch::nn::Linear Model(3, 3);
  Model->to(Device);
  auto Input = torch::randn({3}).to(Device);
  auto Prediction = Model(Input);
  Prediction.to(Device);
  auto Host = torch::randn({3});
  Host.cpu();
  Host.to(torch::kCPU);
}

// A module that moves itself in its constructor is built where it moves.
struct SelfPlacedImpl : torch::nn::Module {
  torch::nn::Linear Layer{4, 1};
  SelfPlacedImpl() { this->to(torch::kCUDA); }
  torch::Tensor forward(const torch::Tensor &X) { return Layer(X); }
};
struct PlacedByCallerImpl : torch::nn::Module {
  torch::nn::Linear Layer{4, 1};
  torch::Tensor forward(const torch::Tensor &X) { return Layer(X); }
};

void selfPlacedModules() {
  auto Host = torch::randn({2, 4});
  SelfPlacedImpl Placed;
  (void)Placed.forward(Host);
  // XFER-WARNING: :[[@LINE-1]]:16: warning: calling 'Placed' mixes a cuda module and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)Placed.forward(Host.cuda());
  PlacedByCallerImpl OnHost;
  (void)OnHost.forward(Host);
}

// A module member keeps the placement its own constructor gives it; one built
// on the host may be moved by any method, so it is not known.
struct Agent {
  SelfPlacedImpl Critic{};
  PlacedByCallerImpl Actor;
  void moveActor() { Actor.to(torch::kCUDA); }
  void learn(const torch::Tensor &States) {
    auto Batch = torch::randn({8, 4});
    (void)Critic.forward(Batch);
    // XFER-WARNING: :[[@LINE-1]]:18: warning: calling 'Critic' mixes a cuda module and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
    (void)Actor.forward(Batch.cuda());
    (void)Target.forward(Batch);
    // XFER-WARNING: :[[@LINE-1]]:18: warning: calling 'Target' mixes a cuda module and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  }
  SelfPlacedImpl Target;
};

// A module without parameters (a loss, an activation) runs wherever its
// inputs are.
void parameterFreeModules() {
  torch::nn::CrossEntropyLoss Criterion;
  auto Logits = torch::randn({8, 10}).cuda();
  auto Labels = torch::zeros({8}).cuda();
  (void)Criterion(Logits, Labels);
  torch::nn::Linear Head(10, 10);
  (void)Head(Logits);
  // XFER-WARNING: :[[@LINE-1]]:9: warning: calling 'Head' mixes a cpu module and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
}

// Options naming a device type and an index (`device(kCUDA, 1)`), kept in
// a global and copied into another: tensors made or moved with them are on
// that GPU, like the module.
const auto GpuOptions = torch::TensorOptions().device(torch::kCUDA, 1);
const auto Options = GpuOptions;
torch::Tensor initialState() { return torch::zeros({4, 16}, Options); }
void unrollOnSecondGpu(torch::nn::Linear &Update, int Steps) {
  Update->to(torch::Device(torch::kCUDA, 1));
  torch::Tensor State = initialState();
  for (int Step = 0; Step < Steps; ++Step) {
    State = State.to(Options);
    State = Update(State);
  }
  (void)Update(torch::zeros({4, 16}, torch::TensorOptions().device(torch::kCPU, 0)));
  // XFER-WARNING: :[[@LINE-1]]:9: warning: calling 'Update' mixes a cuda module and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
}

// Modules held by an object and moved through it (`net.Gen->to(device)`):
// where those moves send them. A local object is moved only by moves
// through itself.
struct Pair {
  torch::nn::Linear Gen{16, 16};
  torch::nn::Linear Dis{16, 1};
};
void trainPair(int Steps) {
  Pair Net;
  torch::Device Device(torch::kCUDA);
  Net.Gen->to(Device);
  Net.Dis->to(Device);
  for (int Step = 0; Step < Steps; ++Step) {
    auto Noise = torch::randn({8, 16});
    auto Fake = Net.Gen->forward(Noise);
    // XFER-WARNING: :[[@LINE-1]]:26: warning: calling 'Net.Gen' mixes a cuda module and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
    (void)Net.Dis(Fake.to(Device));
  }
}
void samplePairOnHost() {
  Pair Net;
  Net.Gen->to(torch::kCPU);
  (void)Net.Gen->forward(torch::randn({8, 16}));
}

// A loss module of the program's own whose constructor is defined in another
// file holds no module here: nothing says its parameters are on the host,
// so calling it with device tensors is not reported. One that registers a
// parameter in a constructor defined here is on the host until moved.
struct YoloLossImpl : torch::nn::Module {
  YoloLossImpl(int Classes, torch::Device Device);
  torch::Tensor forward(const torch::Tensor &Prediction);
};
struct ScaledLossImpl : torch::nn::Module {
  ScaledLossImpl() { Scale = register_parameter("scale", torch::ones({1})); }
  torch::Tensor Scale;
  torch::Tensor forward(const torch::Tensor &Prediction);
};
void lossOnDevice(int Classes) {
  auto Criterion = YoloLossImpl(Classes, torch::kCUDA);
  (void)Criterion.forward(torch::randn({4, 16}, torch::kCUDA));
  ScaledLossImpl Scaled;
  (void)Scaled.forward(torch::randn({4, 16}, torch::kCUDA));
  // XFER-WARNING: :[[@LINE-1]]:16: warning: calling 'Scaled' mixes a cpu module and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
}

// A loss runs where its inputs are: a GPU output against a host target
// throws, both on the GPU is fine. A head of a pair of tensors is where the
// pair is.
std::pair<torch::Tensor, torch::Tensor> twoHeads(const torch::Tensor &X) {
  return {X.mul(X), X.add(X)};
}
void lossInputs() {
  torch::nn::CrossEntropyLoss Criterion;
  auto Target = torch::zeros({8});
  auto Output = torch::randn({8, 4}, torch::kCUDA);
  (void)Criterion(Output, Target);
  // XFER-WARNING: :[[@LINE-1]]:9: warning: 'Criterion' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)Criterion(Output, Target.cuda());
  auto Heads = twoHeads(Output);
  (void)Criterion(Heads.first, Target);
  // XFER-WARNING: :[[@LINE-1]]:9: warning: 'Criterion' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  (void)Criterion(Heads.second, Target.to(torch::kCUDA));
}

// A host tensor a module only reads on the host (its size, its values
// through item(): a one-hot label that picks a branch), also through a
// module it hands the tensor to, may stay on the host.
struct BranchesImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &X, const torch::Tensor &Label) {
    for (int64_t I = 0; I < Label.size(1); ++I)
      if (Label[0][I].item<int64_t>() == 1)
        return X.mul(X);
    return X;
  }
};
struct StylerImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &X, const torch::Tensor &Label) {
    return Branch->forward(X, Label);
  }
  std::shared_ptr<BranchesImpl> Branch = std::make_shared<BranchesImpl>();
};
void styleOnDevice() {
  auto Styler = std::make_shared<StylerImpl>();
  Styler->to(torch::kCUDA);
  auto Label = torch::zeros({1, 3});
  auto X = torch::randn({2, 4}, torch::kCUDA);
  (void)Styler->forward(X, Label);
  (void)Styler->forward(Label, X);
  // XFER-WARNING: :[[@LINE-1]]:17: warning: calling 'Styler' mixes a cuda module and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
}

// A module torch::load fills takes the devices its parameters were saved
// from: not known to be on the host. One built and never loaded is.
void loadedModule(const std::string &Path) {
  torch::nn::Linear Loaded(16, 1);
  torch::load(Loaded, Path);
  auto X = torch::randn({2, 16}, torch::kCUDA);
  (void)Loaded(X);
  torch::nn::Linear Fresh(16, 1);
  (void)Fresh(X);
  // XFER-WARNING: :[[@LINE-1]]:9: warning: calling 'Fresh' mixes a cpu module and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
}

// Wherever a module is, its inputs must agree with each other: a recurrent
// cell's initial state made on the host next to an input on the device
// throws. Inputs that agree, or a module known to be on the device whose
// inputs agree with it, are fine.
struct CellImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &X,
                        std::tuple<torch::Tensor, torch::Tensor> State);
};
struct RecurrentImpl : torch::nn::Module {
  std::shared_ptr<CellImpl> Cell = std::make_shared<CellImpl>();
  torch::Tensor step(const torch::Tensor &Input) {
    auto H = torch::zeros({1, 8});
    auto C = torch::zeros({1, 8});
    std::tuple<torch::Tensor, torch::Tensor> State = std::make_tuple(H, C);
    auto OnDevice = Input.to(torch::kCUDA);
    auto Out = Cell->forward(OnDevice, State);
    // XFER-WARNING: :[[@LINE-1]]:22: warning: 'Cell' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
    (void)Cell->forward(OnDevice, std::make_tuple(H.to(torch::kCUDA),
                                                  C.to(torch::kCUDA)));
    (void)Cell->forward(Input.cpu(), State);
    return Out;
  }
};

// A module whose forward moves its input where it needs it takes a tensor
// from anywhere; one whose forward only converts the type does not.
struct SelfPlacingImpl : torch::nn::Module {
  torch::nn::Linear Fc{16, 4};
  torch::Tensor forward(torch::Tensor X) {
    X = X.to(torch::kCUDA);
    return Fc(X);
  }
};
struct TypeConvertingImpl : torch::nn::Module {
  torch::nn::Linear Fc{16, 4};
  torch::Tensor forward(torch::Tensor X) {
    X = X.to(torch::kFloat);
    return Fc(X);
  }
};
void modulesThatPlaceTheirInput() {
  auto SelfPlacing = std::make_shared<SelfPlacingImpl>();
  auto TypeConverting = std::make_shared<TypeConvertingImpl>();
  SelfPlacing->to(torch::kCUDA);
  TypeConverting->to(torch::kCUDA);
  auto Board = torch::zeros({1, 16});
  (void)SelfPlacing->forward(Board);
  (void)TypeConverting->forward(Board);
  // XFER-WARNING: :[[@LINE-1]]:25: warning: calling 'TypeConverting' mixes a cuda module and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
}
