// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A tensor member the program sets only where the object is set up (in the
// constructor, or in a set-up method no step runs) holds the same values on
// every step: uploading it, or a part of it, on every step is a copy to
// hoist. A member a step changes (a template updated on each frame) is new
// data.
#include <torch/torch.h>

class Tracker {
public:
  Tracker() { Anchors = torch::rand({100, 4}); }
  void reset() { Window = torch::rand({100}); }

  torch::Tensor decode(const torch::Tensor &Delta) {
    return Delta * Anchors.narrow(1, 2, 1).t().cuda() + Window.cuda();
  }
  torch::Tensor match(const torch::Tensor &Patch) {
    Template = Template * 0.9;
    return Patch * Template.cuda();
  }

private:
  torch::Tensor Anchors, Window, Template;
};

void track(Tracker &T, torch::Tensor Frames, int Count) {
  T.reset();
  torch::Tensor Delta = torch::rand({4, 100}, torch::kCUDA);
  for (int F = 0; F < Count; ++F) {
    torch::Tensor Box = T.decode(Delta);
    // XFER-WARNING: :[[@LINE-1]]:27: warning: 'decode()' copies part of member 'Anchors' to the GPU on every iteration of the loop at line 31, but the program sets 'Anchors' only when the object is set up: keep a device copy (move it to the device once, or register it as a buffer so that moving the module moves it) [xfer-copy-in-loop]
    // XFER-NOTE: :31:3: note: loop starts here
    // XFER-NOTE: :17:48: note: 'cuda()' copies host memory to the GPU here
    // XFER-NOTE: :17:64: note: 'cuda()' copies the same host data to the GPU here too
    torch::Tensor Score = T.match(Box);
    (void)Score;
  }
}
