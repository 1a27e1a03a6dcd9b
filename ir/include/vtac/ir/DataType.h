// Scalar and vector element types of the IR: a type code, a bit width and a lane count.
//
// Spelled as TVMScript spells them: "int8".."int64", "uint8".."uint64", "float16/32/64",
// "bool", "handle", with an "xN" suffix for vectors ("float32x4"). A void type (lanes 0)
// stands for "no value", e.g. the return type of a prim_func that returns nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <llvm/ADT/StringRef.h>

namespace vtac::ir {

class DataType {
public:
  enum class Code : uint8_t { Int, UInt, Float, Bool, Handle };

  constexpr DataType() = default;  // void
  constexpr DataType(Code code, uint8_t bits, uint16_t lanes = 1)
      : code_(code), bits_(bits), lanes_(lanes) {}

  static constexpr DataType intTy(int bits, int lanes = 1) { return {Code::Int, uint8_t(bits), uint16_t(lanes)}; }
  static constexpr DataType uintTy(int bits, int lanes = 1) { return {Code::UInt, uint8_t(bits), uint16_t(lanes)}; }
  static constexpr DataType floatTy(int bits, int lanes = 1) { return {Code::Float, uint8_t(bits), uint16_t(lanes)}; }
  static constexpr DataType boolTy(int lanes = 1) { return {Code::Bool, 1, uint16_t(lanes)}; }
  static constexpr DataType handle() { return {Code::Handle, 64, 1}; }
  static constexpr DataType int32() { return intTy(32); }
  static constexpr DataType int64() { return intTy(64); }
  static constexpr DataType float32() { return floatTy(32); }
  static constexpr DataType voidTy() { return DataType(); }

  Code code() const { return code_; }
  int bits() const { return bits_; }
  int lanes() const { return lanes_; }
  int bytes() const { return (bits_ * lanes_ + 7) / 8; }

  bool isVoid() const { return lanes_ == 0; }
  bool isInt() const { return !isVoid() && code_ == Code::Int; }
  bool isUInt() const { return !isVoid() && code_ == Code::UInt; }
  bool isIntOrUInt() const { return isInt() || isUInt(); }
  bool isFloat() const { return !isVoid() && code_ == Code::Float; }
  bool isBool() const { return !isVoid() && code_ == Code::Bool; }
  bool isHandle() const { return !isVoid() && code_ == Code::Handle; }
  bool isScalar() const { return lanes_ == 1; }
  bool isVector() const { return lanes_ > 1; }

  DataType withLanes(int lanes) const { return {code_, bits_, uint16_t(lanes)}; }
  DataType elementType() const { return withLanes(1); }

  // "int32", "float32x4", "bool", "handle", "void".
  std::string str() const;
  // Inverse of str(); nullopt for anything else (also accepts "void").
  static std::optional<DataType> parse(llvm::StringRef text);

  friend bool operator==(DataType a, DataType b) {
    return a.code_ == b.code_ && a.bits_ == b.bits_ && a.lanes_ == b.lanes_;
  }
  friend bool operator!=(DataType a, DataType b) { return !(a == b); }

private:
  Code code_ = Code::Int;
  uint8_t bits_ = 0;
  uint16_t lanes_ = 0;
};

}  // namespace vtac::ir
