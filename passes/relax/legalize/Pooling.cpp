// legalize-ops for the pools (TVM's legalize_ops/nn.py; topi/nn/pooling.h at the corpus's
// commit), for any layout with H and W (NCHW, NHWC, NCHW16c):
// - R.nn.max_pool2d, R.nn.avg_pool2d: topi::pool2d. The data padded in block `pad_temp` when
//   any padding is not 0 (the tail padded further by stride - 1 with ceil_mode), with the
//   type's lowest value (max) or 0 (avg); then over the window (rv0, rv1) at
//   `ax * stride + rv * dilation` block `pool_max` (T.max from the lowest value), or `pool_sum`
//   then `pool_avg`, the sum divided by the number of elements counted: the window's size
//   clipped to the padded input (count_include_pad) or to the input, at least 1.
// - R.nn.adaptive_avg_pool2d: topi::adaptive_pool, `adaptive_pool_sum` over windows of
//   input / output elements at `ax * (input / output) + rv`, then `adaptive_pool_avg`, the sum
//   times the reciprocal of the window size (as TVM's simplifier leaves a division by a
//   constant). Only output sizes that divide the input's: other windows overlap and vary in
//   size, which a block's reduction cannot express.
// The final blocks carry topi's {"schedule_rule": "meta_schedule.pool_max"} (pool_avg,
// adaptive_pool_avg).
#include "Legalize.h"

#include <tuple>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/ExtremeValue.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::Expr;

