// Minimal stand-in for the LibTorch API surface the checks match. It mirrors
// the real declarations (ATen/core/TensorBody.h, c10/core/Device.h,
// torch/csrc/autograd/generated/variable_factories.h) closely enough that the
// same matchers work on both, and parses in a fraction of the time.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace c10 {
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
enum class ScalarType : int8_t { Float, Long, Bool };
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kLong = ScalarType::Long;
using DeviceIndex = int8_t;

struct Device {
  /* implicit */ Device(DeviceType Type, DeviceIndex Index = -1);
  /* implicit */ Device(const std::string &Spec);
  /* implicit */ Device(const char *Spec);
  DeviceType type() const;
  bool is_cuda() const;
  bool is_cpu() const;
  bool operator==(const Device &Other) const;
  bool operator!=(const Device &Other) const;
};

class Scalar {
public:
  /* implicit */ Scalar(double V);
  /* implicit */ Scalar(int64_t V);
  template <typename T> T to() const;
  double toDouble() const;
};

template <typename T> class optional {
public:
  optional();
  optional(T);
};

template <typename T> class ArrayRef {
public:
  ArrayRef(std::initializer_list<T>);
  ArrayRef(const std::vector<T> &);
  const T *begin() const;
  const T *end() const;
};
using IntArrayRef = ArrayRef<int64_t>;
} // namespace c10

