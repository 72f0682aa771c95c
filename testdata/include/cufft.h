// Minimal stand-in for cuFFT's cufft.h: plans and one transform.
#pragma once
#include <cuda_runtime.h>

typedef int cufftHandle;
typedef enum { CUFFT_SUCCESS = 0 } cufftResult;
typedef enum { CUFFT_C2C = 0x29 } cufftType;
typedef struct {
  float x, y;
} cufftComplex;
#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1

cufftResult cufftPlan1d(cufftHandle *Plan, int Nx, cufftType Type, int Batch);
cufftResult cufftPlan2d(cufftHandle *Plan, int Nx, int Ny, cufftType Type);
cufftResult cufftExecC2C(cufftHandle Plan, cufftComplex *In,
                         cufftComplex *Out, int Direction);
cufftResult cufftDestroy(cufftHandle Plan);
