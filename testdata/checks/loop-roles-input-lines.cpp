// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop,xfer-create-on-device
// A loop that reads its input line by line (a data file parsed at load
// time) loads what the program will work on: what it uploads and waits for
// per line is a one-time cost. A loop inside it that queues device work on
// every iteration is still a step loop, and so is a loop that reads binary
// records, frames or batches.
#include <torch/torch.h>
#include <istream>
#include <string>

torch::Tensor buildGraph(torch::Tensor Positions) {
  return Positions.masked_select(Positions > 0);
}

void loadStructures(std::istream &File, std::vector<torch::Tensor> &Graphs,
                    float *Parsed) {
  std::string Line;
  while (std::getline(File, Line)) {
    torch::Tensor Positions = torch::from_blob(Parsed, {16}).to(torch::kCUDA);
    Graphs.push_back(buildGraph(Positions));
  }
}

void refineEach(std::istream &File, std::vector<torch::Tensor> &Graphs,
                float *Parsed, int Refinements) {
  std::string Line;
  while (std::getline(File, Line)) {
    torch::Tensor Positions = torch::from_blob(Parsed, {16}).to(torch::kCUDA);
    for (int R = 0; R < Refinements; ++R) {
      Positions = Positions * 2;
      Graphs.push_back(buildGraph(Positions));
      // XFER-WARNING: :[[@LINE-1]]:24: warning: 'buildGraph()' synchronizes with the GPU on every iteration of the loop at line 30: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-4]]:5: note: loop starts here
      // XFER-NOTE: :13:20: note: 'masked_select()' synchronizes with the GPU here
    }
  }
}

torch::Tensor nextFrame(int I);
void perFrame(std::vector<torch::Tensor> &Graphs, int Frames) {
  for (int I = 0; I < Frames; ++I) {
    torch::Tensor Positions = nextFrame(I).to(torch::kCUDA);
    Graphs.push_back(buildGraph(Positions));
    // XFER-WARNING: :[[@LINE-1]]:22: warning: 'buildGraph()' synchronizes with the GPU on every iteration of the loop at line 42: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    // XFER-NOTE: :13:20: note: 'masked_select()' synchronizes with the GPU here
  }
}

// Per record, a helper builds the record's label on the GPU from a host
// value: load time, silent. The same helper called on every step is not.
void loadEnergies(std::istream &File, std::vector<torch::Tensor> &Energies,
                  int Steps) {
  std::string Line;
  float Energy = 0;
  auto Save = [&]() {
    Energies.push_back(
        torch::tensor({Energy}, torch::TensorOptions().device(torch::kCUDA)));
  };
  while (std::getline(File, Line))
    Save();
}
void stepEnergies(std::vector<torch::Tensor> &Energies, int Steps) {
  float Energy = 0;
  auto Save = [&]() {
    Energies.push_back(
        torch::tensor({Energy}, torch::TensorOptions().device(torch::kCUDA)));
    // XFER-WARNING: :[[@LINE-1]]:9: warning: tensor built from host values by 'torch::tensor()' is copied to the GPU; fill it on the device instead (torch::full with the value, or pass the scalar to the operation that uses it) [xfer-create-on-device]
  };
  for (int S = 0; S < Steps; ++S) {
    Energy += 1;
    Save();
  }
}

// A loop that trains on each record it reads (one sample per line of a
// CSV file) is the training loop.
struct Network {
  torch::Tensor Weights;
  void train(const torch::Tensor &Input);
};

void Network::train(const torch::Tensor &Input) {
  float Norm = Weights.mul(Input).sum().item<float>();
  (void)Norm;
}

void trainFromLines(std::istream &In, Network &Net) {
  Net.Weights = torch::ones({4}, torch::kCUDA);
  std::string Line;
  while (std::getline(In, Line))
    Net.train(torch::ones({4}, torch::kCUDA));
    // XFER-WARNING: :[[@LINE-1]]:9: warning: 'train()' synchronizes with the GPU on every iteration of the loop at line 92: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :92:3: note: loop starts here
    // XFER-NOTE: :85:41: note: 'item<float>()' synchronizes with the GPU here
}
