// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// Only loops that queue device work on every iteration make costs add up.
// Loops that allocate, copy in or free per element around the main loop are
// setup and teardown; a loop between two clock readings times its work.
#include <cuda_runtime.h>
#include <chrono>

void step(float *Data, int N); // defined elsewhere: may launch kernels

void setupStepTeardown(float **Buffers, float **Host, int Count, int Iters) {
  for (int B = 0; B < Count; ++B) { // setup: no device work
    cudaMalloc((void **)&Buffers[B], 4096);
    cudaMemcpy(Buffers[B], Host[B], 4096, cudaMemcpyHostToDevice);
  }
  for (int I = 0; I < Iters; ++I) {
    step(Buffers[0], 1024);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 16: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
  }
  for (int B = 0; B < Count; ++B) { // teardown
    cudaMemcpy(Host[B], Buffers[B], 4096, cudaMemcpyDeviceToHost);
    cudaFree(Buffers[B]);
  }
}

// A benchmark loop between two timer readings: the syncs are the point.
double timedKernel(float *Data, int Reps) {
  auto Start = std::chrono::steady_clock::now();
  for (int R = 0; R < Reps; ++R) {
    step(Data, 1024);
    cudaDeviceSynchronize();
  }
  auto Stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(Stop - Start).count();
}

// A chunk loop whose inner loop runs four times is not an epoch loop: the
// syncs after it run on every chunk.
void chunks(float **Device, cudaStream_t *Streams, int Chunks) {
  int K;
  for (int C = 0; C < Chunks; ++C) {
    for (K = 0; K < 4; K++)
      step(Device[K], 256);
    cudaStreamSynchronize(Streams[0]);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the GPU once per iteration of the loop at line 43, outside its inner loop at line 44: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-5]]:3: note: loop starts here
  }
}

// Functions defined elsewhere whose names say they release resources queue
// no work: a loop freeing per device through them is teardown. One whose name
// says nothing may launch, so its loop stays a step loop.
void grid_deallocate_device(float *Grid);
void destroyStreams(cudaStream_t *Streams);
void freeze_layer(float *Weights); // not a release: may launch
void teardownPerDevice(float **Params, float **Grids, cudaStream_t *Streams,
                       int Parts) {
  for (int D = 0; D < Parts; ++D) {
    cudaFree(Params[D]);
    grid_deallocate_device(Grids[D]);
    destroyStreams(&Streams[D]);
  }
  for (int D = 0; D < Parts; ++D) {
    freeze_layer(Grids[D]);
    cudaFree(Params[D]);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaFree' synchronizes with the GPU on every iteration of the loop at line 65: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
  }
}

// OpenCV's tick counter times a loop as std::chrono does.
namespace cv {
long long getTickCount();
double getTickFrequency();
} // namespace cv
double timedWithTicks(float *Data, int Reps) {
  long long Start = cv::getTickCount();
  for (int R = 0; R < Reps; ++R) {
    step(Data, 1024);
    cudaDeviceSynchronize();
  }
  return (cv::getTickCount() - Start) / cv::getTickFrequency();
}

// A validation pass that runs every N steps (or only at the last step):
// its per-batch read-backs are periodic evaluation, not per-step costs. A
// pass that runs on every step is a step loop.
void periodicValidation(float *Device, float *Host, int Steps, int Batches,
                        int EvalEvery) {
  for (int Step = 0; Step < Steps; ++Step) {
    step(Device, 256);
    if (Step % EvalEvery == 0 || Step == Steps - 1) {
      for (int B = 0; B < Batches; ++B) {
        step(Device, 256);
        cudaMemcpy(Host, Device, 4, cudaMemcpyDeviceToHost);
      }
    }
    for (int B = 0; B < 2; ++B) {
      step(Device, 256);
      cudaMemcpy(Host, Device, 4, cudaMemcpyDeviceToHost);
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaMemcpy' copies device memory to the host on each of 2 iterations of the loop at line 100: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
      // XFER-NOTE: :[[@LINE-4]]:5: note: loop starts here
    }
  }
}

