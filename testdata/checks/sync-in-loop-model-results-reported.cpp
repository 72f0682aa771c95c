// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {xfer-sync-in-loop.ReportOutputReadBacks: true}}
// With ReportOutputReadBacks, the one value of a model's result that host
// code takes on every iteration is reported, with a note saying it may be
// necessary: in the loop, and through a helper that returns it.
#include <torch/torch.h>
#include <torch/script.h>
#include <vector>

struct Network {
  torch::nn::Linear Model{4, 2};
  torch::Tensor predict(const torch::Tensor &State) { return Model(State); }
};

struct Node {
  bool Leaf;
  Node *Child;
  void backup(double Value);
};

void search(Network &Net, Node *Root, int Simulations) {
  Net.Model->to(torch::kCUDA);
  double Value = 0;
  for (int S = 0; S < Simulations; ++S) {
    Node *Leaf = Root;
    while (!Leaf->Leaf)
      Leaf = Leaf->Child;
    torch::Tensor Prediction =
        Net.predict(torch::zeros({1, 4}, torch::kCUDA));
    Value = Prediction[0].item().toDouble();
    // XFER-WARNING: :[[@LINE-1]]:27: warning: 'item()' synchronizes with the GPU on every iteration of the loop at line 25: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :25:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:27: note: the host takes the value in the same iteration (a file, a result returned or handed on): if it is the result the program needs, the read is necessary; read it once
    Leaf->backup(-Value);
  }
}

int classify(torch::jit::Module &Model, const torch::Tensor &Frame) {
  auto Outputs = Model.forward({Frame.to(torch::kCUDA)}).toTuple();
  torch::Tensor Scores = Outputs->elements()[0].toTensor()[0];
  int Label = Scores.argmax(1)[0].item<int>();
  // XFER-NOTE: :[[@LINE-1]]:35: note: 'item<int>()' synchronizes with the GPU here
  return Label;
}

void labelFrames(torch::jit::Module &Model,
                 const std::vector<torch::Tensor> &Frames,
                 std::vector<int> &Labels) {
  for (const torch::Tensor &Frame : Frames)
    Labels.push_back(classify(Model, Frame));
  // XFER-WARNING: :[[@LINE-1]]:22: warning: 'classify()' synchronizes with the GPU on every iteration of the loop at line 50: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  // XFER-NOTE: :50:3: note: loop starts here
  // XFER-NOTE: :[[@LINE-3]]:22: note: the host takes the value in the same iteration (a file, a result returned or handed on): if it is the result the program needs, the read is necessary; read it once
}
