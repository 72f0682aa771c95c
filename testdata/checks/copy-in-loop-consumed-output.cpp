// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
// The product of an inference or simulation step that the host uses on the
// same iteration (draws, writes, returns, hands to its own code) must come
// back: the copy is necessary work, silent unless ReportOutputReadBacks.
// Copies the host does not use, only prints, or uses for LibTorch
// operations it could run on the device stay findings.
#include <cuda_runtime.h>
#include <torch/torch.h>
#include <fstream>
#include <iostream>
#include <vector>

void launchStep(float *Field, int N);
void drawFrame(const float *Pixels, int N);
void show(const torch::Tensor &Mask);

// Negatives: the field is drawn, written to a file, returned.
void simulate(float *Field, float *Host, int N, int Steps) {
  std::ofstream Out("field.txt");
  for (int Step = 0; Step < Steps; ++Step) {
    launchStep(Field, N);
    cudaMemcpy(Host, Field, N * sizeof(float), cudaMemcpyDeviceToHost);
    drawFrame(Host, N);
  }
  for (int Step = 0; Step < Steps; ++Step) {
    launchStep(Field, N);
    cudaMemcpy(Host, Field, N * sizeof(float), cudaMemcpyDeviceToHost);
    Out << Host[0];
  }
}

std::vector<float> segment(torch::nn::Linear &Model, torch::Tensor Frame,
                           int Frames) {
  torch::NoGradGuard NoGrad;
  std::vector<float> Areas;
  torch::Tensor Input = Frame.to(torch::kCUDA);
  for (int F = 0; F < Frames; ++F) {
    torch::Tensor Mask = Model->forward(Input);
    torch::Tensor Host = Mask.to(torch::kCPU);
    show(Host);
    Areas.push_back(*Mask.cpu().data_ptr<float>());
  }
  return Areas;
}

// Positives: the copy is never used, only printed, or only fed to LibTorch
// operations; a copy in a training loop serves logging or metrics.
void unusedCopies(float *Field, float *Host, float *Shown, int N, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    launchStep(Field, N);
    cudaMemcpy(Host, Field, N * sizeof(float), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 50: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    cudaMemcpy(Shown, Field, N * sizeof(float), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 50: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-7]]:3: note: loop starts here
    std::cout << Shown[0] << "\n";
  }
}

void trainAndLog(torch::nn::Linear &Model, torch::optim::SGD &Optimizer,
                 torch::Tensor X, int Steps) {
  torch::Tensor Input = X.to(torch::kCUDA);
  for (int Step = 0; Step < Steps; ++Step) {
    torch::Tensor Out = Model->forward(Input);
    Out.sum().backward();
    Optimizer.step();
    torch::Tensor Host = Out.cpu();
    // XFER-WARNING: :[[@LINE-1]]:30: warning: 'cpu()' copies device memory to the host on every iteration of the loop at line 65: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-6]]:3: note: loop starts here
    show(Host);
  }
}

void hostArithmetic(torch::nn::Linear &Model, torch::Tensor X, int Frames) {
  torch::NoGradGuard NoGrad;
  torch::Tensor Total = torch::zeros({4});
  torch::Tensor Input = X.to(torch::kCUDA);
  for (int F = 0; F < Frames; ++F) {
    torch::Tensor Out = Model->forward(Input);
    torch::Tensor Host = Out.cpu();
    // XFER-WARNING: :[[@LINE-1]]:30: warning: 'cpu()' copies device memory to the host on every iteration of the loop at line 80: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    Total.add_(Host);
  }
}

// The same through structured bindings, reassigned with their host copies.
void detectFrames(torch::nn::Linear &Model, torch::Tensor Frame, int Frames) {
  torch::NoGradGuard NoGrad;
  torch::Tensor Input = Frame.to(torch::kCUDA);
  for (int F = 0; F < Frames; ++F) {
    auto [Scores, Classes] = Model->forward(Input).max(1);
    Classes = Classes.cpu();
    show(Classes);
    Scores = Scores.cpu();
    // XFER-WARNING: :[[@LINE-1]]:21: warning: 'cpu()' copies device memory to the host on every iteration of the loop at line 93: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :93:3: note: loop starts here
    Scores.add_(Scores);
  }
}

