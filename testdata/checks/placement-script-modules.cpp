// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// A TorchScript module's outputs are where its inputs are; a device named
// by a string read at run time is a GPU the program may run on.
#include <torch/script.h>
#include <string>

struct Detector {
  torch::jit::script::Module Model;
  std::string DeviceName;
  explicit Detector(std::string Name) : DeviceName(Name) { Model.to(Name); }

  void detect(torch::Tensor Frame, int Frames) {
    for (int I = 0; I < Frames; ++I) {
      torch::Tensor Input = Frame.to(DeviceName);
      auto Output = Model.forward({Input});
      torch::Tensor Boxes = Output.toTensor();
      float Best = Boxes.sum().item<float>();
      // XFER-WARNING: :[[@LINE-1]]:32: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 14: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-6]]:5: note: loop starts here
      torch::Tensor First = Output.toTuple()->elements()[0].toTensor();
      float Score = First.sum().item<float>();
      // XFER-WARNING: :[[@LINE-1]]:33: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 14: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-10]]:5: note: loop starts here
      (void)Best;
      (void)Score;
    }
  }
};

// Inputs kept on the host: the module runs there, and reading its output
// costs nothing.
void onHost(torch::jit::script::Module &Model, torch::Tensor Frame,
            int Frames) {
  for (int I = 0; I < Frames; ++I) {
    auto Output = Model.forward({Frame.to(torch::kCPU)});
    (void)Output.toTensor().sum().item<float>();
  }
}

// The tutorial's spelling: inputs pushed into a vector of IValues first.
void pushedInputs(torch::jit::script::Module &Model, torch::Tensor Frame,
                  int Frames) {
  torch::Device Gpu(torch::kCUDA);
  for (int I = 0; I < Frames; ++I) {
    std::vector<torch::jit::IValue> Inputs;
    Inputs.push_back(Frame.to(Gpu));
    float Score = Model.forward(Inputs).toTensor().sum().item<float>();
    // XFER-WARNING: :[[@LINE-1]]:58: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 45: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-5]]:3: note: loop starts here
    std::vector<torch::jit::IValue> HostInputs{Frame};
    HostInputs.emplace_back(Frame.to(torch::kCPU));
    (void)Model.forward(HostInputs).toTensor().sum().item<float>(); // host
    (void)Score;
  }
}

// A tuple's parts held in variables on the way down to the tensor.
void partsInVariables(torch::jit::script::Module &Model, torch::Tensor Frame,
                      int Frames) {
  for (int I = 0; I < Frames; ++I) {
    std::vector<torch::jit::IValue> Inputs;
    Inputs.push_back(Frame.to(torch::kCUDA));
    auto Results = Model.forward(Inputs).toTuple();
    auto Parts = Results->elements();
    torch::Tensor Regression = Parts[0].toTensor();
    float Offset = Regression.sum().item<float>();
    // XFER-WARNING: :[[@LINE-1]]:37: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 61: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :61:3: note: loop starts here
    (void)Offset;
  }
}
