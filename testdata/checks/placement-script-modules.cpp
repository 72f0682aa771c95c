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
      // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 14: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // CHECK-NOTES: :[[@LINE-6]]:5: note: loop starts here
      torch::Tensor First = Output.toTuple()->elements()[0].toTensor();
      float Score = First.sum().item<float>();
      // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 14: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // CHECK-NOTES: :[[@LINE-10]]:5: note: loop starts here
      (void)Best;
      (void)Score;
    }
  }

  // The outputs unpacked into a local stack first, then read one
  // coordinate at a time.
  void keypoints(torch::Tensor Frame, std::vector<float> &Xs) {
    torch::IValue Output = Model.forward({Frame.to(DeviceName)});
    torch::jit::Stack Outputs = Output.toTuple()->elements();
    torch::Tensor Points = Outputs[0].toTensor();
    for (int I = 0; I < Points.size(0); ++I)
      Xs.push_back(Points[I][0].item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 36: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // CHECK-NOTES: :[[@LINE-3]]:5: note: loop starts here
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
    // CHECK-MESSAGES: :[[@LINE-1]]:58: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 57: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // CHECK-NOTES: :[[@LINE-5]]:3: note: loop starts here
    std::vector<torch::jit::IValue> HostInputs{Frame};
    HostInputs.emplace_back(Frame.to(torch::kCPU));
    (void)Model.forward(HostInputs).toTensor().sum().item<float>(); // host
    (void)Score;
  }
}

// A device member that starts on the host and is set to a GPU in the
// constructor when one is asked for and present: a run-time choice.
struct Aligner {
  torch::Device Dev{torch::kCPU};
  torch::jit::script::Module Net;
  explicit Aligner(bool UseGpu) {
    if (UseGpu && torch::cuda::is_available()) {
      torch::Device Cuda(torch::kCUDA);
      Dev = Cuda;
    }
    Net.to(Dev);
  }
  void points(torch::Tensor Frame, bool Half, std::vector<float> &Xs) {
    torch::Tensor Input;
    if (Half)
      Input = Frame.to(torch::kFloat).to(Dev);
    else
      Input = Frame.to(Dev);
    torch::IValue Output = Net.forward({Input, Input});
    torch::jit::Stack Outputs = Output.toTuple()->elements();
    torch::Tensor Out = Outputs[0].toTensor();
    for (int I = 0; I < Out.size(0); ++I)
      Xs.push_back(Out[I].item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 91: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // CHECK-NOTES: :[[@LINE-3]]:5: note: loop starts here
  }
};