// A field copied back, rescaled by the host and uploaded again in the same
// step is a round trip: the host's work belongs on the device, however the
// host also uses the field (written to a file here).
void pressureStep(float *Field, int N); // launches a kernel
void roundTrip(float *Device, float *Host, int N, int Steps) {
  std::ofstream Out("pressure.dat");
  for (int Step = 0; Step < Steps; ++Step) {
    pressureStep(Device, N);
    cudaMemcpy(Host, Device, N * sizeof(float), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 110: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    for (int I = 0; I < N; ++I)
      Host[I] = Host[I] / N;
    Out.write(reinterpret_cast<const char *>(Host), N * sizeof(float));
    cudaMemcpy(Device, Host, N * sizeof(float), cudaMemcpyHostToDevice);
  }
}

// Data streamed through the device in chunks, larger than its memory: each
// chunk comes back and the next goes up, the host changes nothing in
// between. Written out, the result is the product.
void streamChunks(float *Device, float *Host, int Chunk, int Chunks) {
  std::ofstream Out("result.dat");
  for (int C = 0; C < Chunks; ++C) {
    cudaMemcpy(Device, Host + C * Chunk, Chunk * sizeof(float),
               cudaMemcpyHostToDevice);
    pressureStep(Device, Chunk);
    cudaMemcpy(Host + C * Chunk, Device, Chunk * sizeof(float),
               cudaMemcpyDeviceToHost);
    Out.write(reinterpret_cast<const char *>(Host + C * Chunk),
              Chunk * sizeof(float));
  }
}

// A buffer allocated for the copy, printed from and freed: freeing it does
// not use what was copied.
void printedThenFreed(float *Field, int N, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    launchStep(Field, N);
    float *Host = (float *)malloc(N * sizeof(float));
    cudaMemcpy(Host, Field, N * sizeof(float), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 141: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-5]]:3: note: loop starts here
    printf("%f\n", Host[0]);
    free(Host);
  }
}

// A loop that reads each frame or block of input from outside the program
// and uploads it: what it copies back is the frame's result, whether or not
// this code shows the host using it (the display may be commented out).
namespace media {
struct Image {
  unsigned char *data;
};
class VideoCapture {
public:
  bool read(Image &Frame);
};
VideoCapture &operator>>(VideoCapture &Capture, Image &Frame);
} // namespace media

