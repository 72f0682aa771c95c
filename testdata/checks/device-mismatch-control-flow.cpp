// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
#include <torch/torch.h>

// What a variable holds at a use is decided by the writes that run before
// it on every path (dominators in the function's CFG): a `goto` past the
// move leaves the host copy on one path.
void mayJumpPastTheMove(bool Skip) {
  auto A = torch::randn({3});
  auto B = torch::randn({3});
  if (Skip)
    goto Add;
  B = B.cuda();
Add:
  (void)A.add(B);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'add' mixes a cpu tensor and a maybe-cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :9:12: note: 'A' is on the cpu: created on the host by torch::randn() without a device
  // XFER-NOTE: :[[@LINE-3]]:15: note: 'B' is on a device chosen at run time: assigned on several paths
  // XFER-NOTE: :13:7: note: the code places data on cuda unconditionally here, so it expects its run-time device to be cuda
}

// A branch that does not skip the move: B is on cuda at the use.
void movesAfterABranch(bool Reset) {
  auto A = torch::randn({3});
  auto B = torch::randn({3});
  if (Reset)
    A = torch::zeros({3});
  B = B.cuda();
  (void)A.add(B);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'add' mixes a cpu tensor and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-4]]:9: note: 'A' is on the cpu: created on the host by torch::zeros() without a device
  // XFER-NOTE: :[[@LINE-4]]:7: note: 'B' is on cuda: moved to the GPU by cuda()
}

// A `goto` to the moves, not past them: both are on cuda at the use.
void jumpsToTheMoves(bool Skip) {
  auto A = torch::randn({3});
  auto B = torch::randn({3});
  if (Skip)
    goto Move;
  A = torch::zeros({3});
Move:
  A = A.cuda();
  B = B.cuda();
  (void)A.add(B);
}

// A guard clause is not a run-time choice of device: the code after it
// expects a GPU, so the note points at its move to cuda.
void guardedGpu(torch::Device Device) {
  if (!torch::cuda::is_available())
    return;
  auto Mask = torch::ones({3}).cuda();
  auto A = torch::randn({3}).to(Device);
  auto B = torch::randn({3});
  (void)A.add(B);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'add' mixes a maybe-cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-4]]:12: note: 'A' is on a device chosen at run time: moved by to() to a maybe-cuda device
  // XFER-NOTE: :[[@LINE-4]]:12: note: 'B' is on the cpu: created on the host by torch::randn() without a device
  // XFER-NOTE: :[[@LINE-7]]:15: note: the code places data on cuda unconditionally here, so it expects its run-time device to be cuda
  (void)A.add(Mask);
}

// A move under a branch is a choice: the note names the program's first
// sign of a GPU instead.
void choosesGpu(torch::Device Device, bool UseGpu) {
  if (UseGpu && Device.is_cuda()) {
    auto Mask = torch::ones({3}).cuda();
    (void)Mask;
  }
  auto A = torch::randn({3}).to(Device);
  auto B = torch::randn({3});
  (void)A.add(B);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'add' mixes a maybe-cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-4]]:12: note: 'A' is on a device chosen at run time: moved by to() to a maybe-cuda device
  // XFER-NOTE: :[[@LINE-4]]:12: note: 'B' is on the cpu: created on the host by torch::randn() without a device
  // XFER-NOTE: :13:7: note: the program calls cuda() here, so on a machine with a GPU its run-time device is cuda
}
