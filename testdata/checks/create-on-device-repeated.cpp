// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-create-on-device
// By default only creations that run repeatedly are reported: in a loop,
// in a module's forward(), or in a function called in a loop. One-time
// setup (constructors, code before the loop) is not worth a warning
// (ReportOneTimeCreations reports it; see create-on-device.cpp).
#include <torch/torch.h>
#include <memory>

struct Net : torch::nn::Module {
  explicit Net(torch::Device D)
      : Scale(torch::ones({4}).to(D)) {} // once: not reported
  torch::Tensor forward(torch::Tensor X) {
    auto Bias = torch::zeros({4}).to(X.device());
    // XFER-WARNING: :[[@LINE-1]]:35: warning: tensor created on the host by 'torch::zeros()' is copied to a device chosen at run time by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
    return X.mul(Scale).add(Bias);
  }
  torch::Tensor Scale;
};

static torch::Tensor noise(torch::Device D) {
  return torch::randn({4}).to(D);
  // XFER-WARNING: :[[@LINE-1]]:28: warning: tensor created on the host by 'torch::randn()' is copied to a device chosen at run time by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
}

void train(Net &Model, torch::Device D, int Steps) {
  auto Target = torch::zeros({4}).to(D); // once, before the loop
  for (int I = 0; I < Steps; ++I)
    (void)Model.forward(noise(D)).sub(Target);
}

// A device held through a pointer is a run-time choice; zeros_like creates
// where its argument is.
void likeAndPointers(std::shared_ptr<torch::Device> Where, int Steps) {
  auto OnGpu = torch::ones({4}, torch::kCUDA);
  auto OnHost = torch::ones({4});
  for (int I = 0; I < Steps; ++I) {
    auto A = torch::zeros({4}).to(*Where);
    // XFER-WARNING: :[[@LINE-1]]:32: warning: tensor created on the host by 'torch::zeros()' is copied to a device chosen at run time by 'to()' on every iteration of the loop at line 37; pass the device to the factory to create it there directly [xfer-create-on-device]
    auto B = torch::zeros_like(OnHost).to(*Where);
    // XFER-WARNING: :[[@LINE-1]]:40: warning: tensor created on the host by 'torch::zeros_like()' is copied to a device chosen at run time by 'to()' on every iteration of the loop at line 37; pass the device to the factory to create it there directly [xfer-create-on-device]
    auto C = torch::zeros_like(OnGpu).to(*Where); // already on the GPU
    (void)A; (void)B; (void)C;
  }
}

// A dtype conversion between the factory and the move changes nothing.
void throughDtype(torch::Device D, int Steps) {
  for (int I = 0; I < Steps; ++I) {
    auto Flags = torch::ones({4}).to(torch::kLong).to(D);
    // XFER-WARNING: :[[@LINE-1]]:52: warning: tensor created on the host by 'torch::ones()' is copied to a device chosen at run time by 'to()' on every iteration of the loop at line 49; pass the device to the factory to create it there directly [xfer-create-on-device]
    (void)Flags;
  }
}

// x.device() means "where x is": a data transform whose input's placement
// is unknown (images on the host, in practice) moves nothing anywhere known.
struct NoiseImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &Image) {
    return Image + torch::rand({4}).to(Image.device());
  }
};

// to(other) moves to where `other` lives: here the GPU, on every step.
torch::Tensor encode(const torch::Tensor &Base) {
  return Base - torch::ones({4}).to(Base);
  // XFER-WARNING: :[[@LINE-1]]:34: warning: tensor created on the host by 'torch::ones()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
}

void encodeEveryStep(int Steps) {
  auto Anchors = torch::ones({4}, torch::kCUDA);
  for (int I = 0; I < Steps; ++I)
    encode(Anchors);
}

// A change of shape between the factory and the move changes nothing either;
// no fix is offered (the shape calls would have to stay after the factory).
torch::Tensor embed(const torch::Tensor &Position, int64_t Length) {
  auto Frequencies =
      torch::arange(Length).to(torch::kFloat).unsqueeze(0).unsqueeze(0).to(torch::kCUDA);
  // XFER-WARNING: :[[@LINE-1]]:73: warning: tensor created on the host by 'torch::arange()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  return Position * Frequencies;
}

