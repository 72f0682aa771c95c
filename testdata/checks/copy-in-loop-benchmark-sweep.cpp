// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A fixed number of trials of a whole solver run, each timed between two
// events, for each of a few launch configurations: a sweep of benchmarks.
// What each run copies back is part of what is timed, not a step's cost,
// even with the progress printed and the total spelled `t = t + ms`. The
// same runs untimed are reported.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void relax(double *X, int N);

double *solve(const double *Initial, int N, int Iterations, int Block) {
  double *Device;
  cudaMalloc((void **)&Device, N * sizeof(double));
  cudaMemcpy(Device, Initial, N * sizeof(double), cudaMemcpyHostToDevice);
  for (int I = 0; I < Iterations; ++I)
    relax<<<N / Block, Block>>>(Device, N);
  double *Solution = new double[N];
  cudaMemcpy(Solution, Device, N * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(Device);
  return Solution;
}

void sweep(const double *Initial, int N, int Iterations) {
  const int Blocks[4] = {32, 64, 128, 256};
  const int Trials = 20;
  cudaEvent_t Start, Stop;
  cudaEventCreate(&Start);
  cudaEventCreate(&Stop);
  double *Solution = nullptr;
  for (int B = 0; B < 4; ++B) {
    float Total = 0;
    for (int Trial = 0; Trial < Trials; ++Trial) {
      cudaEventRecord(Start, 0);
      Solution = solve(Initial, N, Iterations, Blocks[B]);
      cudaEventRecord(Stop, 0);
      cudaEventSynchronize(Stop);
      float Ms = 0;
      cudaEventElapsedTime(&Ms, Start, Stop);
      Total = Total + Ms;
      printf("block %d: completed trial %d\n", Blocks[B], Trial);
    }
    printf("average: %f ms\n", Total / Trials);
  }
  delete[] Solution;
}

void repeatUntimed(const double *Initial, int N, int Iterations) {
  double *Solution = nullptr;
  for (int B = 0; B < 4; ++B)
    for (int Trial = 0; Trial < 20; ++Trial)
      Solution = solve(Initial, N, Iterations, 128);
  // XFER-WARNING: :[[@LINE-1]]:18: warning: 'solve()' copies device memory to the host on each of 80 iterations of the nested loops at lines 52 and 53: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
  // XFER-NOTE: :53:5: note: loop starts here
  // XFER-NOTE: :21:3: note: 'cudaMemcpy' copies device memory to the host here
  delete[] Solution;
}

// A simulation timed as a whole whose clock `t = t + dt` the step reads is
// the algorithm, not a repetition: its per-step copy back is reported.
#include <ctime>
void stepRain(double Time, double *Host, int N);
void simulate(double *Device, double *Host, int N, double Dt, double End) {
  std::clock_t Start = std::clock();
  double Time = 0;
  while (Time + Dt <= End) {
    relax<<<N / 128, 128>>>(Device, N);
    stepRain(Time, Host, N);
    cudaMemcpy(Host, Device, N * sizeof(double), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 68: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :68:3: note: loop starts here
    Time = Time + Dt;
  }
  std::clock_t Stop = std::clock();
  printf("%f s\n", double(Stop - Start) / CLOCKS_PER_SEC);
}
