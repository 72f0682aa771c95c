// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// Thrust's scans and sorts over device memory allocate their temporary
// storage and free it again under the default execution policy: the host
// waits on every call. One scan per image row is one wait per row. Over host
// ranges they do not touch the device.
#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <vector>

__global__ void blurRows(int *Sums, int Width, int Height);

void prefixSumRows(int *DeviceImage, int Width, int Height) {
  thrust::device_ptr<int> Image(DeviceImage);
  for (int Row = 0; Row < Height; ++Row)
    thrust::inclusive_scan(Image + Row * Width, Image + (Row + 1) * Width,
                           Image + Row * Width);
  // XFER-WARNING: :[[@LINE-2]]:5: warning: 'thrust::inclusive_scan' synchronizes with the GPU on every iteration of the loop at line 18: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  // XFER-NOTE: :18:3: note: loop starts here
}

void sortFrames(int *DeviceKeys, int *DeviceValues, int N, int Frames) {
  thrust::device_ptr<int> Keys(DeviceKeys), Values(DeviceValues);
  for (int Frame = 0; Frame < Frames; ++Frame) {
    blurRows<<<1, 32>>>(DeviceKeys, N, 1);
    thrust::sort_by_key(Keys, Keys + N, Values);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'thrust::sort_by_key' synchronizes with the GPU on every iteration of the loop at line 27: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :27:3: note: loop starts here
  }
}

void prefixSumOnHost(std::vector<int> &Host, int *DeviceImage, int Rows) {
  for (int Row = 0; Row < Rows; ++Row) {
    blurRows<<<1, 32>>>(DeviceImage, 16, 1);
    thrust::inclusive_scan(Host.begin(), Host.end(), Host.begin());
    thrust::sort(Host.begin(), Host.end());
  }
}
