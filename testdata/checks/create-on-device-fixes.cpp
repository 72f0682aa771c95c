// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-create-on-device
// XFER-COST-MODEL: test-subset-h200.json
#include <torch/torch.h>

// The fix passes the device to the factory, so the tensor is created where it
// is used; the cost note's figures come from the model (matched as a prefix).
void createsEveryStep(int64_t N, torch::Device Device) {
  for (int Step = 0; Step < 100; ++Step) {
    auto Zeros = torch::zeros({N, 2}).to(torch::kCUDA);
    // XFER-WARNING: :[[@LINE-1]]:39: warning: tensor created on the host by 'torch::zeros()' is copied to the GPU by 'to()' on each of 100 iterations of the loop at line 9; pass the device to the factory to create it there directly [xfer-create-on-device]
    // XFER-NOTE: :9:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:39: note: measured cost: ...
    // XFER-FIXES: auto Zeros = torch::zeros({N, 2}, torch::kCUDA);
    auto Ones = torch::ones({N}).cuda();
    // XFER-WARNING: :[[@LINE-1]]:34: warning: tensor created on the host by 'torch::ones()' is copied to the GPU by 'cuda()' on each of 100 iterations of the loop at line 9; pass the device to the factory to create it there directly [xfer-create-on-device]
    // XFER-NOTE: :9:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:34: note: measured cost: ...
    // XFER-FIXES: auto Ones = torch::ones({N}, torch::kCUDA);
    auto Typed = torch::zeros({N}, torch::dtype(torch::kFloat)).to(Device);
    // XFER-WARNING: :[[@LINE-1]]:65: warning: tensor created on the host by 'torch::zeros()' is copied to a device chosen at run time by 'to()' on each of 100 iterations of the loop at line 9; pass the device to the factory to create it there directly [xfer-create-on-device]
    // XFER-NOTE: :9:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:65: note: measured cost: ...
    // XFER-FIXES: auto Typed = torch::zeros({N}, torch::dtype(torch::kFloat).device(Device));
    (void)Zeros;
    (void)Ones;
    (void)Typed;
  }
}
