// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-pageable-async-copy
#include <torch/torch.h>

void nonBlockingFromPageable(torch::Device Dev) {
  auto Host = torch::randn({64});
  auto A = Host.to(torch::kCUDA, /*NonBlocking=*/true);
  // XFER-WARNING: :[[@LINE-1]]:17: warning: 'to()' with non_blocking=true copies a tensor in pageable host memory, so it is not asynchronous: the data is staged through a pinned bounce buffer and the call returns only after the host memory has been copied, so the copy does not overlap host work; pin the tensor with pin_memory() first, once, outside hot loops [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:15: note: pageable host memory: created on the host by torch::randn() without a device
  auto B = Host.to(Dev, true);
  // XFER-WARNING: :[[@LINE-1]]:17: warning: 'to()' with non_blocking=true copies a tensor in pageable host memory, so it is not asynchronous: the data is staged through a pinned bounce buffer and the call returns only after the host memory has been copied, so the copy does not overlap host work; pin the tensor with pin_memory() first, once, outside hot loops [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-6]]:15: note: pageable host memory: created on the host by torch::randn() without a device
  auto C = Host.to(torch::Device(torch::kCUDA), torch::kFloat, true);
  // XFER-WARNING: :[[@LINE-1]]:17: warning: 'to()' with non_blocking=true copies a tensor in pageable host memory, so it is not asynchronous: the data is staged through a pinned bounce buffer and the call returns only after the host memory has been copied, so the copy does not overlap host work; pin the tensor with pin_memory() first, once, outside hot loops [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-9]]:15: note: pageable host memory: created on the host by torch::randn() without a device
  auto Gpu = torch::empty({64}, torch::kCUDA);
  Gpu.copy_(Host, /*NonBlocking=*/true);
  // XFER-WARNING: :[[@LINE-1]]:7: warning: 'copy_()' with non_blocking=true copies a tensor in pageable host memory, so it is not asynchronous: the data is staged through a pinned bounce buffer and the call returns only after the host memory has been copied, so the copy does not overlap host work; pin the tensor with pin_memory() first, once, outside hot loops [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-13]]:15: note: pageable host memory: created on the host by torch::randn() without a device
  auto D = Host.to(Gpu, true);
  // XFER-WARNING: :[[@LINE-1]]:17: warning: 'to()' with non_blocking=true copies a tensor in pageable host memory, so it is not asynchronous: the data is staged through a pinned bounce buffer and the call returns only after the host memory has been copied, so the copy does not overlap host work; pin the tensor with pin_memory() first, once, outside hot loops [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-16]]:15: note: pageable host memory: created on the host by torch::randn() without a device
  auto E = torch::zeros({64}).to(torch::kCUDA, true);
  // XFER-WARNING: :[[@LINE-1]]:31: warning: 'to()' with non_blocking=true copies a tensor in pageable host memory, so it is not asynchronous: the data is staged through a pinned bounce buffer and the call returns only after the host memory has been copied, so the copy does not overlap host work; pin the tensor with pin_memory() first, once, outside hot loops [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-2]]:12: note: pageable host memory: created on the host by torch::zeros() without a device
}

void inLoop(int Steps) {
  auto Host = torch::randn({64});
  for (int I = 0; I < Steps; ++I)
    for (int J = 0; J < 4; ++J) {
      auto X = Host.to(torch::kCUDA, true);
      // XFER-WARNING: :[[@LINE-1]]:21: warning: 'to()' with non_blocking=true copies a tensor in pageable host memory, so it is not asynchronous: the data is staged through a pinned bounce buffer and the call returns only after the host memory has been copied, so the copy does not overlap host work; pin the tensor with pin_memory() first, once, outside hot loops [xfer-pageable-async-copy]
      // XFER-NOTE: :[[@LINE-5]]:15: note: pageable host memory: created on the host by torch::randn() without a device
      (void)X;
    }
}

