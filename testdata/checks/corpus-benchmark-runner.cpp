// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop,xfer-sync-in-loop
// A benchmark suite's runner repeats each application between two readings
// of its time keeper; each application runs its own step loop (frames,
// solver iterations). The applications' loops are the hot loops: what a
// run does once around them (allocating, uploading inputs, reading the
// result back) is one-time work, and so is the work of a parameter sweep
// around a solver's iterations.
#include <cuda_runtime.h>

void launchWork(float *Data, int N);
void launchNothing();
bool nextFrame(unsigned char *Frame);

class Timer {
public:
  virtual ~Timer() = default;
  virtual double GetTimeInSec() = 0;
};

class TimeKeeper {
public:
  virtual ~TimeKeeper() = default;
  virtual void Start() = 0;
  virtual void End(const char *Phase) = 0;
};

// Records how long the GPU is busy: each call reads the host clock.
class ActivityLogger {
public:
  void GPUOn() { addTime(); }
  void GPUOff() {
    addTime();
    if (Busy > 0)
      --Busy;
  }

private:
  void addTime() {
    double Now = Clock->GetTimeInSec();
    Total += Now - Last;
    Last = Now;
  }
  Timer *Clock = nullptr;
  double Total = 0, Last = 0;
  int Busy = 0;
};

class Application {
public:
  virtual ~Application() = default;
  virtual void Run() = 0;
};

class VideoApplication : public Application {
public:
  void Run() override {
    unsigned char *DeviceFrame;
    cudaMalloc((void **)&DeviceFrame, Pixels); // once per run, before the frame loop
    unsigned char Frame[64];
    while (nextFrame(Frame)) {
      cudaMemcpy(DeviceFrame, Frame, Pixels, cudaMemcpyHostToDevice);
      launchWork(Output, Pixels);
      cudaMemcpy(Result, Output, Pixels, cudaMemcpyDeviceToHost);
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 61: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
      // XFER-NOTE: :[[@LINE-5]]:5: note: loop starts here
    }
    cudaFree(DeviceFrame); // once per run, after it
  }

  float *Output = nullptr;
  float Result[64];
  int Pixels = 64;
};

class Solver : public Application {
public:
  void Run() override {
    // A sweep over cluster counts; each count runs the solver to
    // convergence.
    for (Clusters = 2; Clusters <= MaxClusters; ++Clusters) {
      cudaMalloc((void **)&Centres, Clusters * sizeof(float)); // once per count
      iterate();
      cudaFree(Centres); // once per count
    }
  }

  void iterate() {
    int Changed = 0;
    do {
      Logger.GPUOn();
      launchWork(Centres, Clusters);
      cudaDeviceSynchronize(); // waits to close the activity timer
      Logger.GPUOff();
      cudaMemcpy(&Changed, Centres, sizeof(int), cudaMemcpyDeviceToHost);
    } while (Changed > 0);
  }

  ActivityLogger Logger;
  float *Centres = nullptr;
  int Clusters = 0, MaxClusters = 8;
};

// Repeats the application a configured number of times, between two
// readings of the time keeper: a warm-up run and a timed run.
void runBenchmark(Application &App, TimeKeeper &Keeper, unsigned WarmUps,
                  unsigned Repeats) {
  Keeper.Start();
  for (unsigned I = 0; I < WarmUps; ++I)
    App.Run();
  Keeper.End("WarmUp");
  Keeper.Start();
  for (unsigned I = 0; I < Repeats; ++I)
    App.Run();
  Keeper.End("Run");
}

// Without the time keeper around it, a loop that calls a run whose own
// loop is the step loop still runs its statements once per run.
void runApplications(VideoApplication &Video, int Runs) {
  for (int I = 0; I < Runs; ++I)
    Video.Run();
}

// A helper whose loop only launches (layers of a model) is no step loop:
// the wait after it runs on every step.
void forwardLayers(float *Data, int Layers) {
  for (int L = 0; L < Layers; ++L)
    launchWork(Data, L);
}

void stepWithLayers(float *Data, int Steps, int Layers) {
  for (int Step = 0; Step < Steps; ++Step) {
    forwardLayers(Data, Layers);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 133: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
  }
}

// A helper that waits without reading a clock is no timing statement, and
// a counted loop of one trip is no loop.
void finishStep() { cudaDeviceSynchronize(); }

void stepOnce(float *Data, float *Host, int Steps) {
  for (int Repeat = 0; Repeat < 1; ++Repeat) {
    launchWork(Data, 64);
    cudaMemcpy(Host, Data, 64 * sizeof(float), cudaMemcpyDeviceToHost);
  }
  for (int Step = 0; Step < Steps; ++Step) {
    launchWork(Data, 64);
    finishStep();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'finishStep()' synchronizes with the GPU on every iteration of the loop at line 150: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    // XFER-NOTE: :143:21: note: 'cudaDeviceSynchronize' synchronizes with the GPU here
    launchNothing();
  }
}
