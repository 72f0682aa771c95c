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

// A scratch buffer grown only when it is too small (static size and
// pointer): silent. Remade whenever the size differs (a shrinking input
// too), it is reported.
__global__ void reduce(float *Out, const float *In, int N);

void sumColumns(float *Out, const float *In, int N) {
  static int Capacity = 0;
  static float *Scratch = nullptr;
  if (Capacity < N) {
    if (Scratch != nullptr)
      cudaFree(Scratch);
    Capacity = N;
    cudaMalloc((void **)&Scratch, sizeof(float) * Capacity);
  }
  reduce<<<1, 32>>>(Scratch, In, N);
  reduce<<<1, 32>>>(Out, Scratch, 1);
}

void sumRows(float *Out, const float *In, int N) {
  static float *Scratch = nullptr;
  if (Scratch != nullptr)
    cudaFree(Scratch);
  cudaMalloc((void **)&Scratch, sizeof(float) * N);
  reduce<<<1, 32>>>(Out, Scratch, N);
}

void factorize(float *Out, const float *In, int N, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    sumColumns(Out, In, N);
    sumRows(Out, In, N);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'sumRows()' synchronizes with the GPU on every iteration of the loop at line 92: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :92:3: note: loop starts here
    // XFER-NOTE: :86:5: note: 'cudaFree' synchronizes with the GPU here
    // XFER-NOTE: :87:3: note: 'cudaMalloc' synchronizes with the GPU here too
  }
}

// Buffers made again when the image's size changes: the branch records the
// sizes it compares, so it runs when the shape changes. A branch that does
// not record them runs whenever the sizes differ from a setting.
static int Cols = 0, Rows = 0;
static float *Cost = nullptr;
void matchPair(float *Out, const float *Left, int Width, int Height) {
  if (Cols != Width || Rows != Height) {
    if (Cost != nullptr)
      cudaFree(Cost);
    Cols = Width;
    Rows = Height;
    cudaMalloc((void **)&Cost, sizeof(float) * Cols * Rows);
  }
  reduce<<<1, 32>>>(Out, Cost, Cols * Rows);
}
void matchUnrecorded(float *Out, int Width, int Expected) {
  static float *Scratch = nullptr;
  if (Width != Expected) {
    cudaFree(Scratch);
    cudaMalloc((void **)&Scratch, sizeof(float) * Width);
  }
  reduce<<<1, 32>>>(Out, Scratch, Width);
}
void matchPairs(float *Out, const float *const *Lefts, const int *Widths,
                int Pairs) {
  for (int P = 0; P < Pairs; ++P) {
    matchPair(Out, Lefts[P], Widths[P], 480);
    matchUnrecorded(Out, Widths[P], 640);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'matchUnrecorded()' synchronizes with the GPU on every iteration of the loop at line 127: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :127:3: note: loop starts here
    // XFER-NOTE: :120:5: note: 'cudaFree' synchronizes with the GPU here
    // XFER-NOTE: :121:5: note: 'cudaMalloc' synchronizes with the GPU here too
  }
}

// Per-slot buffers made the first time each slot is used (elements of a
// std::vector tested and allocated), and a pipeline that remakes its own
// buffers through one of its methods when the frame's shape changes:
// silent. A slot allocated whatever it holds is reported.
#include <vector>
__global__ void filterKernel(float *Weights, int N);
struct Pipeline {
  std::vector<float *> Slots;
  bool Allocated = false;
  int Width = 0;
  float *Frame = nullptr;
  void allocate(int W) {
    cudaMalloc((void **)&Frame, W * sizeof(float));
    Width = W;
    Allocated = true;
  }
  void run(int W, int Stages) {
    if (!Allocated || W != Width)
      allocate(W);
    for (int S = 0; S < Stages; ++S) {
      if (!Slots[S])
        cudaMalloc((void **)&Slots[S], 9 * sizeof(float));
      filterKernel<<<1, 32>>>(Slots[S], W);
    }
  }
  void runFresh(int W, int Stages) {
    for (int S = 0; S < Stages; ++S) {
      cudaMalloc((void **)&Slots[S], 9 * sizeof(float));
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaMalloc' synchronizes with the GPU on every iteration of the loop at line 163: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :163:5: note: loop starts here
      filterKernel<<<1, 32>>>(Slots[S], W);
    }
  }
};

void frames(Pipeline &P, const int *Widths, int Frames) {
  for (int F = 0; F < Frames; ++F)
    P.run(Widths[F], 4);
}

// Output on a schedule of steps: the branch moves the next output step
// ahead of the one it tests, so it runs at the schedule's rate.
void simulate(float *Device, float *Host, int N, int Steps, int Interval) {
  int NextOutput = 0;
  for (int T = 0; T < Steps; ++T) {
    filterKernel<<<1, 32>>>(Device, N);
    if (T >= NextOutput) {
      cudaDeviceSynchronize();
      while (NextOutput <= T)
        NextOutput += Interval;
    }
  }
}
