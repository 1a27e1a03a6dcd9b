// Constant integer bounds by interval arithmetic (TVM's ConstIntBoundAnalyzer): every operator
// maps the intervals of its operands to an interval containing all its results, saturating at
// +-infinity; variables take the ranges bound to them, everything else its type's range.
#include <algorithm>
#include <initializer_list>

#include "AnalyzerState.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Functor.h"

namespace vtac::ir::arith {
namespace {

bool isInf(int64_t v) { return v == IntBound::kPosInf || v == IntBound::kNegInf; }

int64_t saturate(__int128 v) {
  if (v >= __int128(IntBound::kPosInf)) return IntBound::kPosInf;
  if (v <= __int128(IntBound::kNegInf)) return IntBound::kNegInf;
  return int64_t(v);
}

int64_t addBound(int64_t a, int64_t b) {
  if (isInf(a)) return a;
  if (isInf(b)) return b;
  return saturate(__int128(a) + b);
}

int64_t negBound(int64_t a) {
  if (a == IntBound::kPosInf) return IntBound::kNegInf;
  if (a == IntBound::kNegInf) return IntBound::kPosInf;
  return -a;
}

int64_t mulBound(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (isInf(a) || isInf(b)) return (a < 0) != (b < 0) ? IntBound::kNegInf : IntBound::kPosInf;
  return saturate(__int128(a) * b);
}

// a / b rounded down (floor) or toward zero; b is finite and non-zero.
int64_t divBound(int64_t a, int64_t b, bool floor) {
  if (isInf(a)) return (a < 0) != (b < 0) ? IntBound::kNegInf : IntBound::kPosInf;
  if (b == -1) return negBound(a);
  return floor ? floorDivInt(a, b) : a / b;
}

IntBound hull(std::initializer_list<int64_t> values) {
  return {*std::min_element(values.begin(), values.end()), *std::max_element(values.begin(), values.end())};
}

IntBound intersect(IntBound a, IntBound b) { return {std::max(a.min, b.min), std::min(a.max, b.max)}; }
IntBound unite(IntBound a, IntBound b) { return {std::min(a.min, b.min), std::max(a.max, b.max)}; }

IntBound typeBound(DataType t) {
  if (t.isBool()) return {0, 1};
  if (t.isInt() && t.bits() < 64) return {-(int64_t(1) << (t.bits() - 1)), (int64_t(1) << (t.bits() - 1)) - 1};
  if (t.isUInt()) return {0, t.bits() < 64 ? (int64_t(1) << t.bits()) - 1 : IntBound::kPosInf};
  return {IntBound::kNegInf, IntBound::kPosInf};
}

}  // namespace

bool mayLeaveType(NodeKind kind, IntBound a, IntBound b, DataType t) {
  IntBound type = typeBound(t);
  for (__int128 p : {a.min, a.max})
    for (__int128 q : {b.min, b.max}) {
      __int128 v = kind == NodeKind::Add ? p + q : kind == NodeKind::Sub ? p - q : p * q;
      if (v < type.min || v > type.max) return true;
    }
  return false;
}

namespace {

class BoundEvaluator : public ExprFunctor<IntBound> {
public:
  explicit BoundEvaluator(Analyzer::State &state) : state_(state) {}

  IntBound visitExpr(const Expr &e) override {
    return intersect(ExprFunctor<IntBound>::visitExpr(e), typeBound(e->dtype));
  }

