// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-pageable-async-copy
#include <cuda_runtime.h>
#include <cstdlib>
#include <vector>

struct Buf {
  float *host;
  float *dev;
};

struct Owned {
  float *host;
  explicit Owned(size_t N) : host((float *)malloc(N)) {}
};

struct Pinned {
  float *host;
  explicit Pinned(size_t N) { cudaMallocHost((void **)&host, N); }
};

struct Defaulted {
  float *host = new float[256];
};

void use(Buf &B);
void fill(Buf *P, size_t N);

void localObjects(float *Dev, size_t N, cudaStream_t S) {
  Buf B;
  B.host = (float *)malloc(N);
  cudaMemcpyAsync(Dev, B.host, N, cudaMemcpyHostToDevice, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:21: note: pageable host memory: allocated on the host by malloc
  std::vector<float> Staging(N);
  Buf C;
  C.host = Staging.data();
  for (int I = 0; I < 4; ++I)
    cudaMemcpyAsync(Dev, C.host + I, 4, cudaMemcpyHostToDevice, S);
  // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-6]]:22: note: pageable host memory: the storage of a std::vector
  Owned O(N);
  cudaMemcpyAsync(Dev, O.host, N, cudaMemcpyHostToDevice, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-31]]:44: note: pageable host memory: allocated on the host by malloc
  Defaulted D;
  cudaMemcpyAsync(Dev, D.host, 1024, cudaMemcpyHostToDevice, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-26]]:17: note: pageable host memory: allocated on the host by new
  Buf Agg{(float *)malloc(N), Dev};
  cudaMemcpyAsync(Dev, Agg.host, N, cudaMemcpyHostToDevice, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:20: note: pageable host memory: allocated on the host by malloc
}

