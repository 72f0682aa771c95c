// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// Host decisions the analysis cannot count but a reader can: a branch that
// logs (guarded logging, at a rate the author chose), a handful of rounds in
// code that runs once, a read-back that ends a callee's own loop, and a
// timed loop whose iterations differ (the algorithm being timed).
#include <cuda_runtime.h>
#include <torch/torch.h>
#include <chrono>
#include <cstdio>
#include <iostream>

void step(float *Data, int N); // defined elsewhere: may launch kernels

// Printed whenever simulated time passes the next print time: silent.
void printAtIntervals(float *Dev, float *Host, double Dt, int Steps) {
  double Time = 0.0, NextPrint = 1.0;
  for (int Step = 0; Step < Steps; ++Step) {
    step(Dev, 1024);
    Time += Dt;
    const bool Print = Time >= NextPrint;
    if (Print) {
      cudaMemcpy(Host, Dev, 256, cudaMemcpyDeviceToHost);
      std::printf("%f\n", Host[0]);
      NextPrint += 1.0;
    }
  }
}

void logWhenVerbose(torch::Tensor Loss, bool Verbose, int Steps) {
  Loss = Loss.to(torch::kCUDA);
  for (int Step = 0; Step < Steps; ++Step) {
    Loss = Loss * 0.5;
    if (Verbose)
      std::cout << Loss.item<float>() << "\n";
  }
}

// A condition that holds on most iterations is no guard, logging or not.
void logAfterFirstStep(torch::Tensor Loss, int Steps) {
  Loss = Loss.to(torch::kCUDA);
  for (int Step = 0; Step < Steps; ++Step) {
    Loss = Loss * 0.5;
    if (Step > 0)
      std::cout << Loss.item<float>() << "\n";
    // XFER-WARNING: :[[@LINE-1]]:25: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 42: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-5]]:3: note: loop starts here
  }
}

// A branch that computes rather than logs is not guarded logging.
void rescaleWhenAsked(torch::Tensor X, bool Rescale, int Steps) {
  X = X.to(torch::kCUDA);
  for (int Step = 0; Step < Steps; ++Step) {
    X = X * 0.5;
    if (Rescale) {
      float Total = X.sum().item<float>();
      // XFER-WARNING: :[[@LINE-1]]:29: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 54: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-5]]:3: note: loop starts here
      X = X * (1.0 / Total);
    }
  }
}

// A few relaxation rounds at start-up: a one-time cost.
void relaxAtStartup(float *Dev, float *Host) {
  for (int Round = 0; Round < 5; ++Round) {
    step(Dev, 1024);
    cudaMemcpy(Host, Dev, 256, cudaMemcpyDeviceToHost);
  }
}

// The same rounds in a function that runs on every step add up.
void relaxEveryStep(float *Dev, float *Host) {
  for (int Round = 0; Round < 5; ++Round) {
    step(Dev, 1024);
    cudaMemcpy(Host, Dev, 256, cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on each of 5 iterations of the loop at line 75: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
  }
}

void simulate(float *Dev, float *Host, int Steps) {
  for (int Step = 0; Step < Steps; ++Step)
    relaxEveryStep(Dev, Host);
  // XFER-WARNING: :[[@LINE-1]]:5: warning: 'relaxEveryStep()' copies device memory to the host on every iteration of the loop at line 84: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
  // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
  // XFER-NOTE: :[[@LINE-11]]:5: note: 'cudaMemcpy' copies device memory to the host here
}

// An adaptive step is repeated until its error estimate is small enough:
// the error's read-back ends the callee's own loop, which is necessary.
struct Integration {
  double Error = 0.0;
  bool TooLarge = true;
};

void adaptiveStep(float *Dev, double *HostError, Integration &State) {
  step(Dev, 1024);
  cudaMemcpy(HostError, Dev, sizeof(double), cudaMemcpyDeviceToHost);
  State.TooLarge = *HostError > 1e-3;
}

void integrate(float *Dev, double *HostError, Integration &State) {
  do {
    adaptiveStep(Dev, HostError, State);
  } while (State.TooLarge);
}

void runSimulation(float *Dev, double *HostError, int Steps) {
  Integration State;
  for (int Step = 0; Step < Steps; ++Step)
    integrate(Dev, HostError, State);
}

// Timed, but each iteration does different work: the algorithm is being
// timed, and its per-step syncs are hazards.
double eliminate(float *Matrix, int Size) {
  auto Start = std::chrono::steady_clock::now();
  for (int T = 0; T < Size - 1; ++T) {
    step(Matrix + T, Size - T);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 120: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
  }
  auto Stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(Stop - Start).count();
}

// A one-round loop in a function the time loop calls only every 100 steps
// (writing an output frame): a one-time cost per call, not a step cost.
void writeFrame(float *Dev, float *Host) {
  for (int Field = 0; Field < 1; ++Field) {
    step(Dev, 1024);
    cudaMemcpy(Host, Dev, 256, cudaMemcpyDeviceToHost);
  }
}

void integrate(float *Dev, float *Host, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    step(Dev, 1024);
    if (Step % 100 == 0)
      writeFrame(Dev, Host);
  }
}

// A remainder of this iteration's data (the image's size must be a multiple
// of 4) is a validity test, not a period: what follows runs on every
// iteration.
struct Image {
  int Rows, Cols;
  float *Pixels;
  void crop(int Border); // defined elsewhere: may change the sizes
};
Image readImage(int Index);
int processImages(float *Dev, float *Host, int Count) {
  for (int I = 0; I < Count; ++I) {
    Image Frame = readImage(I);
    if (Frame.Rows % 4 != 0 || Frame.Cols % 4 != 0)
      return 1;
    step(Dev, Frame.Rows * Frame.Cols);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 157: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :157:3: note: loop starts here
    step(Dev, Frame.Rows);
  }
  return 0;
}
