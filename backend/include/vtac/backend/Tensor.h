// A dense host tensor: element type, shape and C-order (row-major) little-endian bytes.
//
// This is what `vtac run` moves between .npy files, the random input generator, the
// interpreter's parameters and the output comparison. Elements are stored in their natural
// width (bool as one byte holding 0 or 1, float16 as its 16-bit pattern); the accessors read
// and write any element as a 64-bit integer or a double so generic code needs no type switch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/Error.h>

#include "vtac/ir/DataType.h"

namespace vtac::backend {

class Tensor {
public:
  Tensor() = default;
  // A zero-filled tensor. `dtype` must be a scalar int/uint/float/bool type.
  Tensor(ir::DataType dtype, std::vector<int64_t> shape);
  // A tensor holding a copy of `bytes`, which must be exactly its size.
  Tensor(ir::DataType dtype, std::vector<int64_t> shape, llvm::ArrayRef<uint8_t> bytes);

  ir::DataType dtype() const { return dtype_; }
  llvm::ArrayRef<int64_t> shape() const { return shape_; }
  int64_t numElements() const;
  size_t byteSize() const { return bytes_.size(); }
  uint8_t *data() { return bytes_.data(); }
  const uint8_t *data() const { return bytes_.data(); }
  // The bytes, moved out (a model's weights need not be copied to become graph constants).
  std::vector<uint8_t> takeBytes() && { return std::move(bytes_); }

  // Element `index` (flat, C order) as an integer: signed types sign-extend, unsigned and bool
  // zero-extend, floats truncate toward zero.
  int64_t intAt(int64_t index) const;
  // Element `index` as a double (exact for every supported type except 64-bit integers).
  double doubleAt(int64_t index) const;
  // Stores `value` wrapped to the element width (two's complement), or rounded for floats.
  void setInt(int64_t index, int64_t value);
  void setDouble(int64_t index, double value);

  // C-order multi-index of flat element `index`.
  std::vector<int64_t> unflatten(int64_t index) const;

private:
  ir::DataType dtype_;
  std::vector<int64_t> shape_;
  std::vector<uint8_t> bytes_;
};

// "(1, 16, 14)" — the shape as NumPy prints it ("(5,)" for one dimension, "()" for a scalar).
std::string formatShape(llvm::ArrayRef<int64_t> shape);
// "[0, 3, 2]".
std::string formatIndex(llvm::ArrayRef<int64_t> index);
// Element `index` as text: integers in decimal, floats with enough digits to round-trip.
std::string formatElement(const Tensor &tensor, int64_t index);

// True for the element types a Tensor (and so a .npy file) can hold.
bool isSupportedTensorType(ir::DataType dtype);

// The largest tensor or buffer vtac allocates: a mistyped extent (or a .npy header claiming a
// huge shape) must be an error, not an out-of-memory kill or an allocation that never ends.
constexpr int64_t kMaxTensorBytes = int64_t(4) << 30;  // 4 GiB

// The bytes both engines allocate for a buffer of `bytes` (host memory, or a VTA device buffer):
// rounded up to 64 and 64 more, never zero, so every buffer has its own valid address, and
// the VTA runtime sees the same buffer sizes (in its errors too) whatever the engine.
constexpr int64_t paddedAllocationBytes(int64_t bytes) { return (bytes + 63) / 64 * 64 + 64; }

// Bytes of `shape` elements of `elementBytes` each; an error (without location) when an extent
// is negative, the product overflows 64 bits or it exceeds kMaxTensorBytes.
llvm::Expected<int64_t> checkedByteSize(llvm::ArrayRef<int64_t> shape, int64_t elementBytes);

}  // namespace vtac::backend
