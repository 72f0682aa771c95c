// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// A read-back deciding whether the loop goes on is necessary (silent).
// XFER-NOTE: :13:3: note: loop starts here
#include <cuda_runtime.h>
#include <torch/torch.h>
#include <cstdio>
// XFER-WARNING: :15:5: warning: 'cudaMemcpy' copies 'Changed' to the GPU on every iteration of the loop at line 13 only to set it to the constant the host wrote at line 14: set the device copy with cudaMemsetAsync or a kernel instead, which does not wait [xfer-copy-in-loop]
void relax(float *Grid, int *Changed); // launches a kernel

void breadthFirst(int *DeviceChanged, float *Grid) {
  int Changed = 1;
  while (Changed) {
    Changed = 0;
    cudaMemcpy(DeviceChanged, &Changed, sizeof(int), cudaMemcpyHostToDevice);
    relax(Grid, DeviceChanged);
    cudaMemcpy(&Changed, DeviceChanged, sizeof(int), cudaMemcpyDeviceToHost);
  }
}

void converge(torch::Tensor X, double Tolerance, int MaxSteps) {
  X = X.to(torch::kCUDA);
  for (int Step = 0; Step < MaxSteps; ++Step) {
    X = X * 0.5;
    double Residual = X.sum().item<double>();
    if (Residual < Tolerance)
      break;
  }
  for (int Step = 0; Step < MaxSteps; ++Step) {
    X = X * 0.5;
    if (X.sum().item<double>() < Tolerance)
      return;
  }
  while (X.sum().item<double>() > Tolerance)
    X = X * 0.5;
}

// Read back and only logged: a hazard.
void logged(torch::Tensor X, int Steps) {
  X = X.to(torch::kCUDA);
  for (int Step = 0; Step < Steps; ++Step) {
    X = X * 0.5;
    double Residual = X.sum().item<double>();
    // XFER-WARNING: :[[@LINE-1]]:31: warning: 'item<double>()' synchronizes with the GPU on every iteration of the loop at line 41: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    if (Residual > 1.0)
      std::printf("large residual\n");
  }
}

void launchLambdas(double *Lambdas, int Cells);

// The value reaches the condition through host arithmetic: the largest wave
// speed sets the time step that advances the time the loop tests (a CFL
// step), or a count becomes the fraction the loop compares.
void advanceInTime(double *DeviceLambdas, double *Lambdas, int Cells,
                   double EndTime) {
  double Time = 0.0;
  while (Time < EndTime) {
    launchLambdas(DeviceLambdas, Cells);
    cudaMemcpy(Lambdas, DeviceLambdas, sizeof(double), // one value
               cudaMemcpyDeviceToHost);
    double Largest = Lambdas[0];
    for (int Cell = 1; Cell < Cells; ++Cell)
      Largest = Lambdas[Cell] > Largest ? Lambdas[Cell] : Largest;
    double Step = 0.5 / Largest;
    Time += Step;
  }
}

void cluster(int *DeviceMoved, int Objects, float Threshold) {
  float Fraction;
  do {
    launchLambdas(nullptr, Objects);
    int Moved;
    cudaMemcpy(&Moved, DeviceMoved, sizeof(int), cudaMemcpyDeviceToHost);
    Fraction = (float)Moved / Objects;
  } while (Fraction > Threshold);
}

// Derived from the read-back, but the loop does not test it: a hazard.
void accumulate(double *DeviceLambdas, double *Lambdas, int Cells, int Steps) {
  double Total = 0.0;
  for (int Step = 0; Step < Steps; ++Step) {
    launchLambdas(DeviceLambdas, Cells);
    cudaMemcpy(Lambdas, DeviceLambdas, sizeof(double), // one value
               cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-2]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 84: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-5]]:3: note: loop starts here
    double Largest = Lambdas[0];
    Total += Largest;
  }
}

// A wait right before the blocking read-back of the done flag costs nothing
// more: the copy waits for the same kernel. One with device work queued
// between it and the read-back is a hazard.
void waitThenRead(int *DeviceDone, float *Grid, int Levels) {
  int Done = 0;
  while (!Done) {
    relax(Grid, DeviceDone);
    cudaDeviceSynchronize();
    int Level = 0;
    cudaMemcpy(&Done, DeviceDone, sizeof(int), cudaMemcpyDeviceToHost);
  }
  for (int I = 0; I < Levels; ++I) {
    relax(Grid, DeviceDone);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 106: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    relax(Grid, DeviceDone);
    cudaMemcpy(&Done, DeviceDone, sizeof(int), cudaMemcpyDeviceToHost);
    if (Done)
      break;
  }
}

// Greedy decoding: each step's token is read back to look up its word, and
// the end-of-sentence word ends the loop: the read-back decides the exit
// through the string the loop's condition compares.
std::string wordOf(int64_t Id);
void greedyDecode(torch::Tensor Ids, int MaxLen) {
  std::string Word;
  torch::Tensor OnDevice = Ids.to(torch::kCUDA);
  for (int I = 0; I < MaxLen && Word != "</s>"; ++I) {
    torch::Tensor Logits = OnDevice * 2;
    int64_t Next = Logits[I].item<int64_t>();
    Word = wordOf(Next);
  }
}