  IntBound visitIntImm(const IntImm &op) override {
    // A uint64 constant of 2^63 or more is stored negative; int64 bounds cannot hold it.
    if (op.dtype.isUInt() && op.value < 0) return typeBound(op.dtype);
    return {op.value, op.value};
  }
  IntBound visitVar(const Var &op) override {
    VarRef var(&op);
    if (auto it = state_.varValues.find(var); it != state_.varValues.end()) return visitExpr(it->second);
    if (auto it = state_.varBounds.find(var); it != state_.varBounds.end()) return it->second;
    return typeBound(op.dtype);
  }
  IntBound visitCast(const Cast &op) override {
    IntBound value = typeBound(op.dtype);
    if (!op.value->dtype.isFloat()) value = visitExpr(op.value);
    else if (auto ceilLog2 = ceilLog2Bound(op.value)) value = *ceilLog2;
    IntBound target = typeBound(op.dtype);
    return value.min >= target.min && value.max <= target.max ? value : target;
  }
  IntBound visitBinary(const BinaryExpr &op) override {
    if (BinaryExpr::isComparison(op.kind()) || BinaryExpr::isLogical(op.kind())) return {0, 1};
    IntBound a = visitExpr(op.a), b = visitExpr(op.b);
    bool canWrap = op.kind() == NodeKind::Add || op.kind() == NodeKind::Sub || op.kind() == NodeKind::Mul;
    // vtac's integers wrap: where the exact result can leave the type, any value of it can occur.
    if (canWrap && op.dtype.isIntOrUInt() && mayLeaveType(op.kind(), a, b, op.dtype)) return typeBound(op.dtype);
    switch (op.kind()) {
    case NodeKind::Add: return {addBound(a.min, b.min), addBound(a.max, b.max)};
    case NodeKind::Sub: return {addBound(a.min, negBound(b.max)), addBound(a.max, negBound(b.min))};
    case NodeKind::Mul:
      return hull({mulBound(a.min, b.min), mulBound(a.min, b.max), mulBound(a.max, b.min), mulBound(a.max, b.max)});
    case NodeKind::Div:
    case NodeKind::FloorDiv: return division(a, b, op.kind() == NodeKind::FloorDiv);
    case NodeKind::Mod:
    case NodeKind::FloorMod: return modulo(a, b, op.kind() == NodeKind::FloorMod);
    case NodeKind::Min: return {std::min(a.min, b.min), std::min(a.max, b.max)};
    case NodeKind::Max: return {std::max(a.min, b.min), std::max(a.max, b.max)};
    default: return typeBound(op.dtype);
    }
  }
  IntBound visitNot(const Not &) override { return {0, 1}; }
  IntBound visitSelect(const Select &op) override { return unite(visitExpr(op.trueValue), visitExpr(op.falseValue)); }
  IntBound visitCall(const Call &op) override {
    if (op.op == "tir.if_then_else" && op.args.size() == 3) return unite(visitExpr(op.args[1]), visitExpr(op.args[2]));
    if (op.op == "tir.shift_right" && op.args.size() == 2) {
      auto shift = asConstInt(op.args[1]);
      if (shift && *shift >= 0 && *shift < 62) {
        IntBound a = visitExpr(op.args[0]);
        int64_t d = int64_t(1) << *shift;
        return {divBound(a.min, d, true), divBound(a.max, d, true)};
      }
    }
    if (op.op == "tir.shift_left" && op.args.size() == 2 && op.dtype.isIntOrUInt()) {
      // a * 2^s for a >= 0 and s in [0, bits) (the engines stop on other amounts), where the
      // largest product stays in the type; otherwise it wraps.
      IntBound a = visitExpr(op.args[0]), shift = visitExpr(op.args[1]);
      if (a.min >= 0 && !isInf(a.max) && shift.min >= 0 && shift.max < op.dtype.bits() && shift.max < 62) {
        int64_t largest = saturate(__int128(a.max) << shift.max);
        if (largest <= typeBound(op.dtype).max) return {mulBound(a.min, int64_t(1) << shift.min), largest};
      }
    }
    return typeBound(op.dtype);
  }
  IntBound visitLet(const Let &op) override {
    auto [it, inserted] = state_.varValues.emplace(op.var, op.value);
    IntBound body = visitExpr(op.body);
    if (inserted) state_.varValues.erase(it);
    return body;
  }
  IntBound visitExprDefault(const ExprNode &op) override { return typeBound(op.dtype); }

private:
  // ceil(log2(cast(x, "float64"))) (topi's ceil_log2) of an integer x in [1, 2^32]: each x gives
  // its exact ceil(log2(x)) (ceilLog2), which grows with x.
  std::optional<IntBound> ceilLog2Bound(const Expr &value) {
    const DataType f64 = DataType::floatTy(64);
    const auto *ceil = value.as<Call>();
    const auto *log = ceil && ceil->op == "tir.ceil" && ceil->args.size() == 1 ? ceil->args[0].as<Call>() : nullptr;
    const auto *cast = log && log->op == "tir.log2" && log->args.size() == 1 ? log->args[0].as<Cast>() : nullptr;
    if (!cast || ceil->dtype != f64 || log->dtype != f64 || cast->dtype != f64 || !cast->value->dtype.isIntOrUInt())
      return std::nullopt;
    IntBound x = visitExpr(cast->value);
    if (x.min < 1 || x.max > (int64_t(1) << 32)) return std::nullopt;
    return IntBound{*arith::ceilLog2(double(x.min), f64), *arith::ceilLog2(double(x.max), f64)};
  }

  static IntBound division(IntBound a, IntBound b, bool floor) {
    if (b.min <= 0 && b.max >= 0) return {IntBound::kNegInf, IntBound::kPosInf};
    if (isInf(b.min) || isInf(b.max)) {
      // |b| is at least min(|b.min|, |b.max|) and unbounded above: the quotient lies between
      // a / that and 0 (or -1 when flooring a negative dividend).
      int64_t nearest = b.min > 0 ? b.min : b.max;
      IntBound atNearest = hull({divBound(a.min, nearest, floor), divBound(a.max, nearest, floor)});
      return unite(atNearest, {floor && a.min < 0 ? -1 : 0, 0});
    }
    return hull({divBound(a.min, b.min, floor), divBound(a.min, b.max, floor), divBound(a.max, b.min, floor),
                 divBound(a.max, b.max, floor)});
  }
  static IntBound modulo(IntBound a, IntBound b, bool floor) {
    if (b.min <= 0) return {IntBound::kNegInf, IntBound::kPosInf};
    int64_t largest = b.max == IntBound::kPosInf ? IntBound::kPosInf : b.max - 1;
    if (a.min >= 0) return {0, std::min(a.max, largest)};
    if (floor) return {0, largest};
    if (a.max <= 0) return {std::max(a.min, negBound(largest)), 0};
    return {negBound(largest), largest};
  }

  Analyzer::State &state_;
};

}  // namespace

IntBound Analyzer::constIntBound(const Expr &e) { return BoundEvaluator(*state_).visitExpr(e); }

}  // namespace vtac::ir::arith