// A timed loop that walks its input (each iteration takes the next batch)
// is the program's work being timed, not a repetition to time: reported.
struct Batch {
  float *Data;
  explicit operator bool() const;
};
Batch nextBatch();
double timedPass(float *Device) {
  auto Start = std::chrono::steady_clock::now();
  auto Current = nextBatch();
  while (Current) {
    step(Current.Data, 1024);
    cudaMemcpy(Current.Data, Device, 4096, cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 119: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    Current = nextBatch();
  }
  auto Stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(Stop - Start).count();
}

// A timed solver loop whose iterations carry values to the next one
// (ping-pong buffers swapped, the previous residual kept) is the algorithm
// being timed, not a repetition: its waits are reported.
void relax(float *Src, float *Dst, int N);
float residualOf(const float *Field, int N);
void timedSolver(float *A, float *B, int MaxIters, cudaEvent_t Start,
                 cudaEvent_t Stop) {
  float Previous = 0.f, Next = 0.f, *Tmp;
  int K = 0, Stalled = 0;
  cudaEventRecord(Start);
  while (K <= MaxIters && Stalled <= 50) {
    relax(A, B, 1024);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 140: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    Next = residualOf(B, 1024);
    Tmp = A;
    A = B;
    B = Tmp;
    if (Next - Previous < 1e-6f)
      Stalled++;
    Previous = Next;
    K++;
  }
  cudaEventRecord(Stop);
  cudaEventSynchronize(Stop);
}

// A timed loop until a read-back flag says done (a graph colouring) is the
// algorithm timed: its wait and flag reset are reported, the read-back not.
// XFER-WARNING: :169:5: warning: 'cudaMemcpy' copies 'Uncoloured' to the GPU on every iteration of the loop at line 167 only to set it to the constant the host wrote at line 168: set the device copy with cudaMemsetAsync or a kernel instead, which does not wait [xfer-copy-in-loop]
// XFER-NOTE: :167:3: note: loop starts here
void colourStep(int *Flag);   // launches a kernel
void applyColours(int *Flag); // launches a kernel
double timedColouring(int *DeviceFlag) {
  int Uncoloured = 1;
  auto Start = std::chrono::steady_clock::now();
  while (Uncoloured) {
    Uncoloured = 0;
    cudaMemcpy(DeviceFlag, &Uncoloured, sizeof(int), cudaMemcpyHostToDevice);
    colourStep(DeviceFlag);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 167: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-6]]:3: note: loop starts here
    applyColours(DeviceFlag);
    cudaMemcpy(&Uncoloured, DeviceFlag, sizeof(int), cudaMemcpyDeviceToHost);
  }
  auto Stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(Stop - Start).count();
}

// A timed repetition that keeps an error code and a running total still
// repeats the same work: silent.
double timedRepetition(float *Data, int Reps) {
  cudaError_t Status;
  double Total = 0;
  int R = 0;
  auto Start = std::chrono::steady_clock::now();
  while (R < Reps) {
    step(Data, 1024);
    Status = cudaDeviceSynchronize();
    if (Status != cudaSuccess)
      break;
    Total += 1.0;
    R++;
  }
  auto Stop = std::chrono::steady_clock::now();
  return Total / std::chrono::duration<double>(Stop - Start).count();
}

