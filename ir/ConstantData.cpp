#include "vtac/ir/ConstantData.h"

#include <cstring>

#include <llvm/ADT/APFloat.h>


namespace vtac::ir {

namespace {

template <class T> void append(std::vector<uint8_t> &bytes, T value) {
  uint8_t raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  bytes.insert(bytes.end(), raw, raw + sizeof(T));
}

template <class T> T read(const std::vector<uint8_t> &bytes, size_t i) {
  T value;
  std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
  return value;
}

bool fitsInteger(DataType dtype, int64_t value) {
  if (dtype.isBool()) return value == 0 || value == 1;
  if (dtype.bits() == 64) return dtype.isInt() || value >= 0;
  if (dtype.isUInt()) return value >= 0 && value < (int64_t(1) << dtype.bits());
  int64_t bound = int64_t(1) << (dtype.bits() - 1);
  return value >= -bound && value < bound;
}

void appendInteger(std::vector<uint8_t> &bytes, DataType dtype, int64_t value) {
  switch (dtype.bytes()) {
  case 1: append(bytes, uint8_t(value)); return;
  case 2: append(bytes, uint16_t(value)); return;
  case 4: append(bytes, uint32_t(value)); return;
  default: append(bytes, uint64_t(value)); return;
  }
}

int64_t readInteger(const std::vector<uint8_t> &bytes, DataType dtype, size_t i) {
  bool isSigned = dtype.isInt();
  switch (dtype.bytes()) {
  case 1: return isSigned ? int64_t(read<int8_t>(bytes, i)) : int64_t(read<uint8_t>(bytes, i));
  case 2: return isSigned ? int64_t(read<int16_t>(bytes, i)) : int64_t(read<uint16_t>(bytes, i));
  case 4: return isSigned ? int64_t(read<int32_t>(bytes, i)) : int64_t(read<uint32_t>(bytes, i));
  default: return int64_t(read<uint64_t>(bytes, i));
  }
}

// float16 as IEEE half bits, rounded once from the literal's double to nearest even (what
// numpy's astype and the backends' doubleToHalf do).
uint16_t toHalf(double value) {
  llvm::APFloat half(value);
  bool losesInfo = false;
  half.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return uint16_t(half.bitcastToAPInt().getZExtValue());
}

double fromHalf(uint16_t bits) {
  llvm::APFloat value(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits));
  bool losesInfo = false;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return value.convertToDouble();
}

llvm::Error unsupported(DataType dtype) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "T.allocate_const does not support dtype '" + dtype.str() +
                                     "' (int, uint and bool of 8 to 64 bits, float16, float32 and float64 are)");
}

}  // namespace

llvm::Expected<ConstantDataRef> ConstantData::fromLiterals(DataType dtype, const std::vector<Expr> &literals) {
  bool integral = dtype.isIntOrUInt() || dtype.isBool();
  bool supported = dtype.isScalar() && ((integral && dtype.bits() >= 8 && dtype.bits() <= 64) || dtype.isBool() ||
                                        (dtype.isFloat() && (dtype.bits() == 16 || dtype.bits() == 32 || dtype.bits() == 64)));
  if (!supported) return unsupported(dtype);
  std::vector<uint8_t> bytes;
  bytes.reserve(literals.size() * dtype.bytes());
  for (size_t i = 0; i < literals.size(); ++i) {
    const auto *intLiteral = literals[i].as<IntImm>();
    const auto *floatLiteral = literals[i].as<FloatImm>();
    auto bad = [&](const std::string &what) {
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "element " + std::to_string(i) + " of T.allocate_const " + what);
    };
    if (integral) {
      if (!intLiteral) return bad("must be an integer literal for dtype '" + dtype.str() + "'");
      if (!fitsInteger(dtype, intLiteral->value))
        return bad("(" + std::to_string(intLiteral->value) + ") does not fit in '" + dtype.str() + "'");
      appendInteger(bytes, dtype, intLiteral->value);
      continue;
    }
    if (!intLiteral && !floatLiteral) return bad("must be a number literal");
    double value = floatLiteral ? floatLiteral->value : double(intLiteral->value);
    if (dtype.bits() == 16) append(bytes, toHalf(value));
    else if (dtype.bits() == 32) append(bytes, float(value));
    else append(bytes, value);
  }
  return ConstantDataRef(new ConstantData(dtype, std::move(bytes)));
}

Expr ConstantData::element(size_t i) const {
  if (dtype_.isFloat() && dtype_.bits() == 16) return make<FloatImm>(dtype_, fromHalf(read<uint16_t>(bytes_, i)));
  if (dtype_.isFloat())
    return make<FloatImm>(dtype_, dtype_.bits() == 32 ? double(read<float>(bytes_, i)) : read<double>(bytes_, i));
  return make<IntImm>(dtype_, readInteger(bytes_, dtype_, i));
}

}  // namespace vtac::ir
