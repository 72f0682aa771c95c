// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// A training controller keeps the run's tensor options in a static member
// that its initialisation sets to the GPU, and builds each mini-batch on
// the device from rows of host tensors that do not change during the
// update: every row is a small upload of its own. A slice of an unchanging
// host tensor moved to the device on every step is the same cost: upload
// the whole once and take the part on the device.
#include <torch/torch.h>
#include <iostream>

using torch::indexing::Slice;

class Controller {
public:
  static void initialise();
  static const torch::TensorOptions &options();
  static void update(torch::Tensor States, torch::Tensor Returns, int Epochs,
                     int BatchSize);

private:
  static torch::TensorOptions Options;
};

torch::TensorOptions Controller::Options = torch::TensorOptions();

void Controller::initialise() {
  Options = Options.device(torch::kCUDA).dtype(torch::kFloat);
}

const torch::TensorOptions &Controller::options() { return Options; }

void Controller::update(torch::Tensor States, torch::Tensor Returns,
                        int Epochs, int BatchSize) {
  torch::Tensor HostStates = States.to(torch::kCPU);
  for (int Epoch = 0; Epoch < Epochs; ++Epoch) {
    torch::Tensor Batch = torch::zeros({BatchSize, 4}, options());
    torch::Tensor Targets = torch::zeros({BatchSize}, Options);
    // Collating rows is not the step loop: the read-back after it is still
    // paid on every epoch of the update.
    for (int Row = 0; Row < BatchSize; ++Row) {
      Batch[Row] = HostStates[Epoch * BatchSize + Row];
      // XFER-WARNING: :[[@LINE-1]]:18: warning: 'assigning into a tensor view' copies part of 'HostStates' to the GPU on every iteration of the loop at line 41, but 'HostStates' does not change inside the loop: copy it to the GPU once before the loop and take the part there [xfer-copy-in-loop]
      // XFER-NOTE: :[[@LINE-3]]:5: note: loop starts here
      torch::Tensor Fresh = torch::randn({1});
      Targets[Row] = Fresh[0]; // a new value on every row
    }
    torch::Tensor Loss = (Batch.sum() - Targets).pow(2).mean();
    std::cout << Loss.item<float>() << "\n";
    // XFER-WARNING: :[[@LINE-1]]:23: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 36: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-15]]:3: note: loop starts here
  }
}

// A token stream kept on the host, cut into windows uploaded step by step.
void trainLanguageModel(torch::Tensor Ids, int Steps, int Window) {
  torch::Tensor Hidden = torch::zeros({1, Window}, torch::kCUDA);
  for (int Step = 0; Step + Window < Steps; Step += Window) {
    auto Inputs = Ids.index({Slice(), Slice(Step, Step + Window)})
                      .to(torch::kCUDA);
    // XFER-WARNING: :[[@LINE-1]]:24: warning: 'to(cuda)' copies part of 'Ids' to the GPU on every iteration of the loop at line 58, but 'Ids' does not change inside the loop: copy it to the GPU once before the loop and take the part there [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    Hidden = Hidden + Inputs;
  }
}

// Not reported: a slice of a tensor that changes in the loop, and the rows
// of a freshly loaded batch.
void freshData(torch::Tensor Ids, int Steps, int Window) {
  torch::Tensor Hidden = torch::zeros({1, Window}, torch::kCUDA);
  for (int Step = 0; Step < Steps; ++Step) {
    Ids = torch::rand({1, 4 * Window});
    auto Inputs = Ids.index({Slice(), Slice(0, Window)}).to(torch::kCUDA);
    torch::Tensor Loaded = torch::rand({4, Window});
    auto Row = Loaded[0].to(torch::kCUDA);
    Hidden = Hidden + Inputs + Row;
  }
}