// A raw CUDA trainer: after its epoch loop, one pass over the test set reads
// each batch's predictions back to count the right ones. That pass runs
// once; a pass over the training set after the same loop is not told apart
// from a second phase of the program and is reported.
void forwardBatch(float *Images, float *Probabilities, int Batch);
void trainThenTest(float *Images, float *Probabilities, float *Host,
                   int Epochs, int Batches, int TestBatches) {
  for (int Epoch = 0; Epoch < Epochs; ++Epoch)
    for (int B = 0; B < Batches; ++B)
      forwardBatch(Images, Probabilities, B);
  for (int B = 0; B < TestBatches; ++B) { // evaluation pass: silent
    forwardBatch(Images, Probabilities, B);
    cudaMemcpy(Host, Probabilities, 40, cudaMemcpyDeviceToHost);
  }
  for (int B = 0; B < Batches; ++B) {
    forwardBatch(Images, Probabilities, B);
    cudaMemcpy(Host, Probabilities, 40, cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 214: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
  }
}

// One pass per stream or device spreads the work out once: what a solver
// allocates on each pass is paid once per stream, not per iteration. A loop
// around such a pass, or a loop of steps per device, is what repeats.
void solve(double *X, cudaStream_t Stream) {
  void *Scratch = nullptr;
  cudaMalloc(&Scratch, 1024);
  step(reinterpret_cast<float *>(X), 1024);
  cudaFree(Scratch);
}
void solveOnEachStream(double *X, cudaStream_t *Streams, int StreamsNumber,
                       int StepsPerDevice) {
  for (int I = 0; I < StreamsNumber; ++I)
    solve(X, Streams[I]);
  for (int Step = 0; Step < StepsPerDevice; ++Step)
    solve(X, Streams[0]);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'solve()' synchronizes with the GPU on every iteration of the loop at line 235: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-12]]:3: note: 'cudaMalloc' synchronizes with the GPU here
    // XFER-NOTE: :229:3: note: 'cudaFree' synchronizes with the GPU here too
}

// A helper defined in no file given whose name says it reads a property
// (`pixelCount`, `getSize`) queues no device work: the per-texture upload
// loop around it is setup.
struct Texture {
  int pixelCount();
  float *Pixels;
};

void uploadTextures(Texture **Textures, float **Device, int Count) {
  for (int T = 0; T < Count; ++T) {
    int Pixels = Textures[T]->pixelCount();
    cudaMalloc((void **)&Device[T], Pixels * sizeof(float));
    cudaMemcpy(Device[T], Textures[T]->Pixels, Pixels * sizeof(float),
               cudaMemcpyHostToDevice);
  }
}

// A branch that ends the program (exit(), abort()) runs once.
[[noreturn]] void quitProgram(int Status);

void frameLoop(float *Data, int Frames) {
  for (int F = 0;; ++F) {
    step(Data, 1024);
    if (F >= Frames) {
      cudaFree(Data);
      quitProgram(0);
    }
  }
}

#include <utility>
#include <vector>

// A timed loop whose iterations carry values to the next one is the
// algorithm being timed, not a repetition: buffers swapped with std::swap,
// a vector assigned from what it held (class operator=).
std::vector<int> relaxOnHost(std::vector<int> &Next, std::vector<int> Active);
void relaxOnDevice(std::vector<int> &Current, float *Device) {
  cudaMemcpy(Device, Current.data(), Current.size() * sizeof(int),
             cudaMemcpyHostToDevice);
  step(Device, 1024);
  cudaFree(Device);
}
double timedRelaxation(std::vector<int> &Current, std::vector<int> &Next,
                       float *Device, int Rounds) {
  auto Start = std::chrono::steady_clock::now();
  for (int R = 0; R < Rounds; ++R) {
    relaxOnDevice(Current, Device);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'relaxOnDevice()' synchronizes with the GPU on every iteration of the loop at line 289: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :289:3: note: loop starts here
    // XFER-NOTE: :284:3: note: 'cudaFree' synchronizes with the GPU here
    std::swap(Current, Next);
  }
  std::vector<int> Active;
  for (int R = 0; R < Rounds; ++R) {
    relaxOnDevice(Current, Device);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'relaxOnDevice()' synchronizes with the GPU on every iteration of the loop at line 297: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :297:3: note: loop starts here
    // XFER-NOTE: :284:3: note: 'cudaFree' synchronizes with the GPU here
    Active = relaxOnHost(Next, Active);
  }
  auto Stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(Stop - Start).count();
}

