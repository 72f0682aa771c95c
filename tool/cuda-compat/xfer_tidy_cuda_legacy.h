// xfer_tidy_cuda_legacy.h - declarations of CUDA runtime APIs that newer
// toolkits removed, so that code written for older toolkits still parses when
// it is analysed against them. Declarations only: nothing here is meant to be
// compiled into a program. xfer-tidy force-includes this header (-include)
// into CUDA translation units, after clang's CUDA runtime wrapper has included
// cuda_runtime.h. Each group is guarded by the CUDA version that removed it,
// so against a toolkit that still has an API the real declaration is used.
//
// The cudaDeviceProp fields removed in CUDA 13 (clockRate, deviceOverlap, ...)
// cannot be added from here; xfer-tidy serves a patched copy of the toolkit's
// driver_types.h for them (see tool/CudaCompilation.cpp).
#ifndef XFER_TIDY_CUDA_LEGACY_H
#define XFER_TIDY_CUDA_LEGACY_H

#if defined(__cplusplus) && defined(__CUDACC__) && defined(CUDART_VERSION)

// nvcc's runtime header includes <math.h> on the host, so CUDA sources call
// ::isnan, ::fabs, ... without including it; clang's wrapper includes only
// <cmath>, which declares them in namespace std. Its common_functions.h
// includes the C headers below as well, so sources call time(), memcpy(),
// printf() or malloc() having included none of them.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Thread management, replaced by the cudaDevice* functions; removed in 13.0.
#if CUDART_VERSION >= 13000
extern "C" {
extern __host__ cudaError_t CUDARTAPI cudaThreadExit(void);
extern __host__ cudaError_t CUDARTAPI cudaThreadSynchronize(void);
extern __host__ cudaError_t CUDARTAPI cudaThreadSetLimit(enum cudaLimit limit,
                                                         size_t value);
extern __host__ cudaError_t CUDARTAPI cudaThreadGetLimit(size_t *pValue,
                                                         enum cudaLimit limit);
extern __host__ cudaError_t CUDARTAPI
cudaThreadGetCacheConfig(enum cudaFuncCache *pCacheConfig);
extern __host__ cudaError_t CUDARTAPI
cudaThreadSetCacheConfig(enum cudaFuncCache cacheConfig);
}
#endif // CUDART_VERSION >= 13000

// Texture references, replaced by texture objects; removed in 12.0.
#if CUDART_VERSION >= 12000
struct __device_builtin__ textureReference {
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
  struct cudaChannelFormatDesc channelDesc;
  int sRGB;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int __cudaReserved[14];
};

// __device_builtin_texture_type__ makes clang accept texture variables in
// device code, as it did with the toolkits that declared this template.
template <class T, int texType = cudaTextureType1D,
          enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __device_builtin_texture_type__ texture : public textureReference {
  __host__ texture(int norm = 0,
                   enum cudaTextureFilterMode fMode = cudaFilterModePoint,
                   enum cudaTextureAddressMode aMode = cudaAddressModeClamp);
  __host__ texture(int norm, enum cudaTextureFilterMode fMode,
                   enum cudaTextureAddressMode aMode,
                   struct cudaChannelFormatDesc desc);
};

extern "C" {
extern __host__ cudaError_t CUDARTAPI
cudaBindTexture(size_t *offset, const struct textureReference *texref,
                const void *devPtr, const struct cudaChannelFormatDesc *desc,
                size_t size = UINT_MAX);
extern __host__ cudaError_t CUDARTAPI
cudaBindTexture2D(size_t *offset, const struct textureReference *texref,
                  const void *devPtr, const struct cudaChannelFormatDesc *desc,
                  size_t width, size_t height, size_t pitch);
extern __host__ cudaError_t CUDARTAPI
cudaBindTextureToArray(const struct textureReference *texref,
                       cudaArray_const_t array,
                       const struct cudaChannelFormatDesc *desc);
extern __host__ cudaError_t CUDARTAPI
cudaUnbindTexture(const struct textureReference *texref);
extern __host__ cudaError_t CUDARTAPI cudaGetTextureAlignmentOffset(
    size_t *offset, const struct textureReference *texref);
extern __host__ cudaError_t CUDARTAPI cudaGetTextureReference(
    const struct textureReference **texref, const void *symbol);
}

template <class T, int dim, enum cudaTextureReadMode readMode>
__host__ cudaError_t cudaBindTexture(size_t *offset,
                                     const struct texture<T, dim, readMode> &tex,
                                     const void *devPtr,
                                     const struct cudaChannelFormatDesc &desc,
                                     size_t size = UINT_MAX);
template <class T, int dim, enum cudaTextureReadMode readMode>
__host__ cudaError_t cudaBindTexture(size_t *offset,
                                     const struct texture<T, dim, readMode> &tex,
                                     const void *devPtr, size_t size = UINT_MAX);
template <class T, int dim, enum cudaTextureReadMode readMode>
__host__ cudaError_t
cudaBindTexture2D(size_t *offset, const struct texture<T, dim, readMode> &tex,
                  const void *devPtr, const struct cudaChannelFormatDesc &desc,
                  size_t width, size_t height, size_t pitch);
