// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// A local object whose constructor allocates device memory, or whose
// destructor frees it, synchronizes on every iteration of the loop it is
// declared in: cudaMalloc and cudaFree wait for the device.
#include <cuda_runtime.h>
#include <thrust/device_vector.h>

void launchWork(float *Data, int N);

class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t Bytes) {
    cudaMalloc(reinterpret_cast<void **>(&Data), Bytes);
  }
  ~DeviceBuffer() { cudaFree(Data); }
  float *get() { return Data; }

private:
  float *Data = nullptr;
};

// Takes over a buffer allocated elsewhere and frees it.
class OwnedBuffer {
public:
  explicit OwnedBuffer(float *Adopted) : Data(Adopted) {}
  ~OwnedBuffer() { cudaFree(Data); }

private:
  float *Data;
};

// A view: neither allocates nor frees.
struct DeviceSpan {
  float *Data;
  int Size;
};

void scratchPerStep(float *Input, int Steps, int N) {
  DeviceBuffer Reused(N * sizeof(float)); // once, before the loop
  for (int Step = 0; Step < Steps; ++Step) {
    thrust::device_vector<float> Scratch(N);
    // XFER-WARNING: :[[@LINE-1]]:34: warning: 'Scratch' synchronizes with the GPU when it is created and when it goes out of scope on every iteration of the loop at line 41: the host waits for all queued device work; create it once before the loop and reuse it [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    DeviceBuffer Temp(N * sizeof(float));
    // XFER-WARNING: :[[@LINE-1]]:18: warning: 'Temp' synchronizes with the GPU when it is created and when it goes out of scope on every iteration of the loop at line 41: the host waits for all queued device work; create it once before the loop and reuse it [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-6]]:3: note: loop starts here
    // XFER-NOTE: :14:5: note: 'cudaMalloc' synchronizes with the GPU here
    // XFER-NOTE: :16:21: note: 'cudaFree' synchronizes with the GPU here
    OwnedBuffer Owner(Input);
    // XFER-WARNING: :[[@LINE-1]]:17: warning: 'Owner' synchronizes with the GPU when it goes out of scope on every iteration of the loop at line 41: the host waits for all queued device work; create it once before the loop and reuse it [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-11]]:3: note: loop starts here
    // XFER-NOTE: :27:20: note: 'cudaFree' synchronizes with the GPU here
    thrust::device_vector<float> Empty; // allocates nothing
    DeviceSpan View{Reused.get(), N};   // a view
    launchWork(Scratch.data(), N);
    launchWork(Temp.get(), N);
    launchWork(View.Data, View.Size);
  }
}

// Deleting such an object in a loop frees its memory there.
void deletePerStep(int Steps, int N) {
  DeviceBuffer *Kept = new DeviceBuffer(N * sizeof(float));
  for (int Step = 0; Step < Steps; ++Step) {
    DeviceBuffer *Gradient = new DeviceBuffer(N * sizeof(float));
    // XFER-WARNING: :[[@LINE-1]]:30: warning: creating a 'DeviceBuffer' synchronizes with the GPU on every iteration of the loop at line 65: its constructor waits for all queued device work; keep one object and reuse it [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    // XFER-NOTE: :14:5: note: 'cudaMalloc' synchronizes with the GPU here
    launchWork(Gradient->get(), N);
    delete Gradient;
    // XFER-WARNING: :[[@LINE-1]]:5: warning: deleting a 'DeviceBuffer' synchronizes with the GPU on every iteration of the loop at line 65: its destructor waits for all queued device work; keep one object and reuse it [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-8]]:3: note: loop starts here
    // XFER-NOTE: :16:21: note: 'cudaFree' synchronizes with the GPU here
    DeviceSpan *View = new DeviceSpan{Kept->get(), N};
    delete View; // frees host memory only
  }
  delete Kept;
}

// Temporaries live to the end of their statement: one built in a loop
// allocates and frees on every iteration too.
DeviceBuffer makeBuffer(size_t Bytes);
void consume(DeviceBuffer Buffer);

void temporariesPerStep(int Steps, int N) {
  for (int Step = 0; Step < Steps; ++Step) {
    launchWork(DeviceBuffer(N * sizeof(float)).get(), N);
    // XFER-WARNING: :[[@LINE-1]]:16: warning: a temporary 'DeviceBuffer' synchronizes with the GPU when it is created and when it is destroyed on every iteration of the loop at line 87: the host waits for all queued device work; create one object before the loop and reuse it [xfer-sync-in-loop]
    // XFER-NOTE: :87:3: note: loop starts here
    // XFER-NOTE: :14:5: note: 'cudaMalloc' synchronizes with the GPU here
    // XFER-NOTE: :16:21: note: 'cudaFree' synchronizes with the GPU here
    launchWork(makeBuffer(N * sizeof(float)).get(), N);
    // XFER-WARNING: :[[@LINE-1]]:16: warning: a temporary 'DeviceBuffer' synchronizes with the GPU when it is destroyed on every iteration of the loop at line 87: the host waits for all queued device work; create one object before the loop and reuse it [xfer-sync-in-loop]
    // XFER-NOTE: :87:3: note: loop starts here
    // XFER-NOTE: :16:21: note: 'cudaFree' synchronizes with the GPU here
    auto Named = DeviceBuffer(N * sizeof(float));
    // XFER-WARNING: :[[@LINE-1]]:10: warning: 'Named' synchronizes with the GPU when it is created and when it goes out of scope on every iteration of the loop at line 87: the host waits for all queued device work; create it once before the loop and reuse it [xfer-sync-in-loop]
    // XFER-NOTE: :87:3: note: loop starts here
    // XFER-NOTE: :14:5: note: 'cudaMalloc' synchronizes with the GPU here
    // XFER-NOTE: :16:21: note: 'cudaFree' synchronizes with the GPU here
    launchWork(Named.get(), N);
    launchWork(DeviceSpan{Named.get(), N}.Data, N); // a view: no temporary cost
  }
  // Negative: once, before or after the loop.
  launchWork(DeviceBuffer(N * sizeof(float)).get(), N);
}

// A function called on every iteration that makes such an object makes it
// on every iteration: reported at the call, down to the allocation.
void backpropagate(float *Weights, int N) {
  DeviceBuffer Delta(N * sizeof(float));
  launchWork(Delta.get(), N);
  launchWork(Weights, N);
}

void trainSamples(float *Weights, int Samples, int N) {
  for (int S = 0; S < Samples; ++S)
    backpropagate(Weights, N);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'backpropagate()' synchronizes with the GPU on every iteration of the loop at line 118: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :118:3: note: loop starts here
    // XFER-NOTE: :14:5: note: 'cudaMalloc' synchronizes with the GPU here
    // XFER-NOTE: :16:21: note: 'cudaFree' synchronizes with the GPU here too
}
