// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-pageable-async-copy
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// cuBLAS's asynchronous matrix and vector transfers are cudaMemcpyAsync
// underneath: from or into pageable memory they do not overlap either. The
// host buffer may come from a helper of the program.
#include <cublas_v2.h>
#include <cstdlib>

float *makeMatrix(int Rows, int Cols) {
  float *Matrix = (float *)malloc(Rows * Cols * sizeof(float));
  return Matrix;
}

void transfers(float *Dev, int N, cudaStream_t S) {
  float *A = makeMatrix(N, N);
  cublasSetMatrixAsync(N, N, sizeof(float), A, N, Dev, N, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cublasSetMatrixAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:14: note: pageable host memory: returned by 'makeMatrix()': allocated on the host by malloc
  cublasGetMatrixAsync(N, N, sizeof(float), Dev, N, A, N, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cublasGetMatrixAsync' copies into pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only once the data has reached host memory, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-6]]:14: note: pageable host memory: returned by 'makeMatrix()': allocated on the host by malloc
  float Vector[64];
  cublasSetVectorAsync(64, sizeof(float), Vector, 1, Dev, 1, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cublasSetVectorAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:9: note: pageable host memory: the array 'Vector'
  cublasGetVectorAsync(64, sizeof(float), Dev, 1, Vector, 1, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cublasGetVectorAsync' copies into pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only once the data has reached host memory, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-6]]:9: note: pageable host memory: the array 'Vector'

  // Negatives: pinned host memory, and device-to-device.
  float *Pinned = nullptr;
  cudaMallocHost((void **)&Pinned, N * N * sizeof(float));
  cublasSetMatrixAsync(N, N, sizeof(float), Pinned, N, Dev, N, S);
  cublasGetMatrixAsync(N, N, sizeof(float), Dev, N, Pinned, N, S);
  float *Other = nullptr;
  cudaMalloc((void **)&Other, N * sizeof(float));
  cublasSetVectorAsync(N, sizeof(float), Other, 1, Dev, 1, S);
}
