// legalize-ops for the manipulation operators (TVM's legalize_ops/manipulate.py,
// topi/transform.h):
// - R.permute_dims: topi.transpose, `T_transpose[ax] = x[ax permuted back]` in block
//   `T_transpose` with iterators ax0, ax1, ...: dimension i of the result is dimension axes[i]
//   of the operand, so the operand's index at axes[i] is the result's iterator i.
// - R.reshape: topi.reshape, block `T_reshape`: the result's iterators flattened in its shape
//   (`ax0 * 3 + ax1`; a size 1 adds the next iterator alone), then unravelled in the operand's,
//   in the form TVM's simplifier leaves it: `flat % 24 // 12` for a dimension of size 2 and
//   stride 12 (`flat // 12 % 2`), `flat % 4` for the last, 0 for a size 1; a term of the
//   flat index that is a constant multiple of the modulus is dropped (`(ax1 + ax2) % 3` for
//   `(ax0 * 3 + ax1 + ax2) % 3`).
// - R.flatten: topi.reshape to the result's one dimension (as R.reshape).
// - R.expand_dims: block `expand_dims` (iterators i0, i1, ...), the operand at the iterators of
//   the dimensions that are not new; R.squeeze: topi.squeeze, block `T_squeeze`, the operand
//   at 0 along the removed dimensions.
// - R.concat: topi.concatenate, block `T_concat`: along the axis, the last tensor where the
//   iterator is at least its offset (the sizes before it added up), else the one before, ...:
//   `T.if_then_else(5 <= ax1, x3[.., ax1 - 5, ..], T.if_then_else(2 <= ax1, x2[..], x1[..]))`.
// - R.broadcast_to: topi.broadcast_to, block `T_broadcast_to`, the operand at 0 along the
//   dimensions it broadcasts.
// - R.split: topi.split, one block per piece (see legalizeSplit), a prim_func of several
//   outputs called by R.call_tir with `out_sinfo=[...]`.
// - R.tile: topi.tile, block `T_tile`: the operand at each of its dimensions' iterator modulo
//   its size (`x[ax1 % 3, ax2 % 2]`, the result's leading dimensions beyond the operand's
//   rank unread), 0 when the result is empty.
#include "Legalize.h"

#include <algorithm>

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::Expr;

namespace {

// `sum % modulus` without the terms of `sum` (a chain of additions) that are multiples of the
// constant modulus (`t * c` with c a multiple of it), as TVM's canonical simplifier drops them.
Expr modulo(const Expr &sum, int64_t modulus) {
  std::vector<Expr> terms;
  Expr rest = sum;
  for (; rest->kind() == ir::NodeKind::Add; rest = static_cast<const ir::BinaryExpr &>(*rest).a)
    terms.push_back(static_cast<const ir::BinaryExpr &>(*rest).b);
  terms.push_back(rest);
  Expr kept;
  for (size_t i = terms.size(); i-- > 0;) {
    const Expr &term = terms[i];
    const auto *factor = term->kind() == ir::NodeKind::Mul ? static_cast<const ir::BinaryExpr &>(*term).b.as<ir::IntImm>()
                                                           : nullptr;
    if (factor && modulus != 0 && factor->value % modulus == 0) continue;
    kept = kept ? ir::binary(ir::NodeKind::Add, kept, term) : term;
  }
  ir::DataType dtype = sum->dtype;
  if (!kept) return ir::make<ir::IntImm>(dtype, 0);
  return ir::binary(ir::NodeKind::FloorMod, kept, ir::make<ir::IntImm>(dtype, modulus));
}

// topi's UnravelIndex of `flat` in `shape`, simplified as TVM's index simplification leaves it
// (see above): a run of constant sizes divides by their product, `flat // s % n` becomes
// `flat % (s * n) // s`; a symbolic size divides as written.
std::vector<Expr> unravel(Expr flat, const std::vector<Expr> &shape) {
  ir::DataType dtype = flat->dtype;
  auto constant = [&](int64_t value) { return ir::make<ir::IntImm>(dtype, value); };
  std::vector<Expr> indices(shape.size());
  Expr base = flat;    // the index so far is base // stride
  int64_t stride = 1;  // constant part of the divisor not yet applied
  for (size_t i = shape.size(); i-- > 0;) {
    const auto *size = shape[i].as<ir::IntImm>();
    if (size && size->value == 1) {
      indices[i] = constant(0);
      continue;
    }
    if (size) {
      Expr wrapped = modulo(base, stride * size->value);
      indices[i] = stride == 1 ? wrapped : ir::binary(ir::NodeKind::FloorDiv, wrapped, constant(stride));
      stride *= size->value;
      continue;
    }
    Expr divided = stride == 1 ? base : ir::binary(ir::NodeKind::FloorDiv, base, constant(stride));
    indices[i] = ir::binary(ir::NodeKind::FloorMod, divided, shape[i]);
    base = ir::binary(ir::NodeKind::FloorDiv, divided, shape[i]);
    stride = 1;
  }
  return indices;
}

Expr multiplyFactors(Expr value, const Expr &size) {
  if (size->kind() == ir::NodeKind::Mul) {
    const auto &product = static_cast<const ir::BinaryExpr &>(*size);
    return multiplyFactors(multiplyFactors(std::move(value), product.a), product.b);
  }
  return ir::binary(ir::NodeKind::Mul, std::move(value), size);
}

}  // namespace

