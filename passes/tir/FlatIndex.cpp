#include "tir/FlatIndex.h"

#include "vtac/ir/Arith.h"

namespace vtac::passes {

std::vector<ir::Expr> stridesOf(const ir::Buffer &buffer) {
  if (!buffer.strides.empty()) return buffer.strides;
  std::vector<ir::Expr> strides(buffer.rank());
  ir::Expr stride;
  for (size_t k = buffer.rank(); k-- > 0;) {
    strides[k] = stride ? stride : ir::intImm(1, buffer.shape[k]->dtype);
    stride = stride ? stride * buffer.shape[k] : buffer.shape[k];
  }
  return strides;
}

ir::Expr flatIndex(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices) {
  std::vector<ir::Expr> strides = stridesOf(buffer);
  ir::Expr offset;
  for (size_t k = 0; k < indices.size() && k < strides.size(); ++k) {
    ir::Expr term = indices[k] * strides[k];
    offset = offset ? offset + term : term;
  }
  if (buffer.elemOffset) offset = offset ? offset + buffer.elemOffset : buffer.elemOffset;
  if (!offset) return ir::intImm(0);
  return ir::simplify(offset);
}

}  // namespace vtac::passes
