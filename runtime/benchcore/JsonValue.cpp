//===- JsonValue.cpp - A small ordered JSON tree and its writer -----------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "benchcore/JsonValue.h"

#include <cassert>
#include <cmath>
#include <cstdio>

namespace xferbench {

JsonValue &JsonValue::set(const std::string &Key, JsonValue Value) {
  assert(TheKind == Kind::Object && "set() on a non-object");
  for (auto &Member : Members) {
    if (Member.first == Key) {
      Member.second = std::move(Value);
      return Member.second;
    }
  }
  Members.emplace_back(Key, std::move(Value));
  return Members.back().second;
}

JsonValue &JsonValue::push(JsonValue Value) {
  assert(TheKind == Kind::Array && "push() on a non-array");
  Elements.push_back(std::move(Value));
  return Elements.back();
}

const JsonValue *JsonValue::get(const std::string &Key) const {
  for (const auto &Member : Members)
    if (Member.first == Key)
      return &Member.second;
  return nullptr;
}

size_t JsonValue::size() const {
  return TheKind == Kind::Array ? Elements.size() : Members.size();
}

std::string JsonValue::formatNumber(double Value, int SignificantDigits) {
  if (!std::isfinite(Value))
    return "null";
  // Whole numbers print without an exponent or a fraction so that sizes and
  // counts that went through a double stay readable.
  if (std::fabs(Value) < 1e15 && Value == std::floor(Value)) {
    char Buffer[32];
    std::snprintf(Buffer, sizeof(Buffer), "%.0f", Value);
    return Buffer;
  }
  char Buffer[64];
  std::snprintf(Buffer, sizeof(Buffer), "%.*g", SignificantDigits, Value);
  return Buffer;
}

std::string JsonValue::quote(const std::string &Text) {
  std::string Out = "\"";
  for (unsigned char C : Text) {
    switch (C) {
    case '"':
      Out += "\\\"";
      break;
    case '\\':
      Out += "\\\\";
      break;
    case '\n':
      Out += "\\n";
      break;
    case '\r':
      Out += "\\r";
      break;
    case '\t':
      Out += "\\t";
      break;
    default:
      if (C < 0x20) {
        char Buffer[8];
        std::snprintf(Buffer, sizeof(Buffer), "\\u%04x", C);
        Out += Buffer;
      } else {
        Out += char(C); // UTF-8 passes through unchanged.
      }
    }
  }
  Out += '"';
  return Out;
}

std::string JsonValue::writeInline() const {
  switch (TheKind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return BoolValue ? "true" : "false";
  case Kind::Integer:
    return std::to_string(IntegerValue);
  case Kind::Number:
    return formatNumber(NumberValue);
  case Kind::String:
    return quote(StringValue);
  case Kind::Array: {
    std::string Out = "[";
    for (size_t I = 0; I < Elements.size(); ++I)
      Out += (I ? ", " : "") + Elements[I].writeInline();
    return Out + "]";
  }
  case Kind::Object: {
    std::string Out = "{";
    for (size_t I = 0; I < Members.size(); ++I)
      Out += (I ? ", " : "") + quote(Members[I].first) + ": " +
             Members[I].second.writeInline();
    return Out + "}";
  }
  }
  return "null";
}

void JsonValue::write(std::string &Out, unsigned Indent) const {
  constexpr size_t InlineWidth = 160;
  if (isScalar()) {
    Out += writeInline();
    return;
  }
  bool AllScalar = true;
  for (const auto &Element : Elements)
    AllScalar &= Element.isScalar();
  for (const auto &Member : Members)
    AllScalar &= Member.second.isScalar();
  if (AllScalar) {
    std::string Line = writeInline();
    if (Line.size() + Indent <= InlineWidth) {
      Out += Line;
      return;
    }
  }
  const std::string Inner(Indent + 2, ' ');
  const std::string Outer(Indent, ' ');
  if (TheKind == Kind::Array) {
    if (Elements.empty()) {
      Out += "[]";
      return;
    }
    Out += "[\n";
    for (size_t I = 0; I < Elements.size(); ++I) {
      Out += Inner;
      Elements[I].write(Out, Indent + 2);
      Out += I + 1 < Elements.size() ? ",\n" : "\n";
    }
    Out += Outer + "]";
    return;
  }
  if (Members.empty()) {
    Out += "{}";
    return;
  }
  Out += "{\n";
  for (size_t I = 0; I < Members.size(); ++I) {
    Out += Inner + quote(Members[I].first) + ": ";
    Members[I].second.write(Out, Indent + 2);
    Out += I + 1 < Members.size() ? ",\n" : "\n";
  }
  Out += Outer + "}";
}

std::string JsonValue::serialize() const {
  std::string Out;
  write(Out, 0);
  Out += '\n';
  return Out;
}

} // namespace xferbench