namespace {

ir::AttrMap scheduleRule(const std::string &block) {
  ir::AttrMap attrs;
  attrs.set("schedule_rule", "meta_schedule." + block);
  return attrs;
}

// The positions of H and W in the layout.
std::pair<size_t, size_t> spatialAxes(const std::string &layout) {
  std::vector<std::string> axes = *relax::layoutAxes(layout);
  auto at = [&](const char *axis) { return size_t(std::find(axes.begin(), axes.end(), axis) - axes.begin()); };
  return {at("H"), at("W")};
}

// A sum in the order TVM's simplifier leaves it: `a + c - b - d` for terms {+a, -b, -d} and a
// constant c > 0 (`c - b` when nothing is added).
Expr orderedSum(const std::vector<Expr> &added, int64_t constant, const std::vector<Expr> &subtracted) {
  Expr sum;
  auto add = [&](ir::NodeKind kind, const Expr &term) { sum = sum ? ir::binary(kind, sum, term) : term; };
  for (const Expr &term : added) add(ir::NodeKind::Add, term);
  if (constant > 0 || !sum) add(ir::NodeKind::Add, ir::intImm(constant > 0 ? constant : 0, ir::DataType::int64()));
  for (const Expr &term : subtracted) add(ir::NodeKind::Sub, term);
  if (constant < 0) add(ir::NodeKind::Sub, ir::intImm(-constant, ir::DataType::int64()));
  return sum;
}

// The number of elements avg_pool2d divides by along one dimension at output index `ax`
// (topi's pool_impl_nd), in the form TVM's simplifier leaves it for dilation 1.
Expr windowCount(const relax::Pool2DAttrs &attrs, size_t d, const Expr &ax, const Expr &size) {
  int64_t stride = attrs.strides[d], padding = attrs.padding[d], kernel = attrs.poolSize[d], dilation = attrs.dilation[d];
  auto constant = [&](int64_t value) { return ir::intImm(value, ax->dtype); };
  Expr scaled = ir::mulExpr(ax, constant(stride));
  Expr start = ir::subExpr(scaled, constant(padding));
  if (attrs.countIncludePad) {
    // The window clipped to the padded input (without ceil_mode's extra tail).
    Expr last = ir::simplify(ir::addExpr(size, constant(attrs.padding[d + 2] - 1)));
    Expr end = ir::binary(ir::NodeKind::Min, ir::addExpr(start, constant((kernel - 1) * dilation)), last);
    return ir::addExpr(ir::binary(ir::NodeKind::Div, ir::subExpr(end, start), constant(dilation)), constant(1));
  }
  Expr last = ir::simplify(ir::subExpr(size, constant(1)));
  if (dilation == 1) {
    if (padding == 0 && stride == 1)  // min(ax + k - 1, last) - ax with ax moved into the min
      return orderedSum({ir::binary(ir::NodeKind::Min, constant(kernel - 1), orderedSum({last}, 0, {ax}))}, 1,
                        {ir::binary(ir::NodeKind::Max, orderedSum({}, 0, {ax}), constant(0))});
    Expr end = ir::binary(ir::NodeKind::Min, orderedSum({scaled}, kernel - 1 - padding, {}), last);
    Expr skipped = ir::binary(ir::NodeKind::Max, orderedSum({}, padding, {scaled}), constant(0));
    return orderedSum({end}, padding + 1, {skipped, scaled});
  }
  // The steps of the dilated window that fall in the leading padding, then the ones left.
  Expr skipped = ir::binary(ir::NodeKind::Max,
                            ir::binary(ir::NodeKind::Div, ir::subExpr(constant(dilation - 1), start), constant(dilation)),
                            constant(0));
  Expr end = ir::binary(ir::NodeKind::Min, ir::addExpr(start, constant((kernel - 1) * dilation)), last);
  Expr first = ir::addExpr(start, ir::mulExpr(constant(dilation), skipped));
  return ir::addExpr(ir::binary(ir::NodeKind::Div, ir::subExpr(end, first), constant(dilation)), constant(1));
}

llvm::Expected<LegalizedOperator> legalizePool2D(const relax::Call &call, const relax::Pool2DAttrs &attrs) {
  bool max = call.callee == "nn.max_pool2d";
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  ir::DataType dtype = (*data)->dtype;
  if (!max && !dtype.isFloat())
    return ir::diagnosticError(call.args[0].loc, "R.nn.avg_pool2d of " + dtype.str() +
                                                     " is not supported yet (float tensors only)");
  size_t h, w;  // not a structured binding: lambdas capture them (C++17)
  std::tie(h, w) = spatialAxes(attrs.layout);
  size_t spatial[] = {h, w};
  std::vector<int64_t> before((*data)->rank(), 0), after((*data)->rank(), 0);
  bool padded = false;
  for (size_t d = 0; d < 2; ++d) {
    before[spatial[d]] = attrs.padding[d];
    after[spatial[d]] = attrs.padding[d + 2] + (attrs.ceilMode ? attrs.strides[d] - 1 : 0);
    padded = padded || before[spatial[d]] || after[spatial[d]];
  }
  Expr lowest = ir::extremeValue(dtype, false);
  ir::BufferRef source = padded ? builder.pad(*data, before, after, max ? lowest : zeroOf(dtype), false) : *data;
  ComputeBuilder::Reduction reduction{{{ir::intImm(attrs.poolSize[0], ir::DataType::int64()), "rv0"},
                                       {ir::intImm(attrs.poolSize[1], ir::DataType::int64()), "rv1"}},
                                      max ? lowest : zeroOf(dtype),
                                      max ? ir::NodeKind::Max : ir::NodeKind::Add};
  auto window = [&](const ComputeBuilder::Indices &ax, const ComputeBuilder::Indices &rv) {
    std::vector<Expr> indices = ax;
    for (size_t d = 0; d < 2; ++d) {
      const Expr &i = ax[spatial[d]];
      indices[spatial[d]] = ir::addExpr(ir::mulExpr(i, ir::intImm(attrs.strides[d], i->dtype)),
                                        ir::mulExpr(rv[d], ir::intImm(attrs.dilation[d], i->dtype)));
    }
    return ir::bufferLoad(source, indices);
  };
  if (max) return builder.reduce("max_pool2d", "pool_max", "ax", call.outSinfo, reduction, window, scheduleRule("pool_max"));
  llvm::Expected<ir::BufferRef> sum = builder.reduceStage("pool_sum", "ax", call.outSinfo, reduction, window);
  if (!sum) return sum.takeError();
  return builder.compute(
      "avg_pool2d", "pool_avg", "ax", call.outSinfo,
      [&](const ComputeBuilder::Indices &ax) {
        Expr count = ir::binary(ir::NodeKind::Mul, windowCount(attrs, 0, ax[h], (*data)->shape[h]),
                                windowCount(attrs, 1, ax[w], (*data)->shape[w]));
        if (!attrs.countIncludePad) count = ir::binary(ir::NodeKind::Max, count, ir::intImm(1, count->dtype));
        return ir::binary(ir::NodeKind::Div, ir::bufferLoad(*sum, ax), ir::make<ir::Cast>(dtype, count));
      },
      scheduleRule("pool_avg"));
}

llvm::Expected<LegalizedOperator> legalizeAdaptivePool2D(const relax::Call &call, const relax::AdaptivePool2DAttrs &attrs) {
  ComputeBuilder builder;
  llvm::Expected<ir::BufferRef> data = builder.input(call.args[0]);
  if (!data) return data.takeError();
  ir::DataType dtype = (*data)->dtype;
  if (!dtype.isFloat())
    return ir::diagnosticError(call.args[0].loc, "R.nn.adaptive_avg_pool2d of " + dtype.str() +
                                                     " is not supported yet (float tensors only)");
  size_t h, w;
  std::tie(h, w) = spatialAxes(attrs.layout);
  size_t spatial[] = {h, w};
  int64_t ratio[2];
  for (size_t d = 0; d < 2; ++d) {
    const Expr &in = (*data)->shape[spatial[d]], &out = (*call.outSinfo.shape)[spatial[d]];
    const auto *inSize = in.as<ir::IntImm>(), *outSize = out.as<ir::IntImm>();
    if (!attrs.outputSize) ratio[d] = 1;  // the input's size: windows of one element
    else if (inSize && outSize && inSize->value % outSize->value == 0) ratio[d] = inSize->value / outSize->value;
    else
      return ir::diagnosticError(call.calleeLoc, "R.nn.adaptive_avg_pool2d from " + relax::printDim(in) +
                                                     " to " + relax::printDim(out) +
                                                     " is not supported yet (an output size that divides the input's)");
  }
  ComputeBuilder::Reduction reduction{{{ir::intImm(ratio[0], ir::DataType::int64()), "rv0"},
                                       {ir::intImm(ratio[1], ir::DataType::int64()), "rv1"}},
                                      zeroOf(dtype),
                                      ir::NodeKind::Add};
  llvm::Expected<ir::BufferRef> sum = builder.reduceStage(
      "adaptive_pool_sum", "ax", call.outSinfo, reduction,
      [&](const ComputeBuilder::Indices &ax, const ComputeBuilder::Indices &rv) {
        std::vector<Expr> indices = ax;
        for (size_t d = 0; d < 2; ++d)
          indices[spatial[d]] = ir::addExpr(ir::mulExpr(ax[spatial[d]], ir::intImm(ratio[d], ax[spatial[d]]->dtype)), rv[d]);
        return ir::bufferLoad(*data, indices);
      });
  if (!sum) return sum.takeError();
  int64_t count = ratio[0] * ratio[1];
  return builder.compute(
      "adaptive_avg_pool2d", "adaptive_pool_avg", "ax", call.outSinfo,
      [&](const ComputeBuilder::Indices &ax) {
        Expr total = ir::bufferLoad(*sum, ax);
        if (count == 1) return total;
        return ir::binary(ir::NodeKind::Mul, total, ir::floatImm(1.0 / double(count), dtype));
      },
      scheduleRule("adaptive_pool_avg"));
}

}  // namespace

llvm::Expected<LegalizedOperator> legalizePooling(const relax::Call &call) {
  if (const auto *attrs = std::get_if<relax::Pool2DAttrs>(&call.attrs)) return legalizePool2D(call, *attrs);
  return legalizeAdaptivePool2D(call, std::get<relax::AdaptivePool2DAttrs>(call.attrs));
}

}  // namespace vtac::passes::legalize
