// Minimal stand-in for cuBLAS's cublas_v2.h: the asynchronous matrix and
// vector transfers, which are cudaMemcpyAsync underneath.
#pragma once
#include <cuda_runtime.h>

typedef struct cublasContext *cublasHandle_t;
typedef enum { CUBLAS_STATUS_SUCCESS = 0 } cublasStatus_t;

cublasStatus_t cublasSetMatrixAsync(int Rows, int Cols, int ElemSize,
                                    const void *A, int Lda, void *B, int Ldb,
                                    cudaStream_t Stream);
cublasStatus_t cublasGetMatrixAsync(int Rows, int Cols, int ElemSize,
                                    const void *A, int Lda, void *B, int Ldb,
                                    cudaStream_t Stream);
cublasStatus_t cublasSetVectorAsync(int N, int ElemSize, const void *X,
                                    int IncX, void *Y, int IncY,
                                    cudaStream_t Stream);
cublasStatus_t cublasGetVectorAsync(int N, int ElemSize, const void *X,
                                    int IncX, void *Y, int IncY,
                                    cudaStream_t Stream);

// Handles, named through macros as the real header does.
cublasStatus_t cublasCreate_v2(cublasHandle_t *Handle);
cublasStatus_t cublasDestroy_v2(cublasHandle_t Handle);
#define cublasCreate cublasCreate_v2
#define cublasDestroy cublasDestroy_v2
cublasStatus_t cublasSscal_v2(cublasHandle_t Handle, int N, const float *Alpha,
                              float *X, int IncX);
#define cublasSscal cublasSscal_v2

// Reductions returning one scalar, and the pointer mode that says where.
typedef enum {
  CUBLAS_POINTER_MODE_HOST = 0,
  CUBLAS_POINTER_MODE_DEVICE = 1
} cublasPointerMode_t;
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t Handle,
                                       cublasPointerMode_t Mode);
#define cublasSetPointerMode cublasSetPointerMode_v2
cublasStatus_t cublasSasum_v2(cublasHandle_t Handle, int N, const float *X,
                              int IncX, float *Result);
#define cublasSasum cublasSasum_v2
cublasStatus_t cublasSnrm2_v2(cublasHandle_t Handle, int N, const float *X,
                              int IncX, float *Result);
#define cublasSnrm2 cublasSnrm2_v2
cublasStatus_t cublasSdot_v2(cublasHandle_t Handle, int N, const float *X,
                             int IncX, const float *Y, int IncY,
                             float *Result);
#define cublasSdot cublasSdot_v2