namespace at {
using c10::Device;
using c10::DeviceType;
using c10::IntArrayRef;
using c10::kCPU;
using c10::kCUDA;
using c10::Scalar;
using c10::ScalarType;

struct TensorOptions {
  TensorOptions();
  /* implicit */ TensorOptions(Device D);
  /* implicit */ TensorOptions(DeviceType T);
  /* implicit */ TensorOptions(ScalarType S);
  // Anything a Device can be built from: "cuda:0", (kCUDA, 1).
  template <typename... Args,
            typename = std::enable_if_t<
                std::is_constructible<Device, Args &&...>::value>>
  /* implicit */ TensorOptions(Args &&...A)
      : TensorOptions(Device(std::forward<Args>(A)...)) {}
  TensorOptions device(Device D) const;
  // options.device(kCUDA, 1), as the real header allows.
  template <typename... Args>
  TensorOptions device(Args &&...A) const {
    return device(Device(std::forward<Args>(A)...));
  }
  TensorOptions dtype(ScalarType S) const;
  TensorOptions requires_grad(bool R = true) const;
  TensorOptions pinned_memory(c10::optional<bool> P) const; // as LibTorch
};
inline TensorOptions device(Device D) { return TensorOptions(D); }
inline TensorOptions dtype(ScalarType S) { return TensorOptions(S); }

namespace indexing {
struct TensorIndex;
} // namespace indexing

class TensorBase {
public:
  Device device() const;
  bool is_cuda() const;
  int64_t numel() const;
  bool defined() const;
};

class Tensor : public TensorBase {
public:
  Tensor();
  Tensor(const Tensor &);
  Tensor(Tensor &&);
  // As LibTorch's: assigning to a variable rebinds it; assigning to a
  // temporary (a view: t[i], t.slice(...)) copies into the viewed elements.
  Tensor &operator=(const Tensor &) &;
  Tensor &operator=(Tensor &&) &;
  Tensor &operator=(const Tensor &) &&;
  Tensor &operator=(Tensor &&) &&;
  Tensor &operator=(const Scalar &) &&;
  template <typename T> T item() const;
  Scalar item() const;
  Tensor cpu() const;
  Tensor cuda() const;
  Tensor to(TensorOptions Options = {}, bool NonBlocking = false,
            bool Copy = false) const;
  Tensor to(Device D, ScalarType S, bool NonBlocking = false,
            bool Copy = false) const;
  Tensor to(ScalarType S, bool NonBlocking = false, bool Copy = false) const;
  Tensor to(const Tensor &Other, bool NonBlocking = false,
            bool Copy = false) const;
  Tensor &copy_(const Tensor &Src, bool NonBlocking = false) const;
  Tensor operator[](Scalar Index) const;
  Tensor operator[](Tensor Index) const;
  Tensor operator[](int64_t Index) const;
  bool equal(const Tensor &Other) const;
  bool allclose(const Tensor &Other, double RTol = 1e-05,
                double ATol = 1e-08) const;
  bool is_nonzero() const;
  Tensor nonzero() const;
  Tensor masked_select(const Tensor &Mask) const;
  Tensor unique_consecutive() const;
  Tensor inverse() const;
  Tensor pin_memory() const;
  bool is_pinned() const;
  Tensor detach() const;
  Tensor mean() const;
  Tensor repeat(IntArrayRef Repeats) const;
  IntArrayRef sizes() const;
  Tensor sum() const;
  Tensor pow(double E) const;
  Tensor add(const Tensor &Other) const;
  Tensor mul(const Tensor &Other) const;
  Tensor matmul(const Tensor &Other) const;
  Tensor mm(const Tensor &Other) const;
  Tensor bmm(const Tensor &Mat2) const;
  Tensor sub(const Tensor &Other) const;
  Tensor div(const Tensor &Other) const;
  Tensor index_select(int64_t Dim, const Tensor &Index) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> Indices) const;
  Tensor &index_put_(std::initializer_list<indexing::TensorIndex> Indices,
                     const Tensor &Value) const;
  Tensor &index_put_(std::initializer_list<indexing::TensorIndex> Indices,
                     const Scalar &Value) const;
  Tensor gt(double Other) const;
  Tensor masked_fill(const Tensor &Mask, const Scalar &Value) const;
  Tensor type_as(const Tensor &Other) const;
  Tensor view_as(const Tensor &Other) const;
  Tensor &add_(const Tensor &Other) const;
  Tensor &mul_(Scalar Other) const;
  Tensor &operator+=(const Tensor &Other) const;
  int64_t dim() const;
  std::tuple<Tensor, Tensor> max(int64_t Dim) const;
  Tensor view(IntArrayRef Shape) const;
  Tensor argmax(int64_t Dim) const;
  Tensor contiguous() const;
  Tensor slice(int64_t Dim, int64_t Start, int64_t End) const;
  Tensor reshape(IntArrayRef Shape) const;
  Tensor unsqueeze(int64_t Dim) const;
  Tensor squeeze(int64_t Dim) const;
  Tensor permute(IntArrayRef Dims) const;
  Tensor expand(IntArrayRef Sizes) const;
  Tensor clone() const;
  Tensor narrow(int64_t Dim, int64_t Start, int64_t Length) const;
  Tensor t() const;
  Tensor toType(ScalarType S) const;
  Tensor &zero_() const;
  Tensor &fill_(const Tensor &Value) const;
  Tensor &fill_(Scalar Value) const;
  void backward() const;
  template <typename T> T *data_ptr() const;
  int64_t size(int64_t Dim) const;
};
Tensor operator+(const Tensor &A, const Tensor &B);
Tensor operator-(const Tensor &A, const Tensor &B);
Tensor operator*(const Tensor &A, const Tensor &B);
Tensor operator*(const Tensor &A, double B);
Tensor operator-(double A, const Tensor &B);
Tensor operator>(const Tensor &A, double B);
Tensor operator/(const Tensor &A, const Tensor &B);
Tensor operator==(const Tensor &A, const Tensor &B);
Tensor operator<(const Tensor &A, const Tensor &B);
inline std::ostream &operator<<(std::ostream &Out, const Tensor &T) {
  return Out;
}
namespace indexing {
struct Slice {
  Slice();
  Slice(int64_t Start, int64_t Stop);
};
struct TensorIndex {
  TensorIndex(Tensor T);
  TensorIndex(int64_t I);
  TensorIndex(Slice S);
};
} // namespace indexing

Tensor randn(IntArrayRef Size, TensorOptions Options = {});
Tensor rand(IntArrayRef Size, TensorOptions Options = {});
Tensor randint(int64_t Low, int64_t High, IntArrayRef Size,
               TensorOptions Options = {});
Tensor zeros(IntArrayRef Size, TensorOptions Options = {});
Tensor ones(IntArrayRef Size, TensorOptions Options = {});
Tensor empty(IntArrayRef Size, TensorOptions Options = {});
Tensor arange(Scalar End, TensorOptions Options = {});
Tensor nonzero(const Tensor &Self);
Tensor masked_select(const Tensor &Self, const Tensor &Mask);
bool equal(const Tensor &A, const Tensor &B);
bool allclose(const Tensor &A, const Tensor &B, double RTol = 1e-05,
              double ATol = 1e-08);
