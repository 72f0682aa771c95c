// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// Indexing with a boolean mask sizes the result by the number of true
// elements, which the host reads back: a synchronization, like nonzero().
// Index tensors that are not masks, and masked fills with a scalar, are not.
#include <torch/torch.h>

using torch::indexing::Slice;

void filterBoxes(const torch::Tensor &Scores, const torch::Tensor &Boxes,
                 int Steps) {
  torch::Device Gpu(torch::kCUDA);
  auto S = Scores.to(Gpu);
  auto B = Boxes.to(Gpu);
  for (int I = 0; I < Steps; ++I) {
    auto Kept = B.index({S > 0.5});
    // XFER-WARNING: :[[@LINE-1]]:19: warning: 'index() with a boolean mask' synchronizes with the GPU on every iteration of the loop at line 15: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    auto Positive = S.gt(0.7);
    auto Top = B.index({Positive, Slice()});
    // XFER-WARNING: :[[@LINE-1]]:18: warning: 'index() with a boolean mask' synchronizes with the GPU on every iteration of the loop at line 15: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-7]]:3: note: loop starts here
    B.index_put_({S < Kept}, Top);
    // XFER-WARNING: :[[@LINE-1]]:7: warning: 'index_put_() with a boolean mask' synchronizes with the GPU on every iteration of the loop at line 15: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-10]]:3: note: loop starts here
    B.index_put_({S > 0.9}, 0.0);          // a masked fill: no read-back
    auto Rows = B.index({torch::ones({2}, torch::kCUDA)}); // not a mask
    auto Column = B.index({Slice(), 0});   // no tensor index
    (void)Rows;
    (void)Column;
  }
}

void hostMasks(const torch::Tensor &Scores, int Steps) {
  for (int I = 0; I < Steps; ++I) {
    auto Kept = Scores.index({Scores > 0.5}); // on the host: no GPU to wait for
    (void)Kept;
  }
}

// A variable named like a mask that is a slice of sorted indices gathers
// rows (no read-back); a slice of a comparison is still a mask.
void suppressOverlaps(torch::Tensor Boxes, torch::Tensor Order, int Steps) {
  auto Gpu = Boxes.to(torch::kCUDA);
  auto Sorted = Order.to(torch::kCUDA);
  for (int I = 0; I < Steps; ++I) {
    auto OrderMask = Sorted.narrow(0, 1, 8);
    auto Rest = Gpu.index({OrderMask});
    auto KeepMask = (Gpu > 0.5).narrow(0, 1, 8);
    auto Kept = Gpu.index({KeepMask});
    // XFER-WARNING: :[[@LINE-1]]:21: warning: 'index() with a boolean mask' synchronizes with the GPU on every iteration of the loop at line 46: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :46:3: note: loop starts here
    (void)Rest;
    (void)Kept;
  }
}
