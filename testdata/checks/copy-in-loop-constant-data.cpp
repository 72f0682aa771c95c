// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
// Data that holds the same values every time (a filter's weights computed
// from constants, a constant table) uploaded on every iteration, directly or
// in a helper the loop calls: copy it once and keep the device copy.
#include <cmath>
#include <cuda_runtime.h>

void blur(float *Out, const float *In, const float *Weights);

static const float Sobel[9] = {1, 0, -1, 2, 0, -2, 1, 0, -1};
float Scale = 1.0f;

float *gaussian(int Size, float Sigma) {
  float *Weights = new float[Size * Size];
  for (int I = 0; I < Size * Size; ++I)
    Weights[I] = std::exp(-I / Sigma);
  return Weights;
}

float *scaledGaussian(int Size, float Sigma) {
  float *Weights = gaussian(Size, Sigma);
  for (int I = 0; I < Size * Size; ++I)
    Weights[I] *= Scale; // a global the program may change
  return Weights;
}

void filterFrame(float *Out, const float *In, float *DeviceWeights) {
  const int Size = 15;
  const float *Weights = gaussian(Size, 2.0f);
  cudaMemcpy(DeviceWeights, Weights, Size * Size * sizeof(float),
             cudaMemcpyHostToDevice);
  blur(Out, In, DeviceWeights);
}

void edgeFrame(float *Out, const float *In, float *DeviceWeights) {
  cudaMemcpy(DeviceWeights, Sobel, sizeof(Sobel), cudaMemcpyHostToDevice);
  blur(Out, In, DeviceWeights);
}

void video(float *Out, const float *In, float *DeviceWeights, int Frames) {
  for (int F = 0; F < Frames; ++F) {
    filterFrame(Out, In, DeviceWeights);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'filterFrame()' copies 'Weights' to the GPU on every iteration of the loop at line 42, but 'Weights' holds the same values every time: copy it to the GPU once and keep the device copy [xfer-copy-in-loop]
    // XFER-NOTE: :42:3: note: loop starts here
    // XFER-NOTE: :31:3: note: 'cudaMemcpy' copies host memory to the GPU here
    edgeFrame(Out, In, DeviceWeights);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'edgeFrame()' copies 'Sobel' to the GPU on every iteration of the loop at line 42, but 'Sobel' holds the same values every time: copy it to the GPU once and keep the device copy [xfer-copy-in-loop]
    // XFER-NOTE: :42:3: note: loop starts here
    // XFER-NOTE: :37:3: note: 'cudaMemcpy' copies host memory to the GPU here
    const float Box[3] = {1.0f / 3, 1.0f / 3, 1.0f / 3};
    cudaMemcpy(DeviceWeights, Box, sizeof(Box), cudaMemcpyHostToDevice);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies 'Box' to the GPU on every iteration of the loop at line 42, but 'Box' holds the same values every time: copy it to the GPU once and keep the device copy [xfer-copy-in-loop]
    // XFER-NOTE: :42:3: note: loop starts here
    blur(Out, In, DeviceWeights);
  }
}

// Negatives: weights that depend on what the loop or the program changes.
void changingWeights(float *Out, const float *In, float *DeviceWeights,
                     int Frames, float Sigma) {
  for (int F = 0; F < Frames; ++F) {
    float *Weights = gaussian(15, Sigma + F);
    cudaMemcpy(DeviceWeights, Weights, 225 * sizeof(float),
               cudaMemcpyHostToDevice);
    blur(Out, In, DeviceWeights);
    float *Scaled = scaledGaussian(15, 2.0f);
    cudaMemcpy(DeviceWeights, Scaled, 225 * sizeof(float),
               cudaMemcpyHostToDevice);
    blur(Out, In, DeviceWeights);
    float *Adjusted = gaussian(15, 2.0f);
    Adjusted[0] = static_cast<float>(F);
    cudaMemcpy(DeviceWeights, Adjusted, 225 * sizeof(float),
               cudaMemcpyHostToDevice);
    blur(Out, In, DeviceWeights);
    const float Step[1] = {static_cast<float>(F)};
    cudaMemcpy(DeviceWeights, Step, sizeof(Step), cudaMemcpyHostToDevice);
    blur(Out, In, DeviceWeights);
  }
}

