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

std::vector<std::pair<size_t, size_t>> axisGroups(const ir::Buffer &buffer) {
  std::vector<std::pair<size_t, size_t>> groups;
  size_t begin = 0;
  for (int64_t separator : buffer.axisSeparators) {
    groups.push_back({begin, size_t(separator)});
    begin = size_t(separator);
  }
  groups.push_back({begin, buffer.rank()});
  return groups;
}

std::vector<ir::Expr> groupedFlatIndices(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices) {
  if (buffer.axisSeparators.empty()) return {flatIndex(buffer, indices)};
  std::vector<ir::Expr> result;
  for (auto [begin, end] : axisGroups(buffer)) {
    ir::Expr offset, stride;
    for (size_t k = end; k-- > begin;) {
      ir::Expr step = !buffer.strides.empty() ? buffer.strides[k] : stride ? stride : ir::intImm(1, buffer.shape[k]->dtype);
      ir::Expr term = indices[k] * step;
      offset = offset ? term + offset : term;
      stride = stride ? stride * buffer.shape[k] : buffer.shape[k];
    }
    result.push_back(offset ? ir::simplify(offset) : ir::intImm(0));
  }
  return result;
}

}  // namespace vtac::passes
