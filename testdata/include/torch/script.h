// Stub of the TorchScript API the tests use: c10::IValue, its tuples and
// torch::jit::Module, with the real names and shapes.
#pragma once
#include <torch/torch.h>
#include <memory>
#include <string>
#include <vector>

namespace c10 {
struct IValue;
namespace ivalue {
struct Tuple {
  const std::vector<IValue> &elements() const;
};
} // namespace ivalue
struct IValue {
  IValue(const at::Tensor &T);
  at::Tensor toTensor() const;
  std::shared_ptr<ivalue::Tuple> toTuple() const;
};
} // namespace c10

namespace torch {
namespace jit {
using c10::IValue;
struct Module {
  c10::IValue forward(std::vector<c10::IValue> Inputs);
  void to(at::Device D);
};
Module load(const std::string &Path);
namespace script {
using Module = ::torch::jit::Module;
} // namespace script
} // namespace jit
} // namespace torch
