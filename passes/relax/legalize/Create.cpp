// legalize-ops for the creation operators (TVM's legalize_ops/create.py, topi.full and
// topi.arange):
// - R.zeros, R.ones, R.full and their *_like twins: topi.full, block `T_full` (iterators ax0,
//   ax1, ...) over the result's shape storing one value: 0 or 1 of the result's type, a scalar
//   R.const fill value converted to it (a float fill truncated for an integer result, as
//   tir.const does), else the fill value tensor read at `[()]`, cast when its type differs.
//   The *_like operators' tensor is no argument of the prim_func (only its shape is used).
// - R.arange: of constant bounds, the constant numpy.arange gives (a metadata constant); else
//   topi.arange, block `T_arange`, `T_arange[ax0] = ax0 * step + start` (the terms TVM's
//   simplifier drops, `* 1` and `+ 0`, left out).
#include "Legalize.h"

#include <cmath>

#include "vtac/ir/ConstantData.h"
#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::legalize {

namespace relax = ir::relax;
using ir::DataType;
using ir::Expr;

namespace {

// The most elements a constant R.arange is folded into (a larger range would be bytes in the
// module, not a computation).
constexpr int64_t kMaxFoldedArange = int64_t(1) << 24;

// `value` (an IntImm or FloatImm) as a constant of `dtype`, as tir.const(value, dtype) makes
// it; an error at `at` when an integer type cannot hold it.
llvm::Expected<Expr> convertedConstant(const Expr &value, DataType dtype, ir::SourceLoc at) {
  const auto *asFloat = value.as<ir::FloatImm>();
  double number = asFloat ? asFloat->value : double(value.as<ir::IntImm>()->value);
  if (dtype.isFloat()) return ir::floatImm(number, dtype);
  if (dtype.isBool()) return Expr(ir::make<ir::IntImm>(dtype, number != 0));
  double truncated = std::trunc(number);
  bool fits = dtype.isUInt() ? truncated >= 0 && truncated < std::ldexp(1.0, dtype.bits())
                             : truncated >= -std::ldexp(1.0, dtype.bits() - 1) && truncated < std::ldexp(1.0, dtype.bits() - 1);
  if (!std::isfinite(number) || !fits)
    return ir::diagnosticError(at, "legalize-ops: the fill value does not fit in " + dtype.str());
  int64_t integer = asFloat ? int64_t(truncated) : value.as<ir::IntImm>()->value;
  return Expr(ir::make<ir::IntImm>(dtype, integer));
}

llvm::Expected<LegalizedOperator> legalizeArange(const relax::Call &call) {
  const Expr &start = call.args[0].prim, &step = call.args[2].prim;
  DataType dtype = call.outSinfo.dtype;
  const auto *count = (*call.outSinfo.shape)[0].as<ir::IntImm>();
  if (count && start.isa<ir::IntImm>() && call.args[1].prim.isa<ir::IntImm>()) {
    if (count->value > kMaxFoldedArange)
      return ir::diagnosticError(call.outSinfo.loc, "legalize-ops folds a constant R.arange into a constant of at most " +
                                                        std::to_string(kMaxFoldedArange) + " elements; this one has " +
                                                        std::to_string(count->value));
    int64_t from = start.as<ir::IntImm>()->value, by = step.as<ir::IntImm>()->value;
    std::vector<Expr> values;
    for (int64_t i = 0; i < count->value; ++i) {
      Expr element = ir::intImm(from + i * by, DataType::int64());
      llvm::Expected<Expr> converted = convertedConstant(element, dtype, call.outSinfo.loc);
      if (!converted) return converted.takeError();
      values.push_back(*converted);
    }
    llvm::Expected<ir::ConstantDataRef> data = ir::ConstantData::fromLiterals(dtype, values);
    if (!data) return ir::diagnosticError(call.outSinfo.loc, "legalize-ops: R.arange of " + dtype.str() +
                                                                 " is not supported (" + llvm::toString(data.takeError()) + ")");
    auto constant = std::make_shared<relax::Constant>();
    constant->sinfo = call.outSinfo;
    constant->data = std::make_shared<relax::TensorData>(relax::TensorData{dtype, {count->value}, (*data)->bytes()});
    constant->loc = call.outSinfo.loc;
    LegalizedOperator folded;
    folded.constant = constant;
    return folded;
  }
  ComputeBuilder builder;
  // The bounds in the prim_func's sizes (a symbolic one must be a size of the result).
  std::vector<Expr> bounds = builder.shapeOf(relax::TensorStructInfo::known({start, step}, dtype));
  return builder.compute("arange", "T_arange", "ax", call.outSinfo, [&](const ComputeBuilder::Indices &ax) {
    Expr value = ax[0];
    if (!relax::isConstantSize(bounds[1], 1)) value = ir::binary(ir::NodeKind::Mul, value, bounds[1]);
    if (!relax::isConstantSize(bounds[0], 0)) value = ir::binary(ir::NodeKind::Add, value, bounds[0]);
    return value->dtype == dtype ? value : Expr(ir::make<ir::Cast>(dtype, value));
  });
}

}  // namespace

llvm::Expected<LegalizedOperator> legalizeCreate(const relax::Call &call) {
  if (call.callee == "arange") return legalizeArange(call);
  DataType dtype = call.outSinfo.dtype;
  ComputeBuilder builder;
  Expr fill;
  if (call.callee == "zeros" || call.callee == "zeros_like") fill = zeroOf(dtype);
  else if (call.callee == "ones" || call.callee == "ones_like") fill = *convertedConstant(ir::intImm(1, DataType::int64()), dtype, {});
  else if (Expr constant = scalarConstant(call.args[1])) {
    llvm::Expected<Expr> converted = convertedConstant(constant, dtype, call.args[1].loc);
    if (!converted) return converted.takeError();
    fill = *converted;
  } else {
    llvm::Expected<ir::BufferRef> value = builder.input(call.args[1]);
    if (!value) return value.takeError();
    fill = ir::bufferLoad(*value, {});
    if (fill->dtype != dtype) fill = ir::make<ir::Cast>(dtype, fill);
  }
  std::string hint = call.callee.substr(0, call.callee.find("_like"));
  return builder.compute(hint, "T_full", "ax", call.outSinfo, [&](const ComputeBuilder::Indices &) { return fill; });
}

}  // namespace vtac::passes::legalize