std::vector<Expr> reshapeIndices(const std::vector<Expr> &ax, const std::vector<Expr> &to, const std::vector<Expr> &from) {
  // topi's RavelIndex: ((ax0 * n1 + ax1) * n2 + ax2) ...; a product size multiplies factor by
  // factor (`ax0 * b * 2` for a size `b * 2`), as TVM's simplifier reassociates it, and a size
  // 1 not at all (TVM's operators fold x * 1).
  Expr flat = ax.empty() ? ir::make<ir::IntImm>(ir::DataType::int64(), 0) : ax[0];
  for (size_t i = 1; i < ax.size(); ++i)
    flat = ir::binary(ir::NodeKind::Add, relax::isConstantSize(to[i], 1) ? flat : multiplyFactors(flat, to[i]), ax[i]);
  return unravel(flat, from);
}

namespace {

llvm::Expected<LegalizedOperator> legalizeReshape(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  std::vector<Expr> target = builder.shapeOf(call.outSinfo);
  // topi's reshape of an empty tensor fills with 0 (there is no element to read, nor a size
  // to divide by).
  auto empty = [](const std::vector<Expr> &shape) {
    return std::any_of(shape.begin(), shape.end(), [](const Expr &dim) { return relax::isConstantSize(dim, 0); });
  };
  bool noElements = empty(target) || empty((*data)->shape);
  return builder.compute("reshape", "T_reshape", "ax", call.outSinfo, [&](const ComputeBuilder::Indices &ax) -> Expr {
    if (noElements) return zeroOf((*data)->dtype);
    return ir::bufferLoad(*data, reshapeIndices(ax, target, (*data)->shape));
  });
}

llvm::Expected<LegalizedOperator> legalizeConcat(const relax::Call &call) {
  ComputeBuilder builder;
  std::vector<ir::BufferRef> tensors;
  for (const relax::Arg &arg : call.args) {
    llvm::Expected<ir::BufferRef> tensor = builder.input(arg);
    if (!tensor) return tensor.takeError();
    tensors.push_back(*tensor);
  }
  // The reader checked the axis against the tensors' rank.
  int64_t rank = int64_t(tensors.front()->rank()), axis = call.axes->front();
  size_t along = size_t(axis < 0 ? axis + rank : axis);
  std::vector<Expr> offsets{nullptr};  // of each tensor along the axis; none for the first
  for (size_t i = 1; i < tensors.size(); ++i) {
    const Expr &size = tensors[i - 1]->shape[along];
    const Expr &before = offsets.back();
    const auto *sum = before ? before.as<ir::IntImm>() : nullptr, *add = size.as<ir::IntImm>();
    offsets.push_back(!before ? size
                      : sum && add ? ir::make<ir::IntImm>(size->dtype, sum->value + add->value)
                                   : ir::binary(ir::NodeKind::Add, before, size));
  }
  return builder.compute("concatenate", "T_concat", "ax", call.outSinfo, [&](const ComputeBuilder::Indices &ax) {
    auto load = [&](size_t i) {
      std::vector<Expr> indices = ax;
      if (offsets[i]) indices[along] = ir::binary(ir::NodeKind::Sub, ax[along], offsets[i]);
      return ir::bufferLoad(tensors[i], indices);
    };
    Expr value = load(0);
    for (size_t i = 1; i < tensors.size(); ++i) {
      Expr reached = ir::binary(ir::NodeKind::LE, offsets[i], ax[along]);
      value = ir::make<ir::Call>(value->dtype, "tir.if_then_else", std::vector<Expr>{reached, load(i), value});
    }
    return value;
  });
}

// TVM's te_expand_dims: block `expand_dims` (iterators i0, i1, ...), the operand read at the
// result's iterators of the dimensions that are not new.
llvm::Expected<LegalizedOperator> legalizeExpandDims(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  // The reader checked the axes against the result's rank.
  std::vector<bool> added = *relax::reducedDimensions(call.axes, int((*data)->rank() + call.axes->size()));
  return builder.compute("expand_dims", "expand_dims", "i", call.outSinfo, [&](const ComputeBuilder::Indices &i) {
    std::vector<Expr> indices;
    for (size_t d = 0; d < added.size(); ++d)
      if (!added[d]) indices.push_back(i[d]);
    return ir::bufferLoad(*data, indices);
  });
}

// topi.squeeze: block `T_squeeze`, the operand read at 0 along the removed dimensions. A
// removed dimension of symbolic size is refused: it is 1 only if the program says so.
llvm::Expected<LegalizedOperator> legalizeSqueeze(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  const std::vector<Expr> &shape = (*data)->shape;
  std::vector<bool> removed(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) removed[d] = relax::isConstantSize(shape[d], 1);
  if (call.axes) {
    // The reader checked the axes against the operand's rank.
    removed = *relax::reducedDimensions(call.axes, int(shape.size()));
    for (size_t d = 0; d < shape.size(); ++d)
      if (removed[d] && !shape[d].isa<ir::IntImm>())
        return ir::diagnosticError(call.args[0].loc, "legalize-ops: R.squeeze removes dimension " + std::to_string(d) +
                                                         " of symbolic size " + relax::printDim(shape[d]) +
                                                         ", which may not be 1 (R.match_cast it to 1 first)");
  }
  return builder.compute("squeeze", "T_squeeze", "ax", call.outSinfo, [&](const ComputeBuilder::Indices &ax) {
    std::vector<Expr> indices;
    size_t next = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      indices.push_back(removed[d] ? Expr(ir::make<ir::IntImm>(shape[d]->dtype, 0)) : ax[next++]);
    return ir::bufferLoad(*data, indices);
  });
}

// topi.broadcast_to: block `T_broadcast_to` over the target shape, the operand read as topi's
// broadcast indexes it (0 along its dimensions of size 1 the target widens).
llvm::Expected<LegalizedOperator> legalizeBroadcastTo(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  std::vector<Expr> target = builder.shapeOf(call.outSinfo);
  return builder.compute("broadcast_to", "T_broadcast_to", "ax", call.outSinfo, [&](const ComputeBuilder::Indices &ax) {
    return ir::bufferLoad(*data, broadcastIndices(ax, (*data)->shape, target));
  });
}

// topi.split: one block per piece (`T_split_sections` for a number of sections, `T_split` for
// indices; then `_1`, `_2`, ... as TVM's create_prim_func deduplicates them), piece i the
// operand at `ax + begin_i` along the axis. Only what topi computes as the struct info says is
// legalized: sections that divide a constant axis (TVM leaves the others), indices increasing
// from above 0 to at most the axis's constant size.
llvm::Expected<LegalizedOperator> legalizeSplit(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  int64_t rank = int64_t((*data)->rank()), axis = call.axes->front();
  size_t along = size_t(axis < 0 ? axis + rank : axis);  // the reader checked the axis
  const auto *size = (*data)->shape[along].as<ir::IntImm>();
  const auto &indicesOrSections = std::get<relax::SplitAttrs>(call.attrs).indicesOrSections;
  const auto *indices = std::get_if<std::vector<int64_t>>(&indicesOrSections);
  std::string dimension = "dimension " + std::to_string(along) + " of " + relax::printStructInfo(call.args[0].sinfo());
  if (!size)
    return ir::diagnosticError(call.calleeLoc, "legalize-ops: R.split of " + dimension +
                                                   ", of symbolic size, is not supported yet (TVM passes the size as tir_vars)");
  std::vector<int64_t> begins{0};
  if (indices) {
    for (int64_t index : *indices) {
      if (index <= begins.back() || index > size->value)
        return ir::diagnosticError(call.calleeLoc, "legalize-ops: R.split needs indices increasing from above 0 to at most " +
                                                       std::to_string(size->value) + " (the size of " + dimension +
                                                       "), as topi's split computes them");
      begins.push_back(index);
    }
  } else {
    int64_t sections = std::get<int64_t>(indicesOrSections);
    if (size->value % sections != 0)
      return ir::diagnosticError(call.calleeLoc, "legalize-ops: R.split into " + std::to_string(sections) +
                                                     " sections of " + dimension + ", which they do not divide, is "
                                                     "left alone by TVM's LegalizeOps and not supported");
    for (int64_t i = 1; i < sections; ++i) begins.push_back(i * (size->value / sections));
  }
  std::string block = indices ? "T_split" : "T_split_sections";
  std::vector<std::string> blocks;
  for (size_t i = 0; i < begins.size(); ++i) blocks.push_back(i ? block + "_" + std::to_string(i) : block);
  return builder.computeEach("split", blocks, "ax", call.outputs(), [&](size_t piece, const ComputeBuilder::Indices &ax) {
    std::vector<Expr> at = ax;
    if (begins[piece]) at[along] = ir::binary(ir::NodeKind::Add, ax[along], ir::make<ir::IntImm>(ax[along]->dtype, begins[piece]));
    return ir::bufferLoad(*data, at);
  });
}

llvm::Expected<LegalizedOperator> legalizeTile(const relax::Call &call) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  const std::vector<Expr> &shape = (*data)->shape;
  bool empty = call.outSinfo.shape && std::any_of(call.outSinfo.shape->begin(), call.outSinfo.shape->end(),
                                                  [](const Expr &dim) { return relax::isConstantSize(dim, 0); });
  return builder.compute("tile", "T_tile", "ax", call.outSinfo, [&](const ComputeBuilder::Indices &ax) -> Expr {
    if (empty) return zeroOf((*data)->dtype);
    std::vector<Expr> indices;
    for (size_t d = 0; d < shape.size(); ++d)
      indices.push_back(ir::binary(ir::NodeKind::FloorMod, ax[ax.size() - shape.size() + d], shape[d]));
    return ir::bufferLoad(*data, indices);
  });
}

}  // namespace

