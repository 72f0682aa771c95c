// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// A helper that allocates, waits and frees on every call costs each of
// them: the finding at the call in the loop points at every one, each
// operation once, whichever call path reaches it.
#include <cuda_runtime.h>

__global__ void scale(float *Data, int N);

static void waitForDevice() { cudaDeviceSynchronize(); }

static void multiplyBatched(float *Out, const float *In, int N) {
  float **Pointers;
  cudaMalloc((void **)&Pointers, 3 * sizeof(float *));
  scale<<<1, 32>>>(Out, N);
  waitForDevice();
  cudaFree(Pointers);
}

// Called twice: its operations are listed once.
static void forwardLayer(float *Out, const float *In, int N, int Step) {
  multiplyBatched(Out, In, N);
  multiplyBatched(Out, In, N);
  if (Step % 100 == 0) // every 100 calls only: not a cost of every call
    cudaDeviceSynchronize();
}

// A helper that copies back, launches and waits: each check lists its own
// kind.
static float readAndWait(float *Device, float *Host, int N) {
  cudaMemcpy(Host, Device, N * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(Host + 1, Device + 1, sizeof(float), cudaMemcpyDeviceToHost);
  scale<<<1, 32>>>(Device, N);
  cudaStreamSynchronize(0);
  return Host[0];
}

void train(float *Out, const float *In, float *Host, int N, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    forwardLayer(Out, In, N, Step);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'forwardLayer()' synchronizes with the GPU on every iteration of the loop at line 39: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :39:3: note: loop starts here
    // XFER-NOTE: :22:3: note: which calls 'multiplyBatched()' here
    // XFER-NOTE: :14:3: note: 'cudaMalloc' synchronizes with the GPU here
    // XFER-NOTE: :10:31: note: 'cudaDeviceSynchronize' synchronizes with the GPU here too
    // XFER-NOTE: :17:3: note: 'cudaFree' synchronizes with the GPU here too
    readAndWait(Out, Host, N);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'readAndWait()' synchronizes with the GPU on every iteration of the loop at line 39: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :39:3: note: loop starts here
    // XFER-NOTE: :34:3: note: 'cudaStreamSynchronize' synchronizes with the GPU here
    // XFER-WARNING: :[[@LINE-4]]:5: warning: 'readAndWait()' copies device memory to the host on every iteration of the loop at line 39: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :39:3: note: loop starts here
    // XFER-NOTE: :31:3: note: 'cudaMemcpy' copies device memory to the host here
    // XFER-NOTE: :32:3: note: 'cudaMemcpy' copies device memory to the host here too
  }
}

// A virtual call runs every overrider defined here: each one's operations.
struct Layer {
  virtual ~Layer() = default;
  virtual void forward(float *Data, int N) = 0;
};
struct Dense : Layer {
  void forward(float *Data, int N) override {
    scale<<<1, 32>>>(Data, N);
    cudaDeviceSynchronize();
  }
};
struct Softmax : Layer {
  void forward(float *Data, int N) override {
    float *Sum;
    cudaMalloc((void **)&Sum, sizeof(float));
    scale<<<1, 32>>>(Data, N);
    cudaFree(Sum);
  }
};
void infer(Layer &Model, float *Data, int N, int Batches) {
  for (int Batch = 0; Batch < Batches; ++Batch)
    Model.forward(Data, N);
    // XFER-WARNING: :[[@LINE-1]]:11: warning: 'forward()' synchronizes with the GPU on every iteration of the loop at line 78: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :78:3: note: loop starts here
    // XFER-NOTE: :66:5: note: 'cudaDeviceSynchronize' synchronizes with the GPU here
    // XFER-NOTE: :72:5: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :74:5: note: 'cudaFree' synchronizes with the GPU here too
}

// Thirty-four allocations: the finding lists thirty-two operations at most.
static void allocateMany() {
  void *P;
  cudaMalloc(&P, 1);
  cudaMalloc(&P, 2);
  cudaMalloc(&P, 3);
  cudaMalloc(&P, 4);
  cudaMalloc(&P, 5);
  cudaMalloc(&P, 6);
  cudaMalloc(&P, 7);
  cudaMalloc(&P, 8);
  cudaMalloc(&P, 9);
  cudaMalloc(&P, 10);
  cudaMalloc(&P, 11);
  cudaMalloc(&P, 12);
  cudaMalloc(&P, 13);
  cudaMalloc(&P, 14);
  cudaMalloc(&P, 15);
  cudaMalloc(&P, 16);
  cudaMalloc(&P, 17);
  cudaMalloc(&P, 18);
  cudaMalloc(&P, 19);
  cudaMalloc(&P, 20);
  cudaMalloc(&P, 21);
  cudaMalloc(&P, 22);
  cudaMalloc(&P, 23);
  cudaMalloc(&P, 24);
  cudaMalloc(&P, 25);
  cudaMalloc(&P, 26);
  cudaMalloc(&P, 27);
  cudaMalloc(&P, 28);
  cudaMalloc(&P, 29);
  cudaMalloc(&P, 30);
  cudaMalloc(&P, 31);
  cudaMalloc(&P, 32);
  cudaMalloc(&P, 33);
  cudaMalloc(&P, 34);
}
void allocateEachStep(float *Data, int N, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    allocateMany();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'allocateMany()' synchronizes with the GPU on every iteration of the loop at line 126: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :126:3: note: loop starts here
    // XFER-NOTE: :90:3: note: 'cudaMalloc' synchronizes with the GPU here
    // XFER-NOTE: :91:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :92:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :93:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :94:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :95:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :96:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :97:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :98:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :99:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :100:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :101:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :102:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :103:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :104:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :105:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :106:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :107:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :108:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :109:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :110:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :111:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :112:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :113:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :114:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :115:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :116:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :117:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :118:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :119:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :120:3: note: 'cudaMalloc' synchronizes with the GPU here too
    // XFER-NOTE: :121:3: note: 'cudaMalloc' synchronizes with the GPU here too
    scale<<<1, 32>>>(Data, N);
  }
}