void embedEveryStep(const torch::Tensor &Position, int Steps) {
  for (int I = 0; I < Steps; ++I)
    embed(Position, 10);
}

// A host computation on the way is not a change of shape: left alone.
torch::Tensor shifted(const torch::Tensor &Position) {
  return Position + (torch::ones({4}) * 2.0).view({2, 2}).to(torch::kCUDA);
}

void shiftEveryStep(const torch::Tensor &Position, int Steps) {
  for (int I = 0; I < Steps; ++I)
    shifted(Position);
}

// A static local is initialised once, however often its function runs.
torch::Tensor normalise(const torch::Tensor &Image) {
  static const auto Mean = torch::ones({3}).view({1, 3}).cuda();
  return Image - Mean;
}

void normaliseEveryStep(const torch::Tensor &Image, int Steps) {
  for (int I = 0; I < Steps; ++I)
    normalise(Image);
}

// An empty placeholder (a zero extent) moves nothing.
void emptyResults(const torch::Tensor &Prediction, int Images) {
  for (int I = 0; I < Images; ++I) {
    auto None = torch::zeros({0, 6}).to(torch::kCUDA);
    auto Keep = torch::zeros({4, 6}).to(torch::kCUDA);
    // XFER-WARNING: :[[@LINE-1]]:38: warning: tensor created on the host by 'torch::zeros()' is copied to the GPU by 'to()' on every iteration of the loop at line 113; pass the device to the factory to create it there directly [xfer-create-on-device]
    auto Zero = torch::tensor({0}).to(torch::kCUDA);
    // XFER-WARNING: :[[@LINE-1]]:36: warning: tensor created on the host by 'torch::tensor()' is copied to the GPU by 'to()' on every iteration of the loop at line 113; pass the device to the factory to create it there directly [xfer-create-on-device]
    (void)None;
    (void)Keep;
    (void)Zero;
  }
}

// Under a periodic or one-time guard in a loop (a preview drawn every few
// epochs, on the last one) the creation is occasional: not reported.
void previewsEveryFewEpochs(torch::nn::Linear &Generator, int Epochs) {
  for (int Epoch = 1; Epoch <= Epochs; ++Epoch) {
    auto Noise = torch::randn({8, 4}).to(torch::kCUDA);
    // XFER-WARNING: :[[@LINE-1]]:39: warning: tensor created on the host by 'torch::randn()' is copied to the GPU by 'to()' on every iteration of the loop at line 128; pass the device to the factory to create it there directly [xfer-create-on-device]
    (void)Generator(Noise);
    if (Epoch % 5 == 0) {
      auto Preview = torch::randn({1, 4}).to(torch::kCUDA);
      (void)Generator(Preview);
    }
    if (Epoch == Epochs)
      (void)Generator(torch::randn({1, 4}).to(torch::kCUDA));
  }
}

// A tensor built from the host's own data of the iteration (a replay
// batch's observations) is new input: it has to cross the link anyway.
void replayBatches(const std::vector<std::vector<float>> &States,
                   torch::Device Device) {
  for (const std::vector<float> &State : States) {
    auto Batch = torch::tensor(State).reshape({1, -1}).to(Device);
    (void)Batch;
  }
}

// A value read through a member the class holds const (the run's settings)
// cannot change in the loop: the same tensor is built and uploaded every
// step. A member the object may change (the environment's last reward) is
// data of the iteration.
struct Settings {
  double PositiveWeight = 1.0;
};
struct Environment {
  double Reward = 0.0;
  void step();
};
struct WeightedTrainer {
  const Settings &Config;
  Environment Env;
  torch::Device Device;
  torch::Tensor weightedLoss(const torch::Tensor &Output, int Steps) {
    torch::Tensor Total = torch::zeros({1}, Device);
    for (int I = 0; I < Steps; ++I) {
      auto Weight = torch::tensor(Config.PositiveWeight).to(Device);
      // XFER-WARNING: :[[@LINE-1]]:58: warning: tensor created on the host by 'torch::tensor()' is copied to a device chosen at run time by 'to()' on every iteration of the loop at line 168; pass the device to the factory to create it there directly [xfer-create-on-device]
      Env.step();
      auto Reward = torch::tensor(Env.Reward).to(Device);
      Total = Total + Output.mul(Weight) + Reward;
    }
    return Total;
  }
};
