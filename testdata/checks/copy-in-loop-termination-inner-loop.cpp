// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
// A value read back to decide whether the loop goes on is necessary work, but
// only for the loop it decides: read on every iteration of an inner loop (a
// fitness per individual) and only aggregated for the outer loop's test, it is
// read many times per decision.
#include <cuda_runtime.h>

void evolve(unsigned char *Genes, int Len);
void score(const unsigned char *Genes, int *Fitness);

int *DeviceFitness;

int fitnessOf(const unsigned char *Genes) {
  int Fitness = 0;
  score(Genes, DeviceFitness);
  cudaMemcpy(&Fitness, DeviceFitness, sizeof(int), cudaMemcpyDeviceToHost);
  return Fitness;
}

void perIndividualReads(unsigned char *DeviceGenes, int Len) {
  bool Finished = false;
  while (!Finished) {
    evolve(DeviceGenes, Len);
    int Best = 0;
    for (int I = 0; I < 64; ++I) {
      int Fit = fitnessOf(DeviceGenes + I * Len);
      // XFER-WARNING: :[[@LINE-1]]:17: warning: 'fitnessOf()' copies device memory to the host on each of 64 iterations of the loop at line 26: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
      // XFER-NOTE: :[[@LINE-3]]:5: note: loop starts here
      // XFER-NOTE: :17:3: note: 'cudaMemcpy' copies device memory to the host here
      if (Fit > Best)
        Best = Fit;
    }
    if (Best == Len * 8)
      Finished = true;
  }
}

// The read decides the loop it sits in: a convergence test, silent.
void convergence(unsigned char *DeviceGenes, int Len) {
  bool Finished = false;
  while (!Finished) {
    evolve(DeviceGenes, Len);
    if (fitnessOf(DeviceGenes) == Len * 8)
      Finished = true;
  }
}
