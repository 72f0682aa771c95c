//===- JsonValue.h - A small ordered JSON tree and its writer ---*- C++ -*-===//
//
// Part of xfer-tidy. Host-only.
//
//===----------------------------------------------------------------------===//
//
// xfer-bench runs on GPU machines that have a CUDA toolkit but no LLVM, so it
// cannot use llvm::json. This writer keeps object members in insertion order
// (a cost model reads top to bottom like a report) and never writes NaN or
// infinity, which JSON cannot represent: they become null.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_BENCHCORE_JSONVALUE_H
#define XFER_BENCHCORE_JSONVALUE_H

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace xferbench {

class JsonValue {
public:
  enum class Kind { Null, Bool, Integer, Number, String, Array, Object };

  JsonValue() = default; ///< null
  JsonValue(std::nullptr_t) {}
  JsonValue(bool Value) : TheKind(Kind::Bool), BoolValue(Value) {}
  JsonValue(int Value) : TheKind(Kind::Integer), IntegerValue(Value) {}
  JsonValue(unsigned Value) : TheKind(Kind::Integer), IntegerValue(Value) {}
  JsonValue(long Value) : TheKind(Kind::Integer), IntegerValue(Value) {}
  JsonValue(long long Value) : TheKind(Kind::Integer), IntegerValue(Value) {}
  JsonValue(unsigned long Value)
      : TheKind(Kind::Integer), IntegerValue(int64_t(Value)) {}
  JsonValue(unsigned long long Value)
      : TheKind(Kind::Integer), IntegerValue(int64_t(Value)) {}
  JsonValue(double Value) : TheKind(Kind::Number), NumberValue(Value) {}
  JsonValue(const char *Value) : TheKind(Kind::String), StringValue(Value) {}
  JsonValue(std::string Value)
      : TheKind(Kind::String), StringValue(std::move(Value)) {}

  static JsonValue array() { return JsonValue(Kind::Array); }
  static JsonValue object() { return JsonValue(Kind::Object); }

  Kind kind() const { return TheKind; }

  /// Object: sets \p Key, replacing an existing member in place.
  JsonValue &set(const std::string &Key, JsonValue Value);
  /// Array: appends.
  JsonValue &push(JsonValue Value);
  /// Object: the member named \p Key or nullptr.
  const JsonValue *get(const std::string &Key) const;
  size_t size() const;

  /// Pretty-printed text. Arrays and objects whose members are all scalars
  /// and that fit in a line are written on one line, so a table of points
  /// stays readable.
  std::string serialize() const;

  /// Numbers are written with up to \p SignificantDigits digits: xfer-bench
  /// rounds microseconds to nanoseconds, well below any measured spread.
  static std::string formatNumber(double Value, int SignificantDigits = 10);
  static std::string quote(const std::string &Text);

private:
  explicit JsonValue(Kind K) : TheKind(K) {}
  bool isScalar() const {
    return TheKind != Kind::Array && TheKind != Kind::Object;
  }
  void write(std::string &Out, unsigned Indent) const;
  std::string writeInline() const;

  Kind TheKind = Kind::Null;
  bool BoolValue = false;
  int64_t IntegerValue = 0;
  double NumberValue = 0;
  std::string StringValue;
  std::vector<JsonValue> Elements;
  std::vector<std::pair<std::string, JsonValue>> Members;
};

} // namespace xferbench

#endif // XFER_BENCHCORE_JSONVALUE_H