llvm::Expected<LegalizedOperator> legalizeManipulate(const relax::Call &call) {
  switch (relax::lookupOperator(call.callee)->family) {
  // R.flatten is topi.reshape to its one dimension.
  case relax::OperatorFamily::Reshape:
  case relax::OperatorFamily::Flatten: return legalizeReshape(call);
  case relax::OperatorFamily::Concat: return legalizeConcat(call);
  case relax::OperatorFamily::ExpandDims: return legalizeExpandDims(call);
  case relax::OperatorFamily::Squeeze: return legalizeSqueeze(call);
  case relax::OperatorFamily::BroadcastTo: return legalizeBroadcastTo(call);
  case relax::OperatorFamily::Split: return legalizeSplit(call);
  case relax::OperatorFamily::Tile: return legalizeTile(call);
  default: break;
  }
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  // The reader checked the axes against the operand's rank.
  std::vector<int64_t> axes = *relax::normalizedAxes(call.axes, int((*data)->rank()));
  return builder.compute("transpose", "T_transpose", "ax", call.outSinfo, [&](const ComputeBuilder::Indices &ax) {
    std::vector<Expr> indices(axes.size());
    for (size_t i = 0; i < axes.size(); ++i) indices[size_t(axes[i])] = ax[i];
    return ir::bufferLoad(*data, indices);
  });
}

}  // namespace vtac::passes::legalize
