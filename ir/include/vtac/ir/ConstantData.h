// The contents of a `T.allocate_const`: its elements in row-major order as the raw
// little-endian bytes of the allocation's dtype, as TVM's AllocateConst holds an NDArray.
// fromLiterals() builds it from the literals of the text (integers for int/uint/bool, any
// number for float16/32/64) and rejects a literal the dtype cannot hold; element() gives one
// element back as a literal for the printer. Shared and immutable: copying the Allocate that
// owns it never copies the data.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "llvm/Support/Error.h"
#include "vtac/ir/DataType.h"
#include "vtac/ir/Expr.h"

namespace vtac::ir {

class ConstantData {
public:
  static llvm::Expected<std::shared_ptr<const ConstantData>> fromLiterals(DataType dtype,
                                                                          const std::vector<Expr> &literals);
  DataType dtype() const { return dtype_; }
  size_t size() const { return bytes_.size() / dtype_.bytes(); }
  const std::vector<uint8_t> &bytes() const { return bytes_; }
  // Element i as an IntImm or FloatImm of dtype().
  Expr element(size_t i) const;

private:
  ConstantData(DataType dtype, std::vector<uint8_t> bytes) : dtype_(dtype), bytes_(std::move(bytes)) {}
  DataType dtype_;
  std::vector<uint8_t> bytes_;
};

using ConstantDataRef = std::shared_ptr<const ConstantData>;

}  // namespace vtac::ir
