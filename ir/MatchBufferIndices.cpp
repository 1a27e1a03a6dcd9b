#include "vtac/ir/MatchBufferIndices.h"

#include "vtac/ir/Arith.h"

namespace vtac::ir {

std::vector<Expr> matchBufferSourceIndices(const BufferRegion &source, const std::vector<Expr> &indices) {
  size_t dropped = source.region.size() - indices.size();
  std::vector<Expr> result;
  result.reserve(source.region.size());
  for (size_t i = 0; i < source.region.size(); ++i)
    result.push_back(i < dropped ? source.region[i].min : source.region[i].min + indices[i - dropped]);
  return result;
}

}  // namespace vtac::ir
