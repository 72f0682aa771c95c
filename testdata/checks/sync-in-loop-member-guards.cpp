// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// `X % N == 0` thins out work only when X counts: a member that a method
// steps is a counter, a member no method steps is a setting (a width), and
// its test takes the same branch on every call.
#include <cuda_runtime.h>

__global__ void stepKernel(float *Data, int N);

class Logger {
public:
  void step(float *Data, int N) {
    stepKernel<<<1, 32>>>(Data, N);
    if (Calls % 100 == 0) // the fix: every 100 calls only
      cudaDeviceSynchronize();
    ++Calls;
  }

private:
  int Calls = 0;
};

class Board {
public:
  explicit Board(int W) : Width(W) {}
  void update(float *Data) {
    stepKernel<<<1, 32>>>(Data, Width);
    if (Width % 8 == 0) // a setting: true on every call or on none
      cudaDeviceSynchronize();
  }

private:
  int Width;
};

// A method defined in another file may step the member: it stays a guard.
class Sampler {
public:
  void advance();
  void sample(float *Data) {
    stepKernel<<<1, 32>>>(Data, 32);
    if (Seen % 10 == 0)
      cudaDeviceSynchronize();
  }

private:
  int Seen = 0;
};

void run(Logger &L, Board &B, Sampler &S, float *Data, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    L.step(Data, 32);
    B.update(Data);
    // XFER-WARNING: :[[@LINE-1]]:7: warning: 'update()' synchronizes with the GPU on every iteration of the loop at line 52: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :52:3: note: loop starts here
    // XFER-NOTE: :30:7: note: 'cudaDeviceSynchronize' synchronizes with the GPU here
    S.sample(Data);
  }
}

// A period read from a settings struct this file defines keeps its default
// unless something writes it: a default of 1 holds on every iteration. A
// setting the program may change (from the command line), or a larger
// default, stays a guard.
struct TrainOptions {
  int LogInterval = 1;
  int SaveInterval = 1;
  int EvalInterval = 50;
};

void train(float *Data, int Steps, int Argc) {
  TrainOptions Options;
  if (Argc > 1)
    Options.SaveInterval = Argc;
  for (int Step = 0; Step < Steps; ++Step) {
    stepKernel<<<1, 32>>>(Data, 32);
    if (Step % Options.LogInterval == 0)
      cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 76: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :76:3: note: loop starts here
    if (Step % Options.SaveInterval == 0)
      cudaDeviceSynchronize();
    if (Step % Options.EvalInterval == 0)
      cudaDeviceSynchronize();
  }
}

// The same for a local variable: one set to 1 and only read holds on every
// iteration; one the program may set again stays a guard.
void trainWithLocals(float *Data, int Steps, int Argc) {
  int CheckpointEvery = 1;
  int PrintEvery = 1;
  if (Argc > 1)
    PrintEvery = Argc;
  for (int Step = 0; Step < Steps; ++Step) {
    stepKernel<<<1, 32>>>(Data, 32);
    if (Step % CheckpointEvery == 0)
      cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 96: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :96:3: note: loop starts here
    if (Step % PrintEvery == 0)
      cudaDeviceSynchronize();
  }
}
