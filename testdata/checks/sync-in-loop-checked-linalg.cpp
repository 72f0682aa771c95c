// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// On a GPU, torch::linalg::inv and its kin check the solver's error flag on
// the host before they return (a singular matrix raises), so every call waits
// for the device. The _ex variants without error checking do not, and neither
// does the same call on a host tensor.
#include <torch/torch.h>

torch::Tensor cameraCentres(const torch::Tensor &Views, int Steps) {
  torch::Device Gpu(torch::kCUDA);
  auto WorldView = Views.to(Gpu);
  auto Host = torch::ones({4, 4});
  torch::Tensor Centres;
  for (int I = 0; I < Steps; ++I) {
    auto ViewWorld = torch::linalg::inv(WorldView);
    // XFER-WARNING: :[[@LINE-1]]:22: warning: 'torch::linalg::inv()' synchronizes with the GPU on every iteration of the loop at line 14: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    auto Intrinsics = WorldView.inverse();
    // XFER-WARNING: :[[@LINE-1]]:33: warning: 'inverse()' synchronizes with the GPU on every iteration of the loop at line 14: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-6]]:3: note: loop starts here
    Centres = torch::linalg::solve(ViewWorld, Intrinsics) + Centres;
    // XFER-WARNING: :[[@LINE-1]]:15: warning: 'torch::linalg::solve()' synchronizes with the GPU on every iteration of the loop at line 14: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-9]]:3: note: loop starts here
    auto Unchecked = std::get<0>(torch::linalg::inv_ex(WorldView)); // no check
    auto OnHost = torch::inverse(Host); // a host tensor: nothing to wait for
    Centres = Centres + Unchecked + OnHost.to(Gpu);
  }
  return Centres;
}

torch::Tensor everyHundredSteps(const torch::Tensor &Pose, int Steps) {
  auto P = Pose.to(torch::kCUDA);
  torch::Tensor Last;
  for (int I = 0; I < Steps; ++I) {
    P = P * 2;
    if (I % 100 == 0)
      Last = at::linalg_inv(P); // periodic: the fixed pattern
  }
  return Last;
}