// A warm-up loop runs the timed work untimed first, so that the timed runs
// see a warm device and allocator: part of the timing harness. The timed
// loop after it may time each run inside its body, or sit in a block of its
// own.
void pipelineStage(float *Device, float *Host, cudaStream_t Stream);
double warmedUpBenchmark(float *Device, float *Host, cudaStream_t Stream,
                         int Runs) {
  for (int I = 0; I < 20; ++I) {
    pipelineStage(Device, Host, Stream);
    cudaStreamSynchronize(Stream);
  }
  double Total = 0;
  {
    for (int I = 0; I < Runs; ++I) {
      auto Start = std::chrono::steady_clock::now();
      pipelineStage(Device, Host, Stream);
      cudaStreamSynchronize(Stream);
      auto Stop = std::chrono::steady_clock::now();
      Total += std::chrono::duration<double>(Stop - Start).count();
    }
  }
  return Total / Runs;
}

// Not a warm-up: the loop before the timed one does other work (training
// before a timed evaluation), and a loop before an untimed one.
void trainStep(float *Device, cudaStream_t Stream);
double trainThenTimeInference(float *Device, float *Host, cudaStream_t Stream,
                              int Steps) {
  for (int I = 0; I < Steps; ++I) {
    trainStep(Device, Stream);
    pipelineStage(Device, Host, Stream);
    cudaStreamSynchronize(Stream);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the GPU on every iteration of the loop at line 337: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :337:3: note: loop starts here
  }
  auto Start = std::chrono::steady_clock::now();
  for (int I = 0; I < Steps; ++I)
    pipelineStage(Device, Host, Stream);
  auto Stop = std::chrono::steady_clock::now();
  for (int I = 0; I < Steps; ++I) {
    pipelineStage(Device, Host, Stream);
    cudaStreamSynchronize(Stream);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the GPU on every iteration of the loop at line 348: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :348:3: note: loop starts here
  }
  for (int I = 0; I < Steps; ++I)
    pipelineStage(Device, Host, Stream);
  return std::chrono::duration<double>(Stop - Start).count();
}

#include <cstdio>
// A fixed number of repetitions of the same solve, each timed in the body to
// average the time, is a benchmark; progress printed every few runs does
// not make the runs differ. Timed training epochs are not.
int solveOnce(float *Device, float *Host, int MaxIterations);
double averageSolveTime(float *Device, float *Host) {
  const int Runs = 50;
  double TotalMs = 0;
  for (int Run = 0; Run < Runs; ++Run) {
    auto Start = std::chrono::steady_clock::now();
    solveOnce(Device, Host, 300);
    cudaMemcpy(Host, Device, 1024 * sizeof(float), cudaMemcpyDeviceToHost);
    auto Stop = std::chrono::steady_clock::now();
    TotalMs += std::chrono::duration<double, std::milli>(Stop - Start).count();
    if ((Run + 1) % 5 == 0)
      printf("%d runs\n", Run + 1);
  }
  return TotalMs / Runs;
}

void trainEpoch(float *Device, float *Host, int Epoch);
double timedEpochs(float *Device, float *Host) {
  double TotalMs = 0;
  for (int Epoch = 0; Epoch < 50; ++Epoch) {
    auto Start = std::chrono::steady_clock::now();
    trainEpoch(Device, Host, Epoch);
    float Loss = 0;
    cudaMemcpy(&Loss, Device, sizeof(float), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on each of 50 iterations of the loop at line 382: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :382:3: note: loop starts here
    printf("%f\n", Loss);
    auto Stop = std::chrono::steady_clock::now();
    TotalMs += std::chrono::duration<double, std::milli>(Stop - Start).count();
  }
  return TotalMs;
}
