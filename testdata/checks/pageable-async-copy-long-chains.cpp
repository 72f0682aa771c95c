// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-pageable-async-copy
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// Decoders written as one long function (single-header image libraries)
// move a cursor under one condition after another. Each move reads the
// previous value, so following every path back is exponential in the
// length of the chain: the placement of a variable read at one place is
// worked out once per call context, and one question has a bounded budget.
#include <cuda_runtime.h>
#include <cstdlib>

static unsigned char *skip(unsigned char *Cursor, int N) { return Cursor + N; }

void uploadAfterHeader(unsigned char *Dev, unsigned Flags, cudaStream_t S) {
  unsigned char *Buffer = (unsigned char *)malloc(1 << 20);
  unsigned char *Cursor = Buffer;
  if (Flags & (1u << 0))
    Cursor = skip(Cursor, 1);
  if (Flags & (1u << 1))
    Cursor = skip(Cursor, 2);
  if (Flags & (1u << 2))
    Cursor = skip(Cursor, 3);
  if (Flags & (1u << 3))
    Cursor = skip(Cursor, 4);
  if (Flags & (1u << 4))
    Cursor = skip(Cursor, 5);
  if (Flags & (1u << 5))
    Cursor = skip(Cursor, 6);
  if (Flags & (1u << 6))
    Cursor = skip(Cursor, 7);
  if (Flags & (1u << 7))
    Cursor = skip(Cursor, 8);
  if (Flags & (1u << 8))
    Cursor = skip(Cursor, 9);
  if (Flags & (1u << 9))
    Cursor = skip(Cursor, 10);
  if (Flags & (1u << 10))
    Cursor = skip(Cursor, 11);
  if (Flags & (1u << 11))
    Cursor = skip(Cursor, 12);
  if (Flags & (1u << 12))
    Cursor = skip(Cursor, 13);
  if (Flags & (1u << 13))
    Cursor = skip(Cursor, 14);
  if (Flags & (1u << 14))
    Cursor = skip(Cursor, 15);
  if (Flags & (1u << 15))
    Cursor = skip(Cursor, 16);
  if (Flags & (1u << 16))
    Cursor = skip(Cursor, 17);
  if (Flags & (1u << 17))
    Cursor = skip(Cursor, 18);
  if (Flags & (1u << 18))
    Cursor = skip(Cursor, 19);
  if (Flags & (1u << 19))
    Cursor = skip(Cursor, 20);
  if (Flags & (1u << 20))
    Cursor = skip(Cursor, 21);
  if (Flags & (1u << 21))
    Cursor = skip(Cursor, 22);
  if (Flags & (1u << 22))
    Cursor = skip(Cursor, 23);
  if (Flags & (1u << 23))
    Cursor = skip(Cursor, 24);
  if (Flags & (1u << 24))
    Cursor = skip(Cursor, 25);
  if (Flags & (1u << 25))
    Cursor = skip(Cursor, 26);
  if (Flags & (1u << 26))
    Cursor = skip(Cursor, 27);
  if (Flags & (1u << 27))
    Cursor = skip(Cursor, 28);
  if (Flags & (1u << 28))
    Cursor = skip(Cursor, 29);
  if (Flags & (1u << 29))
    Cursor = skip(Cursor, 30);
  if (Flags & (1u << 30))
    Cursor = skip(Cursor, 31);
  if (Flags & (1u << 31))
    Cursor = skip(Cursor, 32);
  if (Flags & (1u << 0))
    Cursor = skip(Cursor, 33);
  if (Flags & (1u << 1))
    Cursor = skip(Cursor, 34);
  if (Flags & (1u << 2))
    Cursor = skip(Cursor, 35);
  if (Flags & (1u << 3))
    Cursor = skip(Cursor, 36);
  if (Flags & (1u << 4))
    Cursor = skip(Cursor, 37);
  if (Flags & (1u << 5))
    Cursor = skip(Cursor, 38);
  if (Flags & (1u << 6))
    Cursor = skip(Cursor, 39);
  if (Flags & (1u << 7))
    Cursor = skip(Cursor, 40);
  cudaMemcpyAsync(Dev, Cursor, 64, cudaMemcpyHostToDevice, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:14: note: pageable host memory: returned by 'skip()': allocated on the host by malloc
  free(Buffer);
}

// The same chain inside a loop: each move also reaches the next
// iteration's reads. Too many paths to follow within the budget, so the
// cursor's placement stays unknown and nothing is reported, rather than
// the analysis running for hours.
void uploadEachBlock(unsigned char *Dev, unsigned Flags, int Blocks,
                     cudaStream_t S) {
  unsigned char *Cursor = (unsigned char *)malloc(1 << 20);
  for (int B = 0; B < Blocks; ++B) {
    if (Flags & (1u << 0))
      Cursor = skip(Cursor, 1);
    if (Flags & (1u << 1))
      Cursor = skip(Cursor, 2);
    if (Flags & (1u << 2))
      Cursor = skip(Cursor, 3);
    if (Flags & (1u << 3))
      Cursor = skip(Cursor, 4);
    if (Flags & (1u << 4))
      Cursor = skip(Cursor, 5);
    if (Flags & (1u << 5))
      Cursor = skip(Cursor, 6);
    if (Flags & (1u << 6))
      Cursor = skip(Cursor, 7);
    if (Flags & (1u << 7))
      Cursor = skip(Cursor, 8);
    if (Flags & (1u << 8))
      Cursor = skip(Cursor, 9);
    if (Flags & (1u << 9))
      Cursor = skip(Cursor, 10);
    if (Flags & (1u << 10))
      Cursor = skip(Cursor, 11);
    if (Flags & (1u << 11))
      Cursor = skip(Cursor, 12);
    if (Flags & (1u << 12))
      Cursor = skip(Cursor, 13);
    if (Flags & (1u << 13))
      Cursor = skip(Cursor, 14);
    if (Flags & (1u << 14))
      Cursor = skip(Cursor, 15);
    if (Flags & (1u << 15))
      Cursor = skip(Cursor, 16);
    if (Flags & (1u << 16))
      Cursor = skip(Cursor, 17);
    if (Flags & (1u << 17))
      Cursor = skip(Cursor, 18);
    if (Flags & (1u << 18))
      Cursor = skip(Cursor, 19);
    if (Flags & (1u << 19))
      Cursor = skip(Cursor, 20);
    if (Flags & (1u << 20))
      Cursor = skip(Cursor, 21);
    if (Flags & (1u << 21))
      Cursor = skip(Cursor, 22);
    if (Flags & (1u << 22))
      Cursor = skip(Cursor, 23);
    if (Flags & (1u << 23))
      Cursor = skip(Cursor, 24);
    if (Flags & (1u << 24))
      Cursor = skip(Cursor, 25);
    if (Flags & (1u << 25))
      Cursor = skip(Cursor, 26);
    if (Flags & (1u << 26))
      Cursor = skip(Cursor, 27);
    if (Flags & (1u << 27))
      Cursor = skip(Cursor, 28);
    if (Flags & (1u << 28))
      Cursor = skip(Cursor, 29);
    if (Flags & (1u << 29))
      Cursor = skip(Cursor, 30);
    if (Flags & (1u << 30))
      Cursor = skip(Cursor, 31);
    if (Flags & (1u << 31))
      Cursor = skip(Cursor, 32);
    if (Flags & (1u << 0))
      Cursor = skip(Cursor, 33);
    if (Flags & (1u << 1))
      Cursor = skip(Cursor, 34);
    if (Flags & (1u << 2))
      Cursor = skip(Cursor, 35);
    if (Flags & (1u << 3))
      Cursor = skip(Cursor, 36);
    if (Flags & (1u << 4))
      Cursor = skip(Cursor, 37);
    if (Flags & (1u << 5))
      Cursor = skip(Cursor, 38);
    if (Flags & (1u << 6))
      Cursor = skip(Cursor, 39);
    if (Flags & (1u << 7))
      Cursor = skip(Cursor, 40);
    cudaMemcpyAsync(Dev, Cursor, 64, cudaMemcpyHostToDevice, S);
  }
}