bool is_nonzero(const Tensor &Self);
Tensor from_blob(void *Data, IntArrayRef Sizes, TensorOptions Options = {});
// As in LibTorch: a TensorList (ArrayRef) built from a braced list or a
// std::vector.
using TensorList = c10::ArrayRef<Tensor>;
Tensor cat(TensorList Tensors, int64_t Dim = 0);
std::vector<Tensor> meshgrid(const std::vector<Tensor> &Tensors);
Tensor mse_loss(const Tensor &A, const Tensor &B);
Tensor stack(TensorList Tensors, int64_t Dim = 0);
Tensor where(const Tensor &Condition, const Tensor &Self,
             const Tensor &Other);
Tensor matmul(const Tensor &Self, const Tensor &Other);
Tensor scalar_tensor(const Scalar &S, TensorOptions Options = {});
Tensor inverse(const Tensor &Self);
Tensor linalg_inv(const Tensor &A);
std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor &A,
                                         bool CheckErrors = false);
Tensor linalg_solve(const Tensor &A, const Tensor &B, bool Left = true);
} // namespace at

namespace torch {
using at::Tensor;
using at::TensorOptions;
using c10::Device;
using c10::DeviceType;
using c10::kCPU;
using c10::kCUDA;
using c10::kFloat;
using c10::kLong;
using at::device;
using at::dtype;

// As in LibTorch, the torch:: factories are distinct functions that wrap the
// at:: ones (they add autograd support).
inline at::Tensor randn(at::IntArrayRef Size, at::TensorOptions Options = {}) {
  return at::randn(Size, Options);
}
inline at::Tensor rand(at::IntArrayRef Size, at::TensorOptions Options = {}) {
  return at::rand(Size, Options);
}
inline at::Tensor randint(int64_t Low, int64_t High, at::IntArrayRef Size,
                          at::TensorOptions Options = {}) {
  return at::randint(Low, High, Size, Options);
}
inline at::Tensor zeros(at::IntArrayRef Size, at::TensorOptions Options = {}) {
  return at::zeros(Size, Options);
}
inline at::Tensor ones(at::IntArrayRef Size, at::TensorOptions Options = {}) {
  return at::ones(Size, Options);
}
inline at::Tensor arange(at::Scalar End, at::TensorOptions Options = {}) {
  return at::arange(End, Options);
}
inline at::Tensor empty(at::IntArrayRef Size, at::TensorOptions Options = {}) {
  return at::empty(Size, Options);
}
inline at::Tensor zeros_like(const at::Tensor &Like,
                             at::TensorOptions Options = {});
namespace detail {
// torch::tensor(2.0) is a 0-dim tensor; torch::tensor({1, 2}) has a dim.
class TensorDataContainer {
public:
  /* implicit */ TensorDataContainer(double Value);
  /* implicit */ TensorDataContainer(float Value);
  /* implicit */ TensorDataContainer(int64_t Value);
  /* implicit */ TensorDataContainer(int Value);
  /* implicit */ TensorDataContainer(
      std::initializer_list<TensorDataContainer> Values);
  /* implicit */ TensorDataContainer(const std::vector<int64_t> &Values);
  /* implicit */ TensorDataContainer(const std::vector<float> &Values);
  template <typename T>
  /* implicit */ TensorDataContainer(const std::initializer_list<T> &Values);
};
} // namespace detail
inline at::Tensor tensor(detail::TensorDataContainer Data,
                         at::TensorOptions Options = {});
inline at::Tensor from_blob(void *Data, at::IntArrayRef Sizes,
                            at::TensorOptions Options = {}) {
  return at::from_blob(Data, Sizes, Options);
}
using at::allclose;
using at::cat;
using at::meshgrid;
using at::equal;
using at::masked_select;
using at::matmul;
using at::mse_loss;
using at::nonzero;
using at::scalar_tensor;
using at::stack;
using at::where;

namespace indexing = at::indexing;

namespace cuda {
bool is_available();
int64_t device_count();
void synchronize(int64_t DeviceIndex = -1);
} // namespace cuda

namespace nn {
class Module {
public:
  virtual ~Module();
  void to(Device D, bool NonBlocking = false);
  Tensor &register_parameter(std::string Name, Tensor T);
  Tensor &register_buffer(std::string Name, Tensor T);
  void train(bool On = true);
  void eval();
  std::vector<Tensor> parameters(bool Recurse = true) const;
};
struct LinearImpl : Module {
  LinearImpl(int64_t In, int64_t Out);
  Tensor forward(const Tensor &Input);
};
template <typename Impl> class ModuleHolder {
public:
  template <typename... Args> ModuleHolder(Args... A);
  Impl *operator->();
  Tensor operator()(const Tensor &Input);
};
using Linear = ModuleHolder<LinearImpl>;
struct CrossEntropyLossImpl : Module {
  CrossEntropyLossImpl();
  Tensor forward(const Tensor &Input, const Tensor &Target);
};
struct CrossEntropyLoss : ModuleHolder<CrossEntropyLossImpl> {
  using ModuleHolder<CrossEntropyLossImpl>::ModuleHolder;
  Tensor operator()(const Tensor &Input, const Tensor &Target);
};

namespace functional {
Tensor mse_loss(const Tensor &Input, const Tensor &Target);
Tensor linear(const Tensor &Input, const Tensor &Weight,
              const Tensor &Bias = {});
struct InterpolateFuncOptions {
  InterpolateFuncOptions &scale_factor(std::vector<double> Factors);
};
Tensor interpolate(const Tensor &Input,
                   const InterpolateFuncOptions &Options = {});
} // namespace functional

namespace utils {
// Returns the total norm, read back with item().
double clip_grad_norm_(std::vector<Tensor> Parameters, double MaxNorm,
                       double NormType = 2.0);
} // namespace utils
} // namespace nn

namespace optim {
class Optimizer {
public:
  // Since LibTorch 2.0 the gradients are set to none by default.
  void zero_grad(bool SetToNone = true);
  void step();
};
struct SGDOptions {
  SGDOptions(double Lr);
  SGDOptions &momentum(double Momentum);
};
// As in LibTorch, each optimizer has its own step(); SGD's is inherited
// here, which is as good for the checks.
class SGD : public Optimizer {
public:
  SGD(std::vector<Tensor> Parameters, double Lr);
  SGD(std::vector<Tensor> Parameters, SGDOptions Options);
};
class Adam : public Optimizer {
public:
  Adam(std::vector<Tensor> Parameters, double Lr);
  void step();
};
} // namespace optim

struct NoGradGuard {
  NoGradGuard();
  ~NoGradGuard();
};
namespace data {
// torch/data/example.h: what a data loader yields, collated on the host.
template <typename Data = at::Tensor, typename Target = at::Tensor>
struct Example {
  Example() = default;
  Example(Data D, Target T) : data(D), target(T) {}
  Data data;
  Target target;
};
template <typename Batch = Example<>> class DataLoader {
public:
  Batch *begin();
  Batch *end();
};
namespace datasets {
// torch/data/datasets/base.h: a dataset the program defines.
template <typename Self, typename SingleExample = Example<>> class Dataset {
public:
  virtual ~Dataset() = default;
  virtual SingleExample get(size_t Index) = 0;
};
} // namespace datasets
} // namespace data
namespace linalg {
// As in torch/linalg.h: wrappers of the at:: functions.
inline at::Tensor inv(const at::Tensor &A) { return at::linalg_inv(A); }
inline std::tuple<at::Tensor, at::Tensor> inv_ex(const at::Tensor &A,
                                                 bool CheckErrors = false) {
  return at::linalg_inv_ex(A, CheckErrors);
}
inline at::Tensor solve(const at::Tensor &A, const at::Tensor &B,
                        bool Left = true) {
  return at::linalg_solve(A, B, Left);
}
} // namespace linalg
using at::inverse;
// As in torch/serialize.h: a module or tensor read from, or written to, a
// file (a loaded module's parameters keep the devices they were saved from).
template <typename Value> void save(const Value &V, const std::string &Path);
template <typename Value> void load(Value &V, const std::string &Path);
} // namespace torch
