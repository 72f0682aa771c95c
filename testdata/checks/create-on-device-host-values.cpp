// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-create-on-device
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// torch::tensor() with a device builds the tensor from host values and
// copies it up: a timestep tensor made from the loop counter on every step
// of a sampling loop is a small blocking upload each time, where a fill on
// the device (torch::full) copies nothing.
#include <torch/torch.h>
#include <vector>

torch::Tensor denoise(const torch::Tensor &X, const torch::Tensor &T);

torch::Tensor sample(torch::Tensor Z, int Steps, torch::Device Device) {
  for (int T = Steps - 1; T >= 0; --T) {
    auto Timestep =
        torch::tensor({T}, torch::TensorOptions().device(Device)).repeat({8});
    // XFER-WARNING: :[[@LINE-1]]:9: warning: tensor built from host values by 'torch::tensor()' is copied to a device chosen at run time on every iteration of the loop at line 14; fill it on the device instead (torch::full with the value, or pass the scalar to the operation that uses it) [xfer-create-on-device]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    Z = denoise(Z, Timestep);
    auto Scale = at::scalar_tensor(1.0 / (T + 1), torch::kCUDA);
    // XFER-WARNING: :[[@LINE-1]]:18: warning: tensor built from host values by 'at::scalar_tensor()' is copied to the GPU on every iteration of the loop at line 14; fill it on the device instead (torch::full with the value, or pass the scalar to the operation that uses it) [xfer-create-on-device]
    // XFER-NOTE: :[[@LINE-8]]:3: note: loop starts here
    Z = Z * Scale;
  }
  return Z;
}

// Negatives: once before the loop; on the host; host data that may be new
// input on each step (a container's contents, the fields of this step's
// sample); every N steps; filled on the device already.
struct Pose {
  float X, Y, Z;
};
torch::Tensor negatives(torch::Tensor Z, const std::vector<int64_t> &Tokens,
                        const std::vector<Pose> &Poses, int Steps) {
  auto Once = torch::tensor({0.5f}, torch::TensorOptions().device(torch::kCUDA));
  for (int T = 0; T < Steps; ++T) {
    auto OnHost = torch::tensor({T});
    auto Ids = torch::tensor(Tokens, torch::TensorOptions().device(torch::kCUDA));
    const Pose &View = Poses[T];
    auto Translation = torch::tensor({View.X, View.Y, View.Z},
                                     torch::TensorOptions().device(torch::kCUDA));
    Z = Z + Translation;
    if (T % 100 == 0)
      Z = Z + torch::tensor({T}, torch::TensorOptions().device(torch::kCUDA));
    auto Filled = torch::ones({8}, torch::TensorOptions().device(torch::kCUDA));
    Z = denoise(Z * Once, Filled * T + Ids + OnHost);
  }
  return Z;
}