template <class T, int dim, enum cudaTextureReadMode readMode>
__host__ cudaError_t
cudaBindTexture2D(size_t *offset, const struct texture<T, dim, readMode> &tex,
                  const void *devPtr, size_t width, size_t height,
                  size_t pitch);
template <class T, int dim, enum cudaTextureReadMode readMode>
__host__ cudaError_t
cudaBindTextureToArray(const struct texture<T, dim, readMode> &tex,
                       cudaArray_const_t array,
                       const struct cudaChannelFormatDesc &desc);
template <class T, int dim, enum cudaTextureReadMode readMode>
__host__ cudaError_t
cudaBindTextureToArray(const struct texture<T, dim, readMode> &tex,
                       cudaArray_const_t array);
template <class T, int dim, enum cudaTextureReadMode readMode>
__host__ cudaError_t
cudaUnbindTexture(const struct texture<T, dim, readMode> &tex);
template <class T, int dim, enum cudaTextureReadMode readMode>
__host__ cudaError_t
cudaGetTextureAlignmentOffset(size_t *offset,
                              const struct texture<T, dim, readMode> &tex);

// Fetches through a texture reference return the element type, or floats of
// the same width when the reference normalises.
template <class T> struct __xfer_tex_normalized { typedef float type; };
template <> struct __xfer_tex_normalized<char1> { typedef float1 type; };
template <> struct __xfer_tex_normalized<uchar1> { typedef float1 type; };
template <> struct __xfer_tex_normalized<short1> { typedef float1 type; };
template <> struct __xfer_tex_normalized<ushort1> { typedef float1 type; };
template <> struct __xfer_tex_normalized<char2> { typedef float2 type; };
template <> struct __xfer_tex_normalized<uchar2> { typedef float2 type; };
template <> struct __xfer_tex_normalized<short2> { typedef float2 type; };
template <> struct __xfer_tex_normalized<ushort2> { typedef float2 type; };
template <> struct __xfer_tex_normalized<char4> { typedef float4 type; };
template <> struct __xfer_tex_normalized<uchar4> { typedef float4 type; };
template <> struct __xfer_tex_normalized<short4> { typedef float4 type; };
template <> struct __xfer_tex_normalized<ushort4> { typedef float4 type; };
#define __XFER_TEX_FETCH(NAME, DIM, ...)                                       \
  template <class T>                                                           \
  __device__ T NAME(texture<T, DIM, cudaReadModeElementType>, __VA_ARGS__);    \
  template <class T>                                                           \
  __device__ typename __xfer_tex_normalized<T>::type NAME(                     \
      texture<T, DIM, cudaReadModeNormalizedFloat>, __VA_ARGS__);
__XFER_TEX_FETCH(tex1Dfetch, cudaTextureType1D, int x)
__XFER_TEX_FETCH(tex1D, cudaTextureType1D, float x)
__XFER_TEX_FETCH(tex2D, cudaTextureType2D, float x, float y)
__XFER_TEX_FETCH(tex3D, cudaTextureType3D, float x, float y, float z)
__XFER_TEX_FETCH(tex1DLod, cudaTextureType1D, float x, float level)
__XFER_TEX_FETCH(tex2DLod, cudaTextureType2D, float x, float y, float level)
__XFER_TEX_FETCH(tex3DLod, cudaTextureType3D, float x, float y, float z,
                 float level)
#undef __XFER_TEX_FETCH
#endif // CUDART_VERSION >= 12000

// nvcc's crt/math_functions.hpp declares min and max for mixed integer and
// floating types __host__ __device__, so host code in .cu files calls
// min(n, 1024) with an unsigned n; clang's CUDA headers declare them for the
// device only. Host overloads, declared only (never compiled into a program).
#define __XFER_HOST_MINMAX(R, A, B)                                            \
  __host__ R min(A a, B b);                                                    \
  __host__ R max(A a, B b);
__XFER_HOST_MINMAX(int, int, int)
__XFER_HOST_MINMAX(unsigned int, unsigned int, unsigned int)
__XFER_HOST_MINMAX(unsigned int, int, unsigned int)
__XFER_HOST_MINMAX(unsigned int, unsigned int, int)
__XFER_HOST_MINMAX(long long, long long, long long)
__XFER_HOST_MINMAX(unsigned long long, unsigned long long, unsigned long long)
__XFER_HOST_MINMAX(unsigned long long, long long, unsigned long long)
__XFER_HOST_MINMAX(unsigned long long, unsigned long long, long long)
__XFER_HOST_MINMAX(float, float, float)
__XFER_HOST_MINMAX(double, double, double)
__XFER_HOST_MINMAX(double, float, double)
__XFER_HOST_MINMAX(double, double, float)
#undef __XFER_HOST_MINMAX

#endif // __cplusplus && __CUDACC__ && CUDART_VERSION
#endif // XFER_TIDY_CUDA_LEGACY_H
