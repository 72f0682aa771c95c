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

// The batch loop walks the layers itself, forward with a range-for and
// backward with reverse iterators: those walks are parts of one step, so an
// allocation or read-back beside them runs on every batch.
struct Dense {
  virtual float *forward(float *Input, int Batch) = 0;
  virtual float *backward(float *Gradient, int Batch) = 0;
};
struct Network {
  std::vector<Dense *> Layers;
  void gradientDescent(float *Device, float *Host, int Samples, int Batch) {
    for (int I = 0; I < Samples; I += Batch) {
      float *Activation = Device;
      for (Dense *Layer : Layers)
        Activation = Layer->forward(Activation, Batch);
      cudaMemcpy(Host, Activation, Batch * sizeof(float),
                 cudaMemcpyDeviceToHost);
      // XFER-WARNING: :[[@LINE-2]]:7: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 68: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
      // XFER-NOTE: :[[@LINE-7]]:5: note: loop starts here
      float *Gradient = Activation;
      for (auto Layer = Layers.rbegin(); Layer != Layers.rend(); ++Layer)
        Gradient = (*Layer)->backward(Gradient, Batch);
      cudaMemcpy(Host, Gradient, Batch * sizeof(float),
                 cudaMemcpyDeviceToHost);
      // XFER-WARNING: :[[@LINE-2]]:7: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 68: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
      // XFER-NOTE: :[[@LINE-14]]:5: note: loop starts here
    }
  }
};

// An epoch loop around a batch loop is still one: the read-back after the
// batch loop runs once per epoch.
void epochs(Mlp &Model, float *Device, float *Host, int Epochs, int Batches) {
  for (int E = 0; E < Epochs; ++E) {
    for (int B = 0; B < Batches; ++B)
      Model.backward(Device);
    cudaMemcpy(Host, Device, 64, cudaMemcpyDeviceToHost);
  }
}

// A loop that gathers the batch sample by sample with checked copies (error
// strings and all) computes nothing: it is no step loop, and a read-back
// after it still runs on every batch.
#define CHECK(call)                                                            \
  {                                                                            \
    if ((call) != cudaSuccess)                                                 \
      printf("%s\n", cudaGetErrorString(call));                                \
  }
#include <cstdio>
void gatherAndCheck(Mlp &Model, const float *X, float *Device, float *Host,
                    int Samples, int Batch) {
  for (int I = 0; I < Samples; I += Batch) {
    for (int S = 0; S < Batch; ++S)
      CHECK(cudaMemcpy(Device + S, X + I + S, sizeof(float),
                       cudaMemcpyHostToDevice));
    Model.backward(Device);
    CHECK(cudaMemcpy(Host, Device, 64, cudaMemcpyDeviceToHost));
    // XFER-WARNING: :[[@LINE-1]]:11: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 108: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-7]]:3: note: loop starts here
  }
}
