// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
// XFER-CONFIG: {CheckOptions: {xfer-copy-in-loop.ReportOutputReadBacks: true}}
// With ReportOutputReadBacks, a copy whose result the host uses on the same
// iteration is reported, with a note saying it may be necessary.
#include <cuda_runtime.h>

void launchStep(float *Field, int N);
void drawFrame(const float *Pixels, int N);

void simulate(float *Field, float *Host, int N, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    launchStep(Field, N);
    cudaMemcpy(Host, Field, N * sizeof(float), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 12: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :12:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:5: note: the host uses what the copy brings back in the same iteration: if it is the result the program needs, the copy is necessary; keep it to one transfer
    drawFrame(Host, N);
  }
}
