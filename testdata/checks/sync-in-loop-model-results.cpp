// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// One value of a model's result read per iteration and handed to host code
// (a tree search's backup, a frame's label returned) is the result the
// program needs: silent. Several reads of a result, a read per element, a
// running sum, a read only printed and a read in a training step are
// reported.
#include <torch/torch.h>
#include <torch/script.h>
#include <iostream>
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

void draw(float X, float Y);

// The search needs the leaf's value on the host after every simulation.
void search(Network &Net, Node *Root, int Simulations) {
  Net.Model->to(torch::kCUDA);
  double Value = 0;
  for (int S = 0; S < Simulations; ++S) {
    Node *Leaf = Root;
    while (!Leaf->Leaf)
      Leaf = Leaf->Child;
    torch::Tensor State = torch::zeros({1, 4}, torch::kCUDA);
    torch::Tensor Prediction = Net.predict(State);
    Value = Prediction[0].item().toDouble();
    Leaf->backup(-Value);
  }
}

// A helper that runs a TorchScript module and returns the frame's label.
int classify(torch::jit::Module &Model, const torch::Tensor &Frame) {
  auto Outputs = Model.forward({Frame.to(torch::kCUDA)}).toTuple();
  torch::Tensor Scores = Outputs->elements()[0].toTensor()[0];
  int Label = Scores.argmax(1)[0].item<int>();
  return Label;
}

void labelFrames(torch::jit::Module &Model,
                 const std::vector<torch::Tensor> &Frames,
                 std::vector<int> &Labels) {
  for (const torch::Tensor &Frame : Frames)
    Labels.push_back(classify(Model, Frame));
}

// Two coordinates of one result, read one at a time: one copy would do.
void track(Network &Net, const std::vector<torch::Tensor> &Frames) {
  Net.Model->to(torch::kCUDA);
  for (const torch::Tensor &Frame : Frames) {
    torch::Tensor Box = Net.predict(Frame.to(torch::kCUDA));
    float X = Box[0].item<float>();
    // XFER-WARNING: :[[@LINE-1]]:22: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 59: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :59:3: note: loop starts here
    float Y = Box[1].item<float>();
    // XFER-NOTE: :[[@LINE-1]]:22: note: the same iteration reads back here too, with no GPU work in between: copy these values together in one transfer
    draw(X, Y);
  }
}

// One read per detection.
void collect(Network &Net, const std::vector<torch::Tensor> &Frames,
             std::vector<float> &Scores) {
  Net.Model->to(torch::kCUDA);
  for (const torch::Tensor &Frame : Frames) {
    torch::Tensor Detections = Net.predict(Frame.to(torch::kCUDA));
    for (int64_t D = 0; D < Detections.size(0); ++D)
      Scores.push_back(Detections[D].item<float>());
    // XFER-WARNING: :[[@LINE-1]]:38: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 76: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :76:5: note: loop starts here
    // XFER-NOTE: :77:38: note: each iteration reads one element of 'Detections': copy it to the host once before the loop ('Detections.cpu()') and read the elements there, one wait instead of one per element
  }
}

// A running sum can stay on the device until the end.
float score(Network &Net, const std::vector<torch::Tensor> &Frames) {
  Net.Model->to(torch::kCUDA);
  float Total = 0;
  for (const torch::Tensor &Frame : Frames) {
    torch::Tensor Output = Net.predict(Frame.to(torch::kCUDA));
    Total += Output[0].item<float>();
    // XFER-WARNING: :[[@LINE-1]]:24: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 88: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :88:3: note: loop starts here
  }
  return Total;
}

// Read only to be printed.
void show(Network &Net, const std::vector<torch::Tensor> &Frames) {
  Net.Model->to(torch::kCUDA);
  for (const torch::Tensor &Frame : Frames) {
    torch::Tensor Output = Net.predict(Frame.to(torch::kCUDA));
    float Confidence = Output[0].item<float>();
    // XFER-WARNING: :[[@LINE-1]]:34: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 100: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :100:3: note: loop starts here
    std::cout << Confidence << "\n";
  }
}

void record(float Loss);

// A training step's loss handed to a logger is a metric, not a result.
void train(Network &Net, const std::vector<torch::Tensor> &Batches) {
  Net.Model->to(torch::kCUDA);
  for (const torch::Tensor &Batch : Batches) {
    torch::Tensor Loss = Net.predict(Batch.to(torch::kCUDA)).sum();
    Loss.backward();
    float Value = Loss.item<float>();
    // XFER-WARNING: :[[@LINE-1]]:24: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 114: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :114:3: note: loop starts here
    record(Value);
  }
}