template <typename T> torch::Tensor upload(const T &Values) {
  auto Host = torch::tensor(Values);
  return Host.to(torch::kCUDA, true);
  // XFER-WARNING: :[[@LINE-1]]:15: warning: 'to()' with non_blocking=true copies a tensor in pageable host memory, so it is not asynchronous: the data is staged through a pinned bounce buffer and the call returns only after the host memory has been copied, so the copy does not overlap host work; pin the tensor with pin_memory() first, once, outside hot loops [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:15: note: pageable host memory: created on the host by torch::tensor() without a device
}
template torch::Tensor upload(const std::initializer_list<float> &);

#define TO_GPU_ASYNC(T) (T).to(torch::kCUDA, true)
void macroAndLambda() {
  auto Host = torch::ones({8});
  auto A = TO_GPU_ASYNC(Host);
  // XFER-WARNING: :[[@LINE-1]]:12: warning: 'to()' with non_blocking=true copies a tensor in pageable host memory, so it is not asynchronous: the data is staged through a pinned bounce buffer and the call returns only after the host memory has been copied, so the copy does not overlap host work; pin the tensor with pin_memory() first, once, outside hot loops [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:15: note: pageable host memory: created on the host by torch::ones() without a device
  auto Lambda = [] {
    auto Local = torch::ones({8});
    return Local.to(torch::kCUDA, true);
    // XFER-WARNING: :[[@LINE-1]]:18: warning: 'to()' with non_blocking=true copies a tensor in pageable host memory, so it is not asynchronous: the data is staged through a pinned bounce buffer and the call returns only after the host memory has been copied, so the copy does not overlap host work; pin the tensor with pin_memory() first, once, outside hot loops [xfer-pageable-async-copy]
    // XFER-NOTE: :[[@LINE-3]]:18: note: pageable host memory: created on the host by torch::ones() without a device
  };
  (void)Lambda;
}

// Not reported.
void notReported(torch::Tensor Unknown) {
  auto Host = torch::randn({64});
  auto Pinned = Host.pin_memory();
  auto A = Pinned.to(torch::kCUDA, true);
  auto B = Host.to(torch::kCUDA);
  auto C = Host.to(torch::kCUDA, false);
  auto D = Unknown.to(torch::kCUDA, true);
  auto E = Host.to(torch::kFloat, true);
  auto Gpu = torch::empty({64}, torch::kCUDA);
  Gpu.copy_(Pinned, true);
  Gpu.copy_(Host);
  auto F = Host.to(torch::kCPU, true);
}

// Staging tensors created in pinned memory by their options (a batched
// evaluator's per-slot buffers) are pinned; pinned_memory(false) is not.
void pinnedByOptions(int64_t N) {
  auto Gpu = torch::empty({64}, torch::kCUDA);
  auto PinnedOptions = torch::TensorOptions()
                           .dtype(torch::kFloat)
                           .device(torch::kCPU)
                           .pinned_memory(true);
  auto Staging = torch::empty({64}, PinnedOptions);
  auto Rows = Staging.narrow(0, 0, N);
  Gpu.copy_(Rows, /*non_blocking=*/true);
  auto Direct = torch::zeros(
      {64}, torch::TensorOptions().device(torch::kCPU).pinned_memory(true));
  Gpu.copy_(Direct, true);
  auto Unpinned = torch::zeros(
      {64}, torch::TensorOptions().device(torch::kCPU).pinned_memory(false));
  Gpu.copy_(Unpinned, true);
  // XFER-WARNING: :[[@LINE-1]]:7: warning: 'copy_()' with non_blocking=true copies a tensor in pageable host memory, so it is not asynchronous: the data is staged through a pinned bounce buffer and the call returns only after the host memory has been copied, so the copy does not overlap host work; pin the tensor with pin_memory() first, once, outside hot loops [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-4]]:19: note: pageable host memory: created by torch::zeros() on a cpu device
}
