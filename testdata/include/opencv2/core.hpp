// Stub of the OpenCV image type the tests use: cv::Mat, whose pixels are
// ordinary heap memory.
#pragma once
#include <cstddef>

namespace cv {
class Mat {
public:
  Mat();
  Mat(int Rows, int Cols, int Type);
  unsigned char *data;
  int rows, cols;
  size_t total() const;
  size_t elemSize() const;
  template <typename T = unsigned char> T *ptr(int Row = 0);
};
} // namespace cv
