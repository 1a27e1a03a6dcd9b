// The simplifier's traversal: children first, then the rules of the node's operator; the
// branches of if_then_else and select are simplified under their condition (TVM's
// IRMutatorWithAnalyzer; for select, which evaluates both, only where that cannot make the branch
// stop the run), variables bound to values are replaced by them.
#include "Simplifier.h"

#include <cmath>

#include "vtac/ir/Arith.h"
#include "vtac/ir/SideEffect.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::ir::arith {

static bool sameExprs(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

Expr Simplifier::visitVar(const Var &op) {
  VarRef var(&op);
  if (op.dtype.isBool()) {
    if (auto known = matchKnown(var)) return intImm(*known, op.dtype);
  }
  auto it = state_.varValues.find(var);
  return it != state_.varValues.end() ? it->second : Expr(var);
}

Expr Simplifier::visitCast(const Cast &op) {
  Expr value = visitExpr(op.value);
  if (value == op.value && !value.isa<IntImm>() && !value.isa<FloatImm>()) return Expr(&op);
  return castExpr(op.dtype, value, op.loc());
}

Expr Simplifier::visitBinary(const BinaryExpr &op) {
  NodeKind kind = op.kind();
  if (BinaryExpr::isComparison(kind)) return visitComparison(op);
  if (mode_ == Mode::Canonical && isIndexArithmetic(op)) return visitIndexArithmetic(op);
  Expr a = visitExpr(op.a), b = visitExpr(op.b);
  if (kind == NodeKind::Min || kind == NodeKind::Max) return rewriteMinMax(op, a, b);
  if (kind == NodeKind::And || kind == NodeKind::Or) {
    Expr rebuilt = a == op.a && b == op.b ? Expr(&op) : makeBinary(kind, a, b, op.loc());
    if (!rebuilt.isa<BinaryExpr>() || rebuilt->kind() != kind) return rebuilt;
    if (auto known = matchKnown(rebuilt)) return intImm(*known, op.dtype);
    return kind == NodeKind::And ? rewriteAnd(rebuilt) : rewriteOr(rebuilt);
  }
  return rewriteArith(op, a, b);
}

Expr Simplifier::visitNot(const Not &op) {
  Expr a = visitExpr(op.a);
  Expr rebuilt = a == op.a ? Expr(&op) : notExpr(a, op.loc());
  if (!rebuilt.isa<Not>()) return rebuilt;
  if (auto known = matchKnown(rebuilt)) return intImm(*known, op.dtype);
  return rewriteNot(rebuilt);
}

// Whether evaluating `e` may stop the run: the engines check loads against their buffer, integer
// divisions by zero, shift amounts and float-to-integer casts.
static bool mayStop(const Expr &e) {
  bool found = false;
  preOrderVisit(e, [&](const Node &n) {
    if (const auto *load = n.as<BufferLoad>())
      for (const Expr &i : load->indices) found |= !asConstInt(i);
    if (const auto *bin = n.as<BinaryExpr>()) {
      NodeKind k = bin->kind();
      bool divides = k == NodeKind::Div || k == NodeKind::Mod || k == NodeKind::FloorDiv || k == NodeKind::FloorMod;
      auto divisor = asConstInt(bin->b);
      found |= divides && bin->b->dtype.isIntOrUInt() && (!divisor || *divisor == 0);
    }
    if (const auto *call = n.as<Call>(); call && (call->op == "tir.shift_right" || call->op == "tir.shift_left"))
      found |= call->args.size() != 2 || !asConstInt(call->args[1]);
    if (const auto *cast = n.as<Cast>()) found |= cast->value->dtype.isFloat() && !cast->dtype.isFloat();
  });
  return found;
}

// Select evaluates both branches (TVM's codegen too), so a branch simplified under its condition
// also runs where the condition is false. A rewrite that holds only under the condition (in the
// branch of `x < x`, `if_then_else(x >= x, 0, y >> x)` becomes `y >> x`) must then not bring in
// anything that can stop the run there: such a branch is simplified without the condition.
Expr Simplifier::visitSelectBranch(const Expr &value, const Expr &assumed) {
  Expr constrained;
  {
    Analyzer::ConstraintScope scope(analyzer_, assumed);
    constrained = visitExpr(value);
  }
  return constrained == value || !mayStop(constrained) ? constrained : visitExpr(value);
}

Expr Simplifier::visitSelect(const Select &op) {
  Expr condition = visitExpr(op.condition);
  if (auto c = asConstInt(condition)) return visitExpr(*c ? op.trueValue : op.falseValue);
  Expr trueValue = visitSelectBranch(op.trueValue, condition);
  Expr falseValue = visitSelectBranch(op.falseValue, notExpr(condition));
  if (structuralEqual(trueValue, falseValue)) return trueValue;
  if (condition == op.condition && trueValue == op.trueValue && falseValue == op.falseValue) return Expr(&op);
  return make<Select>(condition, trueValue, falseValue, op.loc());
}

Expr Simplifier::visitBufferLoad(const BufferLoad &op) {
  std::vector<Expr> indices;
  for (const Expr &i : op.indices) indices.push_back(visitExpr(i));
  if (sameExprs(indices, op.indices)) return Expr(&op);
  return make<BufferLoad>(op.buffer, std::move(indices), op.loc());
}

Expr Simplifier::visitCall(const Call &op) {
  if (op.op == "tir.if_then_else" && op.args.size() == 3) {
    Expr condition = visitExpr(op.args[0]);
    if (auto c = asConstInt(condition)) return visitExpr(op.args[*c ? 1 : 2]);
    // A branch that repeats the condition knows its value (TVM's nested if elimination): no
    // store runs within an expression, so only a call with side effects can change it.
    Expr thenArg = op.args[1], elseArg = op.args[2];
    if (sideEffect(op.args[0]) != SideEffect::Opaque) {
      thenArg = replaceSubexpression(thenArg, op.args[0], intImm(1, op.args[0]->dtype));
      elseArg = replaceSubexpression(elseArg, op.args[0], intImm(0, op.args[0]->dtype));
    }
    Expr thenValue, elseValue;
    {
      Analyzer::ConstraintScope scope(analyzer_, condition);
      thenValue = visitExpr(thenArg);
    }
    {
      Analyzer::ConstraintScope scope(analyzer_, notExpr(condition));
      elseValue = visitExpr(elseArg);
    }
    std::vector<Expr> args{condition, thenValue, elseValue};
    if (sameExprs(args, op.args)) return Expr(&op);
    return make<Call>(op.dtype, op.op, std::move(args), op.loc());
  }
  std::vector<Expr> args;
  for (const Expr &a : op.args) args.push_back(visitExpr(a));
  if (op.op == "tir.likely" && args.size() == 1) {
    if (asConstInt(args[0])) return args[0];
    if (auto known = matchKnown(args[0])) return intImm(*known, args[0]->dtype);
  }
  if ((op.op == "tir.shift_right" || op.op == "tir.shift_left") && args.size() == 2) {
    // In the dtype's width, as the engines shift: unsigned right shifts are logical (a uint64
    // literal holds its bits in int64), left shifts wrap. An amount outside [0, bits) is left
    // for the engines' run-time check.
    auto x = asConstInt(args[0]), s = asConstInt(args[1]);
    if (x && s && *s >= 0 && *s < op.dtype.bits() && op.dtype.isIntOrUInt() && !op.dtype.isBool()) {
      int64_t v = op.op == "tir.shift_left" ? int64_t(uint64_t(*x) << *s)
                  : op.dtype.isUInt()       ? int64_t(uint64_t(*x) >> *s)
                                            : (*x >> *s);
      return castExpr(op.dtype, intImm(v, DataType::int64()));
    }
  }
  if (op.op == "tir.ceil" && args.size() == 1 && op.dtype.isFloat() && op.dtype.isScalar()) {
    // ceil of a constant (exact), and ceil(log2(constant)) (topi's ceil_log2) where every
    // engine's rounding of log2 gives the same integer (TVM folds both).
    if (const auto *f = args[0].as<FloatImm>(); f && std::isfinite(f->value))
      return make<FloatImm>(op.dtype, std::ceil(f->value), op.loc());
    const auto *log = args[0].as<Call>();
    const auto *x = log && log->op == "tir.log2" && log->args.size() == 1 ? log->args[0].as<FloatImm>() : nullptr;
    if (x && log->dtype == op.dtype)
      if (auto c = ceilLog2(x->value, op.dtype)) return make<FloatImm>(op.dtype, double(*c), op.loc());
  }
  if (sameExprs(args, op.args)) return Expr(&op);
  return make<Call>(op.dtype, op.op, std::move(args), op.loc());
}

Expr Simplifier::visitLet(const Let &op) {
  Expr value = visitExpr(op.value);
  if (value.isa<IntImm>() || value.isa<FloatImm>() || value.isa<Var>()) {
    // Trivial bindings are inlined (TVM's CanInlineLet).
    state_.varValues[op.var] = value;
    Expr body = visitExpr(op.body);
    state_.varValues.erase(op.var);
    return body;
  }
  Expr body = visitExpr(op.body);
  if (value == op.value && body == op.body) return Expr(&op);
  return make<Let>(op.var, value, body, op.loc());
}

Expr Simplifier::visitRamp(const Ramp &op) {
  Expr base = visitExpr(op.base), stride = visitExpr(op.stride);
  if (base == op.base && stride == op.stride) return Expr(&op);
  return make<Ramp>(base, stride, op.lanes, op.loc());
}

Expr Simplifier::visitBroadcast(const Broadcast &op) {
  Expr value = visitExpr(op.value);
  if (value == op.value) return Expr(&op);
  return make<Broadcast>(value, op.lanes, op.loc());
}

}  // namespace vtac::ir::arith