void pointerParameter(Buf *P, float *Dev, size_t N, cudaStream_t S) {
  P->host = new float[N];
  cudaMemcpyAsync(Dev, P->host, N, cudaMemcpyHostToDevice, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:13: note: pageable host memory: allocated on the host by new
}

// Unknown, or possibly changed unseen: not reported.
void unknownFields(Buf *P, Buf Param, float *Dev, size_t N, cudaStream_t S,
                   bool Flag) {
  cudaMemcpyAsync(Dev, P->host, N, cudaMemcpyHostToDevice, S);
  cudaMemcpyAsync(Dev, Param.host, N, cudaMemcpyHostToDevice, S);
  Buf Uninitialised;
  cudaMemcpyAsync(Dev, Uninitialised.host, N, cudaMemcpyHostToDevice, S);

  // Pinned memory stored into the field.
  Buf Good;
  cudaMallocHost((void **)&Good.host, N);
  cudaMemcpyAsync(Dev, Good.host, N, cudaMemcpyHostToDevice, S);
  Buf Reassigned;
  Reassigned.host = (float *)malloc(N);
  cudaHostAlloc((void **)&Reassigned.host, N, cudaHostAllocDefault);
  cudaMemcpyAsync(Dev, Reassigned.host, N, cudaMemcpyHostToDevice, S);
  Pinned Pin(N);
  cudaMemcpyAsync(Dev, Pin.host, N, cudaMemcpyHostToDevice, S);

  // The object passed on: the callee may store another pointer.
  Buf Escapes;
  Escapes.host = (float *)malloc(N);
  use(Escapes);
  cudaMemcpyAsync(Dev, Escapes.host, N, cudaMemcpyHostToDevice, S);
  Buf ByAddress;
  ByAddress.host = (float *)malloc(N);
  fill(&ByAddress, N);
  cudaMemcpyAsync(Dev, ByAddress.host, N, cudaMemcpyHostToDevice, S);

  // Stored on one path only.
  Buf Conditional;
  if (Flag)
    Conditional.host = (float *)malloc(N);
  cudaMemcpyAsync(Dev, Conditional.host, N, cudaMemcpyHostToDevice, S);

  // Stored later in the loop: the second iteration copies pinned memory.
  Buf Rotating;
  Rotating.host = (float *)malloc(N);
  for (int I = 0; I < 4; ++I) {
    cudaMemcpyAsync(Dev, Rotating.host, N, cudaMemcpyHostToDevice, S);
    cudaMallocHost((void **)&Dev, N);
    Rotating.host = Dev;
  }

  // Through a pointer: a call in between may store the field elsewhere.
  P->host = (float *)malloc(N);
  fill(P, N);
  cudaMemcpyAsync(Dev, P->host, N, cudaMemcpyHostToDevice, S);
}

// A settings object the caller passes in: its buffer is what the program
// stores into that field (here, memory from new), wherever that is.
struct FrameParams {
  float *input;
  float *staged;
  float *device;
  int size;
};
void allocateFrameParams(FrameParams &Params) {
  Params.input = new float[Params.size];
  cudaMallocHost((void **)&Params.staged, Params.size * sizeof(float));
  cudaMalloc((void **)&Params.device, Params.size * sizeof(float));
}
void uploadFrames(FrameParams &Params, const FrameParams *Same, int Frames,
                  cudaStream_t S) {
  for (int F = 0; F < Frames; ++F) {
    cudaMemcpyAsync(Params.device, Params.input, Params.size * sizeof(float),
                    cudaMemcpyHostToDevice, S);
    // XFER-WARNING: :[[@LINE-2]]:5: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
    // XFER-NOTE: :122:18: note: pageable host memory: allocated on the host by new (stored in 'input')
    cudaMemcpyAsync(Params.device, Params.staged, Params.size * sizeof(float),
                    cudaMemcpyHostToDevice, S);
    cudaMemcpyAsync(Same->device, Same->input, Same->size * sizeof(float),
                    cudaMemcpyHostToDevice, S);
    // XFER-WARNING: :[[@LINE-2]]:5: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
    // XFER-NOTE: :122:18: note: pageable host memory: allocated on the host by new (stored in 'input')
  }
}

// A field stored from the same field of another object passed in
// (`A.data = B.data`) refers back to itself: unknown, and no endless walk.
struct Node {
  float *data;
};
void link(Node &A, Node &B) { A.data = B.data; }
void uploadNode(Node &N, float *Dev, cudaStream_t S) {
  cudaMemcpyAsync(Dev, N.data, 4, cudaMemcpyHostToDevice, S);
}

// A member that one path allocates pinned and another pageable (pinned only
// when the block also has a device copy) may be pinned where it is copied
// asynchronously: not known to be pageable, so not reported. A member only
// ever allocated pageable is.
template <typename T> struct MemoryBlock {
  T *Cpu = nullptr;
  T *Gpu = nullptr;
  T *Staging = nullptr;
  size_t Size = 0;
  void allocate(size_t N, bool WithDevice) {
    Size = N;
    if (WithDevice)
      cudaMallocHost((void **)&Cpu, N * sizeof(T));
    else
      Cpu = new T[N];
    Staging = new T[N];
    if (WithDevice)
      cudaMalloc((void **)&Gpu, N * sizeof(T));
  }
  void upload(cudaStream_t S) {
    cudaMemcpyAsync(Gpu, Cpu, Size * sizeof(T), cudaMemcpyHostToDevice, S);
    cudaMemcpyAsync(Gpu, Staging, Size * sizeof(T), cudaMemcpyHostToDevice, S);
    // XFER-WARNING: :173:5: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
    // XFER-NOTE: :167:15: note: pageable host memory: allocated on the host by new (stored in 'Staging')
  }
};
template struct MemoryBlock<float>;

// Scalars and arrays held in an object live where the object does: in a
// method's own object or one made with new, pageable memory; in a struct
// made with cudaMallocHost, pinned.
struct Counters {
  int Changed;
  float Sizes[4];
};
class Flow {
  int Width = 0;
  int *DeviceWidth = nullptr;

public:
  void upload(cudaStream_t S) {
    cudaMemcpyAsync(DeviceWidth, &Width, sizeof(int), cudaMemcpyHostToDevice,
                    S);
    // XFER-WARNING: :[[@LINE-2]]:5: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
    // XFER-NOTE: :[[@LINE-3]]:34: note: pageable host memory: the member 'Width' of an object in pageable host memory
  }
};
void countChanges(int *DeviceChanged, float *DeviceSizes, cudaStream_t S) {
  Counters *Host = new Counters;
  cudaMemcpyAsync(&Host->Changed, DeviceChanged, sizeof(int),
                  cudaMemcpyDeviceToHost, S);
  // XFER-WARNING: :[[@LINE-2]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only once the data has reached host memory, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:19: note: pageable host memory: the member 'Changed' of what 'Host' points to (allocated on the host by new)
  Counters *Pinned = nullptr;
  cudaMallocHost((void **)&Pinned, sizeof(Counters));
  cudaMemcpyAsync(&Pinned->Changed, DeviceChanged, sizeof(int),
                  cudaMemcpyDeviceToHost, S);
  cudaMemcpyAsync(Pinned->Sizes, DeviceSizes, sizeof(Pinned->Sizes),
                  cudaMemcpyDeviceToHost, S);
}
