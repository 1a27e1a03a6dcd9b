#include "tir/BufferLayout.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes {

std::vector<ir::Expr> allocationShape(const ir::Buffer &buffer) {
  std::vector<ir::Expr> shape = buffer.shape;
  for (size_t i = 1; i < buffer.strides.size() && i < shape.size(); ++i) {
    // A constant inner stride divides the outer one term by term (72 * n / 72 is n).
    const ir::Expr &outer = buffer.strides[i - 1], &inner = buffer.strides[i];
    auto constant = ir::asConstInt(inner);
    std::optional<ir::Expr> quotient = constant && *constant != 0 ? ir::divideExactly(outer, *constant) : std::nullopt;
    shape[i] = ir::simplify(quotient ? *quotient : ir::makeBinary(ir::NodeKind::Div, outer, inner));
  }
  return shape;
}

namespace {

// The entry's four integers, or nullopt for anything else (storage_align writes only these).
std::optional<std::vector<int64_t>> alignEntry(const ir::AttrValue &entry) {
  if (!entry.isArray() || entry.asArray().size() != 4) return std::nullopt;
  std::vector<int64_t> fields;
  for (const ir::AttrValue &field : entry.asArray()) {
    if (!field.isInt()) return std::nullopt;
    fields.push_back(field.asInt());
  }
  return fields;
}

void collect(const ir::AttrMap &annotations, const std::vector<ir::BufferRegion> *writes, const ir::Var *allocated,
             StorageAlignments &result) {
  const ir::AttrValue *aligns = annotations.find("buffer_dim_align");
  if (!aligns || !aligns->isArray()) return;
  for (const ir::AttrValue &entry : aligns->asArray()) {
    auto fields = alignEntry(entry);
    if (!fields || (*fields)[2] <= 0) continue;
    int64_t index = (*fields)[0];
    const ir::Var *data = allocated;
    if (writes) data = index >= 0 && size_t(index) < writes->size() ? (*writes)[index].buffer->data.get() : nullptr;
    if (data) result[data].push_back({(*fields)[1], (*fields)[2], (*fields)[3]});
  }
}

}  // namespace

StorageAlignments collectStorageAlignments(const ir::Stmt &body) {
  StorageAlignments result;
  ir::preOrderVisit(body, [&](const ir::Node &node) {
    if (const auto *block = node.as<ir::Block>()) collect(block->annotations, &block->writes, nullptr, result);
    if (const auto *alloc = node.as<ir::Allocate>())
      collect(alloc->annotations, nullptr, alloc->bufferVar.get(), result);
  });
  return result;
}

std::vector<ir::Expr> alignedStrides(const std::vector<DimAlignment> &aligns, const std::vector<ir::Expr> &shape) {
  if (aligns.empty() || shape.empty()) return {};
  std::vector<ir::Expr> strides(shape.size());
  ir::Expr stride = ir::intImm(1, shape[0]->dtype);
  for (size_t dim = shape.size(); dim-- > 0;) {
    const DimAlignment *align = nullptr;  // a later request for the axis replaces an earlier one
    for (const DimAlignment &candidate : aligns)
      if (candidate.axis == int64_t(dim)) align = &candidate;
    if (align) {
      ir::Expr factor = ir::intImm(align->factor, stride->dtype), offset = ir::intImm(align->offset, stride->dtype);
      stride = stride + ir::floorModExpr(factor + offset - ir::floorModExpr(stride, factor), factor);
    }
    strides[dim] = ir::simplify(stride);
    stride = strides[dim] * shape[dim];
  }
  return strides;
}

ir::AttrValue allocationAlignAnnotation(const std::vector<DimAlignment> &aligns) {
  ir::AttrValue::Array entries;
  for (const DimAlignment &align : aligns)
    entries.push_back(ir::AttrValue(ir::AttrValue::Array{ir::AttrValue(int64_t(-1)), ir::AttrValue(align.axis),
                                                         ir::AttrValue(align.factor), ir::AttrValue(align.offset)}));
  return ir::AttrValue(std::move(entries));
}

}  // namespace vtac::passes
