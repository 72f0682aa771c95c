// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A buffer a layer makes the first time, or again when the input's shape
// changes, is allocated during warm-up, not on every step: silent. The
// branch remakes it through a method of the buffer that sets what the
// condition tests.
#include <cuda_runtime.h>

struct Matrix {
  float *Data = nullptr;
  int Rows = 0, Cols = 0;
  bool Allocated = false;
  void allocate(int R, int C) {
    if (Allocated)
      release();
    Rows = R;
    Cols = C;
    cudaMalloc((void **)&Data, R * C * sizeof(float));
    Allocated = true;
  }
  void release() {
    if (Allocated) {
      cudaFree(Data);
      Allocated = false;
    }
  }
};

__global__ void multiply(float *Out, const float *In);

struct Dense {
  Matrix Output, Grad, Scratch;
  // Negatives: made the first time, or when the shape changes.
  Matrix &forward(const Matrix &In) {
    if (!Output.Allocated || Output.Rows != In.Rows || Output.Cols != 4)
      Output.allocate(In.Rows, 4);
    if (!Grad.Allocated)
      Grad.allocate(In.Rows, 4);
    multiply<<<1, 32>>>(Output.Data, In.Data);
    return Output;
  }
  // Positive: the test reads another object's state than the one remade.
  Matrix &scratch(const Matrix &In) {
    if (!Output.Allocated || In.Rows > 0)
      Scratch.allocate(In.Rows, 4);
    multiply<<<1, 32>>>(Scratch.Data, In.Data);
    return Scratch;
  }
};

void train(Dense &Layer, const Matrix &In, int Steps) {
  for (int Step = 0; Step < Steps; ++Step)
    Layer.forward(In);
  for (int Step = 0; Step < Steps; ++Step)
    Layer.scratch(In);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'scratch()' synchronizes with the GPU on every iteration of the loop at line 55: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
  // XFER-NOTE: :46:15: note: which calls 'allocate()' here
  // XFER-NOTE: :16:7: note: which calls 'release()' here
  // XFER-NOTE: :24:7: note: 'cudaFree' synchronizes with the GPU here
  // XFER-NOTE: :19:5: note: 'cudaMalloc' synchronizes with the GPU here too
}