// A counter or flag the host sets to a constant and uploads on every
// iteration is a reset the device can do itself; a computed value is new.
// XFER-WARNING: :[[@LINE+9]]:5: warning: 'cudaMemcpy' copies 'HostDone' to the GPU on every iteration of the loop at line 91 only to set it to the constant the host wrote at line 92: set the device copy with cudaMemsetAsync or a kernel instead, which does not wait [xfer-copy-in-loop]
// XFER-NOTE: :91:3: note: loop starts here
void relaxLevel(bool *DeviceDone, int Level);
void expandFrontier(int *DeviceTail, int Level);
void levelSynchronousSearch(bool *HostDone, bool *DeviceDone, int *DeviceTail,
                            int Levels) {
  int Level = 0;
  while (!(*HostDone)) {
    *HostDone = true;
    cudaMemcpy(DeviceDone, HostDone, sizeof(bool), cudaMemcpyHostToDevice);
    relaxLevel(DeviceDone, Level);
    cudaMemcpy(HostDone, DeviceDone, sizeof(bool), cudaMemcpyDeviceToHost);
    ++Level;
  }
  int Tail = 0;
  for (int L = 0; L < Levels; ++L) {
    Tail = 0;
    cudaMemcpy(DeviceTail, &Tail, sizeof(int), cudaMemcpyHostToDevice);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies 'Tail' to the GPU on every iteration of the loop at line 99 only to set it to the constant the host wrote at line 100: set the device copy with cudaMemsetAsync or a kernel instead, which does not wait [xfer-copy-in-loop]
    // XFER-NOTE: :99:3: note: loop starts here
    expandFrontier(DeviceTail, L);
    cudaMemcpy(&Tail, DeviceTail, sizeof(int), cudaMemcpyDeviceToHost);
    expandFrontier(DeviceTail, Tail);
  }
}

extern "C" void *memset(void *, int, unsigned long);
void countFrontier(int *DeviceCount, float *Device);
int frontierSizes(int *DeviceCount, float *Device, int Levels) {
  int Total = 0;
  for (int L = 0; L < Levels; ++L) {
    int Count = 0;
    Total += L;
    int Seed = Total * 2;
    cudaMemcpy(DeviceCount, &Seed, sizeof(int), cudaMemcpyHostToDevice);
    countFrontier(DeviceCount, Device);
    int Zero;
    memset(&Zero, 0, sizeof(int));
    Zero = Total;
    cudaMemcpy(DeviceCount, &Zero, sizeof(int), cudaMemcpyHostToDevice);
    (void)Count;
  }
  return Total;
}

// The same resets written through an error-checking macro: the macro's
// statement is the one after the host's write. A termination flag's reset
// is reported like any other.
#define CHECK_CUDA(call)                                                       \
  do {                                                                         \
    cudaError_t Status = (call);                                               \
    if (Status != cudaSuccess)                                                 \
      return;                                                                  \
  } while (0)
void checkedResets(int *DeviceTail, bool *DeviceDone, cudaStream_t Stream,
                   int Levels) {
  for (int L = 0; L < Levels; ++L) {
    int Tail = 0;
    CHECK_CUDA(cudaMemcpy(DeviceTail, &Tail, sizeof(int),
                          cudaMemcpyHostToDevice));
    // XFER-WARNING: :[[@LINE-2]]:16: warning: 'cudaMemcpy' copies 'Tail' to the GPU on every iteration of the loop at line 140 only to set it to the constant the host wrote at line 141: set the device copy with cudaMemsetAsync or a kernel instead, which does not wait [xfer-copy-in-loop]
    // XFER-NOTE: :140:3: note: loop starts here
    expandFrontier(DeviceTail, L);
  }
  bool Done = false;
  while (!Done) {
    Done = true;
    CHECK_CUDA(cudaMemcpy(DeviceDone, &Done, sizeof(bool),
                          cudaMemcpyHostToDevice));
    // XFER-WARNING: :[[@LINE-2]]:16: warning: 'cudaMemcpy' copies 'Done' to the GPU on every iteration of the loop at line 149 only to set it to the constant the host wrote at line 150: set the device copy with cudaMemsetAsync or a kernel instead, which does not wait [xfer-copy-in-loop]
    // XFER-NOTE: :149:3: note: loop starts here
    relaxLevel(DeviceDone, 0);
    CHECK_CUDA(cudaMemcpyAsync(&Done, DeviceDone, sizeof(bool),
                               cudaMemcpyDeviceToHost, Stream));
    CHECK_CUDA(cudaStreamSynchronize(Stream));
  }
}

// A local array filled by a function of the file from constants only is the
// same data on every iteration; filled from the frame number, it is new.
void fillWeights(float *Weights) {
  for (int I = 0; I < 25; ++I)
    Weights[I] = 1.0f / (1 + I);
}
void fillShifted(float *Weights, int Shift) {
  for (int I = 0; I < 25; ++I)
    Weights[I] = 1.0f / (1 + I + Shift);
}
void filterFrames(float *Out, const float *In, float *DeviceWeights,
                  int Frames) {
  for (int F = 0; F < Frames; ++F) {
    float Weights[25];
    fillWeights(Weights);
    cudaMemcpy(DeviceWeights, Weights, sizeof(Weights),
               cudaMemcpyHostToDevice);
    // XFER-WARNING: :[[@LINE-2]]:5: warning: 'cudaMemcpy' copies 'Weights' to the GPU on every iteration of the loop at line 174, but 'Weights' holds the same values every time: copy it to the GPU once and keep the device copy [xfer-copy-in-loop]
    // XFER-NOTE: :174:3: note: loop starts here
    blur(Out, In, DeviceWeights);
    float Shifted[25];
    fillShifted(Shifted, F);
    cudaMemcpy(DeviceWeights, Shifted, sizeof(Shifted),
               cudaMemcpyHostToDevice);
    blur(Out, In, DeviceWeights);
  }
}
