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
