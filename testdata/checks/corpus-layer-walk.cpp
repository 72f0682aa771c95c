// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A model's backward() that walks its layers (one call per layer, however
// many there are) is not a step loop of its own: a read-back beside the
// call still runs on every training step.
#include <cuda_runtime.h>
#include <vector>

struct Layer {
  virtual void backward(float *Gradient) = 0;
};
void update(float *Weights); // defined elsewhere: may launch kernels

struct Mlp {
  std::vector<Layer *> Layers;
  void backward(float *Gradient) {
    for (int I = Layers.size() - 1; I >= 0; --I) {
      Layers[I]->backward(Gradient);
      update(Gradient);
      cudaDeviceSynchronize();
    }
  }
};

float accuracy(float *Device, float *Host, int N) {
  cudaMemcpy(Host, Device, N * sizeof(float), cudaMemcpyDeviceToHost);
  return Host[0];
}

void train(Mlp &Model, float *Device, float *Host, int Batches) {
  float Sum = 0;
  for (int B = 0; B < Batches; ++B) {
    Model.backward(Device);
    Sum += accuracy(Device, Host, 16);
    // XFER-WARNING: :[[@LINE-1]]:12: warning: 'accuracy()' copies device memory to the host on every iteration of the loop at line 33: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-11]]:3: note: 'cudaMemcpy' copies device memory to the host here
  }
}

// A solver's own iteration loop is a step loop: the statement beside the
// call runs once per solve.
void relax(float *Device, int N);
void solve(float *Device, int Iterations) {
  for (int I = 0; I < Iterations; ++I) {
    relax(Device, 1024);
    cudaDeviceSynchronize();
  }
}
void sweep(float *Device, float *Host, int Settings) {
  for (int S = 0; S < Settings; ++S) {
    solve(Device, 1000);
    cudaMemcpy(Host, Device, 64, cudaMemcpyDeviceToHost);
  }
}
