#include "vtac/backend/Tensor.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include <llvm/ADT/STLExtras.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/raw_ostream.h>

#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/Float16.h"
#include "vtac/backend/RunErrors.h"

namespace vtac::backend {

using ir::DataType;

namespace {

template <class T> T loadAs(const uint8_t *bytes, int64_t index) {
  T value;
  std::memcpy(&value, bytes + index * int64_t(sizeof(T)), sizeof(T));
  return value;
}

template <class T> void storeAs(uint8_t *bytes, int64_t index, T value) {
  std::memcpy(bytes + index * int64_t(sizeof(T)), &value, sizeof(T));
}

}  // namespace

bool isSupportedTensorType(DataType dtype) {
  if (!dtype.isScalar()) return false;
  switch (dtype.code()) {
  case DataType::Code::Int:
  case DataType::Code::UInt:
    return dtype.bits() == 8 || dtype.bits() == 16 || dtype.bits() == 32 || dtype.bits() == 64;
  case DataType::Code::Float:
    return dtype.bits() == 16 || dtype.bits() == 32 || dtype.bits() == 64;
  case DataType::Code::Bool:
    return true;
  case DataType::Code::Handle:
    return false;
  }
  return false;
}

Tensor::Tensor(DataType dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {
  assert(isSupportedTensorType(dtype));
  bytes_.assign(size_t(numElements()) * size_t(dtype.bytes()), 0);
}

Tensor::Tensor(DataType dtype, std::vector<int64_t> shape, llvm::ArrayRef<uint8_t> bytes)
    : dtype_(dtype), shape_(std::move(shape)), bytes_(bytes.begin(), bytes.end()) {
  assert(isSupportedTensorType(dtype) && bytes_.size() == size_t(numElements()) * size_t(dtype.bytes()));
}

int64_t Tensor::numElements() const {
  // A zero extent anywhere makes the tensor empty, however large the product of the extents
  // before it would grow (shapes are checked to fit memory only up to that zero).
  if (std::find(shape_.begin(), shape_.end(), 0) != shape_.end()) return 0;
  int64_t count = 1;
  for (int64_t extent : shape_) count *= extent;
  return count;
}

int64_t Tensor::intAt(int64_t index) const {
  const uint8_t *bytes = bytes_.data();
  switch (dtype_.code()) {
  case DataType::Code::Bool:
    return bytes[index] != 0;
  case DataType::Code::Int:
    switch (dtype_.bits()) {
    case 8: return loadAs<int8_t>(bytes, index);
    case 16: return loadAs<int16_t>(bytes, index);
    case 32: return loadAs<int32_t>(bytes, index);
    default: return loadAs<int64_t>(bytes, index);
    }
  case DataType::Code::UInt:
    switch (dtype_.bits()) {
    case 8: return loadAs<uint8_t>(bytes, index);
    case 16: return loadAs<uint16_t>(bytes, index);
    case 32: return loadAs<uint32_t>(bytes, index);
    default: return int64_t(loadAs<uint64_t>(bytes, index));
    }
  default:
    return int64_t(doubleAt(index));
  }
}

double Tensor::doubleAt(int64_t index) const {
  const uint8_t *bytes = bytes_.data();
  if (dtype_.isFloat()) {
    switch (dtype_.bits()) {
    case 16: return halfToFloat(loadAs<uint16_t>(bytes, index));
    case 32: return loadAs<float>(bytes, index);
    default: return loadAs<double>(bytes, index);
    }
  }
  if (dtype_.isUInt() && dtype_.bits() == 64) return double(loadAs<uint64_t>(bytes, index));
  return double(intAt(index));
}

void Tensor::setInt(int64_t index, int64_t value) {
  uint8_t *bytes = bytes_.data();
  if (dtype_.isFloat()) return setDouble(index, double(value));
  if (dtype_.isBool()) {
    bytes[index] = value != 0;
    return;
  }
  // Little-endian hosts only (as the .npy files): the low bytes are the wrapped value.
  std::memcpy(bytes + index * dtype_.bytes(), &value, size_t(dtype_.bytes()));
}

void Tensor::setDouble(int64_t index, double value) {
  uint8_t *bytes = bytes_.data();
  if (!dtype_.isFloat()) return setInt(index, int64_t(value));
  switch (dtype_.bits()) {
  case 16: storeAs<uint16_t>(bytes, index, doubleToHalf(value)); break;
  case 32: storeAs<float>(bytes, index, float(value)); break;
  default: storeAs<double>(bytes, index, value); break;
  }
}

llvm::Expected<int64_t> checkedByteSize(llvm::ArrayRef<int64_t> shape, int64_t elementBytes) {
  int64_t bytes = elementBytes;
  bool overflow = false;
  for (int64_t extent : shape) {
    if (extent < 0) return diagnosticError("negative extent " + llvm::Twine(extent));
    overflow |= __builtin_mul_overflow(bytes, extent, &bytes);
  }
  // A zero extent makes any product empty, even one that overflowed on the way.
  if (llvm::is_contained(shape, 0)) return 0;
  if (overflow || bytes > kMaxTensorBytes)
    return diagnosticError(tensorTooLargeMessage(formatShape(shape), bytes, overflow));
  return bytes;
}

std::vector<int64_t> Tensor::unflatten(int64_t index) const {
  std::vector<int64_t> result(shape_.size());
  for (size_t d = shape_.size(); d-- > 0;) {
    result[d] = shape_[d] ? index % shape_[d] : 0;
    index = shape_[d] ? index / shape_[d] : 0;
  }
  return result;
}

std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

std::string formatIndex(llvm::ArrayRef<int64_t> index) {
  std::string text = "[";
  for (size_t i = 0; i < index.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(index[i]);
  }
  return text + "]";
}

std::string formatElement(const Tensor &tensor, int64_t index) {
  std::string text;
  llvm::raw_string_ostream os(text);
  DataType dtype = tensor.dtype();
  if (dtype.isFloat())
    os << llvm::format(dtype.bits() == 64 ? "%.17g" : "%.9g", tensor.doubleAt(index));
  else if (dtype.isUInt() && dtype.bits() == 64)
    os << uint64_t(tensor.intAt(index));
  else
    os << tensor.intAt(index);
  return os.str();
}

}  // namespace vtac::backend