void subtractBackground(media::Image &Frame, unsigned char *Mask,
                        unsigned char *DeviceFrame, unsigned char *DeviceMask,
                        int Pixels, media::VideoCapture &Capture) {
  for (int F = 0; F < 1000; ++F) {
    Capture >> Frame;
    cudaMemcpy(DeviceFrame, Frame.data, Pixels, cudaMemcpyHostToDevice);
    launchStep(reinterpret_cast<float *>(DeviceMask), Pixels / 4);
    cudaMemcpy(Mask, DeviceMask, Pixels, cudaMemcpyDeviceToHost);
  }
  while (Capture.read(Frame)) {
    cudaMemcpy(DeviceFrame, Frame.data, Pixels, cudaMemcpyHostToDevice);
    launchStep(reinterpret_cast<float *>(DeviceMask), Pixels / 4);
    cudaMemcpy(Mask, DeviceMask, Pixels, cudaMemcpyDeviceToHost);
  }
  // Positive: the same loop without new input copies back what nobody uses.
  for (int F = 0; F < 1000; ++F) {
    launchStep(reinterpret_cast<float *>(DeviceMask), Pixels / 4);
    cudaMemcpy(Mask, DeviceMask, Pixels, cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on each of 1000 iterations of the loop at line 181: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :181:3: note: loop starts here
  }
}

// An image's pixels copied back into the cv::Mat the iteration then writes
// out are its product; copied into one nobody reads, they are not.
#include <opencv2/core.hpp>
#include <string>
namespace cv {
bool imwrite(const std::string &Name, const Mat &Image);
} // namespace cv
void blurFiles(const std::vector<std::string> &Files, unsigned char *DeviceOut,
               int Pixels) {
  for (const std::string &File : Files) {
    launchStep(reinterpret_cast<float *>(DeviceOut), Pixels / 4);
    cv::Mat Output(Pixels, 1, 0);
    cudaMemcpy(Output.data, DeviceOut, Pixels, cudaMemcpyDeviceToHost);
    cv::imwrite(File, Output);
  }
  for (const std::string &File : Files) {
    launchStep(reinterpret_cast<float *>(DeviceOut), Pixels / 4);
    cv::Mat Unused(Pixels, 1, 0);
    cudaMemcpy(Unused.data, DeviceOut, Pixels, cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 204: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :204:3: note: loop starts here
    (void)File;
  }
}

// A struct's host buffer is the destination too: a frame filtered on the
// device comes back into `Params.HostOut`, which the host combines and
// writes out; one copied back into a buffer nobody reads is not.
struct FilterParams {
  float *HostOut;
  float *HostUnused;
  float *DeviceOut;
  int Samples;
};
void combine(float *Output, const float *Filtered, int Samples);
void filterFrames(FilterParams &Params, float *Output, int Frames) {
  for (int F = 0; F < Frames; ++F) {
    launchStep(Params.DeviceOut, Params.Samples);
    cudaMemcpy(Params.HostOut, Params.DeviceOut,
               Params.Samples * sizeof(float), cudaMemcpyDeviceToHost);
    combine(Output, Params.HostOut, Params.Samples);
  }
  for (int F = 0; F < Frames; ++F) {
    launchStep(Params.DeviceOut, Params.Samples);
    cudaMemcpy(Params.HostUnused, Params.DeviceOut,
               Params.Samples * sizeof(float), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-2]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 231: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :231:3: note: loop starts here
  }
}

// A file reader's own read method (`readBlock`) brings each block of input.
class BlockReader {
public:
  void readBlock(float *Block, int Samples);
};
void filterFile(BlockReader &Reader, float *Block, float *Result,
                float *DeviceIn, float *DeviceOut, int Samples, int Blocks) {
  for (int B = 0; B < Blocks; ++B) {
    Reader.readBlock(Block, Samples);
    cudaMemcpy(DeviceIn, Block, Samples * sizeof(float),
               cudaMemcpyHostToDevice);
    launchStep(DeviceOut, Samples);
    cudaMemcpy(Result, DeviceOut, Samples * sizeof(float),
               cudaMemcpyDeviceToHost);
  }
}

// A method that copies into its object's buffer and returns that buffer
// hands out what the object keeps: the caller here ignores it, so the copy
// is not consumed.
class Solver {
public:
  float *multiply();
private:
  float *Host = nullptr;
  float *Device = nullptr;
  int Rows = 0;
};
float *Solver::multiply() {
  launchStep(Device, Rows);
  cudaMemcpy(Host, Device, Rows * sizeof(float), cudaMemcpyDeviceToHost);
  return Host;
}
void iterate(Solver &S, int Steps) {
  for (int Step = 0; Step < Steps; ++Step)
    S.multiply();
  // XFER-WARNING: :[[@LINE-1]]:7: warning: 'multiply()' copies device memory to the host on every iteration of the loop at line 274: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
  // XFER-NOTE: :274:3: note: loop starts here
  // XFER-NOTE: :270:3: note: 'cudaMemcpy' copies device memory to the host here
}

// Through a call: a detector called on every frame a capture delivers
// copies back that frame's result; called on frames the program already
// holds, the same copy is a finding. A scalar it reads back is a value read,
// not the frame's product.
void detectFrame(const media::Image &Frame, unsigned char *DeviceFrame,
                 unsigned char *DeviceMask, unsigned char *Mask, int *Count,
                 int *DeviceCount, int Pixels) {
  cudaMemcpy(DeviceFrame, Frame.data, Pixels, cudaMemcpyHostToDevice);
  launchStep(reinterpret_cast<float *>(DeviceMask), Pixels / 4);
  cudaMemcpy(Mask, DeviceMask, Pixels, cudaMemcpyDeviceToHost);
}
int countObjects(const media::Image &Frame, unsigned char *DeviceFrame,
                 int *DeviceCount, int Pixels) {
  cudaMemcpy(DeviceFrame, Frame.data, Pixels, cudaMemcpyHostToDevice);
  launchStep(reinterpret_cast<float *>(DeviceCount), Pixels / 4);
  int Count = 0;
  cudaMemcpy(&Count, DeviceCount, sizeof(int), cudaMemcpyDeviceToHost);
  return Count;
}
void trackObjects(media::VideoCapture &Capture, media::Image &Frame,
                  media::Image *Stored, unsigned char *DeviceFrame,
                  unsigned char *DeviceMask, unsigned char *Mask,
                  int *DeviceCount, int Pixels) {
  while (Capture.read(Frame))
    detectFrame(Frame, DeviceFrame, DeviceMask, Mask, nullptr, DeviceCount,
                Pixels);
  for (int F = 0; F < 1000; ++F)
    detectFrame(Stored[F % 8], DeviceFrame, DeviceMask, Mask, nullptr,
                DeviceCount, Pixels);
  // XFER-WARNING: :[[@LINE-2]]:5: warning: 'detectFrame()' copies device memory to the host on each of 1000 iterations of the loop at line 307: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
  // XFER-NOTE: :307:3: note: loop starts here
  // XFER-NOTE: :290:3: note: 'cudaMemcpy' copies device memory to the host here
  int Total = 0;
  while (Capture.read(Frame))
    Total += countObjects(Frame, DeviceFrame, DeviceCount, Pixels);
  // XFER-WARNING: :[[@LINE-1]]:14: warning: 'countObjects()' copies device memory to the host on every iteration of the loop at line 314: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
  // XFER-NOTE: :314:3: note: loop starts here
  // XFER-NOTE: :297:3: note: 'cudaMemcpy' copies device memory to the host here
}

// The same round trip across iterations: the step opens by uploading what
// the host changed at the end of the last one (a hybrid integrator moving
// the particles on the host through a pointer into the buffer).
struct Particle {
  float X, V;
};
void kickStep(Particle *Particles, int N); // launches a kernel
void integrate(Particle *Device, Particle *Host, int N, int Steps, float Dt) {
  for (int Step = 0; Step < Steps; ++Step) {
    cudaMemcpy(Device, Host, N * sizeof(Particle), cudaMemcpyHostToDevice);
    kickStep(Device, N);
    cudaMemcpy(Host, Device, N * sizeof(Particle), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 329: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :329:3: note: loop starts here
    for (int I = 0; I < N; ++I) {
      Particle *P = Host + I;
      P->X += P->V * Dt;
    }
  }
}

// A result the host needs, copied back one slice per iteration of a loop
// over its channels: one copy of the whole would do (LABELLING.md's
// necessary results read the wrong way).
void heatmaps(torch::nn::Linear &Model, torch::Tensor Frame, int Joints) {
  torch::NoGradGuard NoGrad;
  torch::Tensor Maps = Model->forward(Frame.to(torch::kCUDA));
  for (int J = 0; J < Joints; ++J) {
    torch::Tensor Map = Maps[J].cpu();
    // XFER-WARNING: :[[@LINE-1]]:33: warning: 'cpu()' copies device memory to the host on every iteration of the loop at line 348: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :348:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:33: note: each iteration reads one element of 'Maps': copy it to the host once before the loop ('Maps.cpu()') and read the elements there, one wait instead of one per element
    show(Map);
  }
}