// A wait followed, every N iterations only, by a read-back: the read-back
// does not happen on most iterations, so the wait is not beside it.
void periodicOutput(float *Grid, int *DeviceDone, float *Host, int Steps) {
  for (int I = 0; I < Steps; ++I) {
    relax(Grid, DeviceDone);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 135: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    if (I % 500 == 0)
      cudaMemcpy(Host, Grid, 4096, cudaMemcpyDeviceToHost);
  }
}

// Host-driven suppression: the best box's index is read back on every step
// only to index device tensors; what ends the loop is the boxes left, a
// device tensor computed from it, so the read-back is a hazard, not a
// termination flag.
void suppress(torch::Tensor Scores, torch::Tensor Boxes) {
  torch::Tensor Order = Scores.to(torch::kCUDA);
  torch::Tensor Areas = Boxes.to(torch::kCUDA);
  while (Order.size(0) > 0) {
    int64_t Best = Order[0].item<int64_t>();
    // XFER-WARNING: :[[@LINE-1]]:29: warning: 'item<long>()' synchronizes with the GPU on every iteration of the loop at line 152: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    torch::Tensor Overlap = Areas * Areas[Best];
    Order = Order * Overlap;
  }
}

// A residual read back with an asynchronous copy and a stream wait: the wait
// completes the read-back the loop's test needs. A value read the same way
// only to be summed is not.
void conjugateGradient(double *Norm, double Tolerance, cudaStream_t Stream,
                       int MaxIterations) {
  double Residual = 1e9;
  int K = 0;
  while (Residual > Tolerance && K < MaxIterations) {
    relax(reinterpret_cast<float *>(Norm), nullptr);
    ++K;
    cudaMemcpyAsync(&Residual, Norm, sizeof(double), cudaMemcpyDeviceToHost,
                    Stream);
    cudaStreamSynchronize(Stream);
  }
  double Sum = 0, Value = 0;
  for (int I = 0; I < MaxIterations; ++I) {
    relax(reinterpret_cast<float *>(Norm), nullptr);
    cudaMemcpyAsync(&Value, Norm, sizeof(double), cudaMemcpyDeviceToHost,
                    Stream);
    cudaStreamSynchronize(Stream);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the GPU on every iteration of the loop at line 176: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-6]]:3: note: loop starts here
    Sum += Value;
  }
}

// Relaunch until no thread is active: the active flags are copied into a
// buffer held by a struct, summed on the host, and the sum decides whether
// the loop goes on. The wait before the copy, with only an error report in
// between, is part of that read-back. The counter copied beside it is only
// printed once.
struct PhotonMemory {
  unsigned *ThreadActive;
  unsigned long long *Terminated;
};
void photonStep(PhotonMemory Device);
void relaunchUntilDone(PhotonMemory Host, PhotonMemory Device) {
  unsigned ActiveTotal = 1;
  int Round = 0;
  while (ActiveTotal > 0) {
    ++Round;
    photonStep(Device);
    cudaDeviceSynchronize();
    cudaError_t Status = cudaGetLastError();
    if (Status)
      printf("Error %s\n", cudaGetErrorString(Status));
    cudaMemcpy(Host.ThreadActive, Device.ThreadActive, 256 * sizeof(unsigned),
               cudaMemcpyDeviceToHost);
    ActiveTotal = 0;
    for (int I = 0; I < 256; ++I)
      ActiveTotal += Host.ThreadActive[I];
    cudaMemcpy(Host.Terminated, Device.Terminated, sizeof(unsigned long long),
               cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-2]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 200: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :200:3: note: loop starts here
    if (Round == 100)
      printf("%llu photons\n", *Host.Terminated);
  }
}

// The residual is reduced on the host and handed out through an output
// parameter, which the loop's exit test reads: necessary. The second norm,
// only printed, is not.
void sweep(double *Grid, double *InfNorms, double *TwoNorms); // launches
void redBlack(double *Grid, double *DeviceInf, double *DeviceTwo,
              double *HostInf, double *HostTwo, int Blocks, double Tolerance,
              double *InfNorm, int MaxIterations) {
  double Largest, Sum;
  for (int K = 1; K < MaxIterations + 1; K++) {
    sweep(Grid, DeviceInf, DeviceTwo);
    cudaMemcpy(HostInf, DeviceInf, sizeof(double) * Blocks,
               cudaMemcpyDeviceToHost);
    cudaMemcpy(HostTwo, DeviceTwo, sizeof(double) * Blocks,
               cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-2]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 229: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :229:3: note: loop starts here
    Largest = HostInf[0];
    Sum = HostTwo[0];
    for (int L = 1; L < Blocks; L++) {
      Largest = Largest > HostInf[L] ? Largest : HostInf[L];
      Sum += HostTwo[L];
    }
    *InfNorm = Largest;
    if (*InfNorm < Tolerance)
      break;
    if (K % 100 == 0)
      printf("%d %e %e\n", K, *InfNorm, Sum);
  }
}
