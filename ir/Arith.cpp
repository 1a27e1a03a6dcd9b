// TVM's operator semantics (type matching, constant folding) and the linear simplifier.
#include "vtac/ir/Arith.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <llvm/ADT/APFloat.h>

#include "LinearForm.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Visitor.h"

namespace vtac::ir {

std::optional<int64_t> asConstInt(const Expr &e) {
  if (const auto *imm = e.as<IntImm>()) return imm->value;
  return std::nullopt;
}

std::optional<ScaledVar> asScaledVar(const Expr &e) {
  const Expr *term = &e;
  int64_t offset = 0;
  while (const auto *sum = term->as<BinaryExpr>()) {
    std::optional<int64_t> c = asConstInt(sum->b);
    bool adds = sum->kind() == NodeKind::Add, subtracts = sum->kind() == NodeKind::Sub;
    if (!c || !(adds || subtracts) || *c == std::numeric_limits<int64_t>::min() ||
        __builtin_add_overflow(offset, adds ? *c : -*c, &offset))
      break;
    term = &sum->a;
  }
  if (const auto *var = term->as<Var>()) return ScaledVar{var, 1, offset};
  const auto *mul = term->as<BinaryExpr>();
  std::optional<int64_t> scale = mul && mul->kind() == NodeKind::Mul ? asConstInt(mul->b) : std::nullopt;
  const auto *var = mul ? mul->a.as<Var>() : nullptr;
  if (!var || !scale || *scale <= 0) return std::nullopt;
  return ScaledVar{var, *scale, offset};
}

bool isConstInt(const Expr &e, int64_t value) {
  auto v = asConstInt(e);
  return v && *v == value;
}

static std::optional<double> asConstFloat(const Expr &e) {
  if (const auto *imm = e.as<FloatImm>()) return imm->value;
  return std::nullopt;
}

// Wraps an int64 result into the value range of dtype (two's complement), as the hardware
// integer of that width would hold it.
static int64_t wrapToType(int64_t value, DataType dtype) {
  int bits = dtype.bits();
  if (dtype.isBool()) return value != 0;
  if (bits >= 64) return value;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = uint64_t(value) & mask;
  if (dtype.isInt() && (u >> (bits - 1)) & 1) u |= ~mask;
  return int64_t(u);
}

static Expr literalLike(DataType dtype, int64_t value) { return intImm(wrapToType(value, dtype), dtype); }

bool fitsIntType(int64_t value, DataType dtype) { return wrapToType(value, dtype) == value; }

// 128 bits hold every exact result of one operation on two int64 values, INT64_MIN / -1
// included, so nothing here overflows or traps.
__extension__ typedef __int128 WideInt;

static std::optional<WideInt> wideIntArith(NodeKind kind, int64_t x, int64_t y) {
  WideInt a = x, b = y;
  switch (kind) {
  case NodeKind::Add: return a + b;
  case NodeKind::Sub: return a - b;
  case NodeKind::Mul: return a * b;
  case NodeKind::Min: return std::min(a, b);
  case NodeKind::Max: return std::max(a, b);
  case NodeKind::Div:
  case NodeKind::Mod:
  case NodeKind::FloorDiv:
  case NodeKind::FloorMod: {
    if (y == 0) return std::nullopt;
    WideInt quotient = a / b, remainder = a % b;
    bool floors = kind == NodeKind::FloorDiv || kind == NodeKind::FloorMod;
    if (floors && remainder != 0 && ((remainder < 0) != (b < 0))) {
      quotient -= 1;
      remainder += b;
    }
    return kind == NodeKind::Div || kind == NodeKind::FloorDiv ? quotient : remainder;
  }
  default: return std::nullopt;
  }
}

std::optional<int64_t> exactIntArith(NodeKind kind, int64_t x, int64_t y) {
  std::optional<WideInt> result = wideIntArith(kind, x, y);
  if (!result || *result < std::numeric_limits<int64_t>::min() ||
      *result > std::numeric_limits<int64_t>::max())
    return std::nullopt;
  return int64_t(*result);
}

template <class T> static Expr foldComparison(NodeKind kind, T x, T y, DataType boolTy) {
  switch (kind) {
  case NodeKind::EQ: return intImm(x == y, boolTy);
  case NodeKind::NE: return intImm(x != y, boolTy);
  case NodeKind::LT: return intImm(x < y, boolTy);
  case NodeKind::LE: return intImm(x <= y, boolTy);
  case NodeKind::GT: return intImm(x > y, boolTy);
  case NodeKind::GE: return intImm(x >= y, boolTy);
  default: return nullptr;
  }
}

// uint64 literals hold their bits in int64: order, min, max and division are unsigned.
static Expr foldBothUInt64(NodeKind kind, DataType dtype, uint64_t x, uint64_t y) {
  DataType boolTy = DataType::boolTy(dtype.lanes());
  switch (kind) {
  case NodeKind::Add: return intImm(int64_t(x + y), dtype);
  case NodeKind::Sub: return intImm(int64_t(x - y), dtype);
  case NodeKind::Mul: return intImm(int64_t(x * y), dtype);
  case NodeKind::Min: return intImm(int64_t(std::min(x, y)), dtype);
  case NodeKind::Max: return intImm(int64_t(std::max(x, y)), dtype);
  case NodeKind::Div: case NodeKind::FloorDiv: return y ? intImm(int64_t(x / y), dtype) : Expr();
  case NodeKind::Mod: case NodeKind::FloorMod: return y ? intImm(int64_t(x % y), dtype) : Expr();
  case NodeKind::And: return intImm(x && y, boolTy);
  case NodeKind::Or: return intImm(x || y, boolTy);
  default: return foldComparison(kind, x, y, boolTy);
  }
}

static Expr foldBothInts(NodeKind kind, DataType dtype, int64_t x, int64_t y) {
  if (dtype.isUInt() && dtype.bits() == 64) return foldBothUInt64(kind, dtype, uint64_t(x), uint64_t(y));
  DataType boolTy = DataType::boolTy(dtype.lanes());
  switch (kind) {
  case NodeKind::Add: case NodeKind::Sub: case NodeKind::Mul: case NodeKind::Min:
  case NodeKind::Max: case NodeKind::Div: case NodeKind::Mod: case NodeKind::FloorDiv:
  case NodeKind::FloorMod: {
    // Wraps to the dtype's width, as the target's integer arithmetic does.
    std::optional<WideInt> result = wideIntArith(kind, x, y);
    return result ? literalLike(dtype, int64_t(uint64_t(*result))) : Expr();
  }
  case NodeKind::And: return intImm(x && y, boolTy);
  case NodeKind::Or: return intImm(x || y, boolTy);
  default: return foldComparison(kind, x, y, boolTy);
  }
}

// `value` rounded to the float dtype's precision (to nearest, ties to even; infinity past its
// largest value), as a float16 or float32 literal or result is on the target.
static double roundToFloatType(double value, DataType dtype) {
  if (dtype.bits() >= 64) return value;
  llvm::APFloat rounded(value);
  bool losesInfo = false;
  rounded.convert(dtype.bits() == 16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::IEEEsingle(),
                  llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  rounded.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return rounded.convertToDouble();
}

// An integer converted to the float dtype, rounded once (to nearest, ties to even) as the
// engines' sitofp/uitofp do.
static double intToFloatType(int64_t value, bool isUnsigned, DataType dtype) {
  llvm::APFloat converted(dtype.bits() == 16   ? llvm::APFloat::IEEEhalf()
                          : dtype.bits() == 32 ? llvm::APFloat::IEEEsingle()
                                               : llvm::APFloat::IEEEdouble());
  converted.convertFromAPInt(llvm::APInt(64, uint64_t(value), !isUnsigned), !isUnsigned,
                             llvm::APFloat::rmNearestTiesToEven);
  bool losesInfo = false;
  converted.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return converted.convertToDouble();
}

// Folds in the dtype's own precision, as the engines compute (TVM folds float32 in float):
// operands rounded to it, the exact double result of one + - * / of such values rounded once
// more, which gives the dtype's own operation's result. Min and max are TVM's LLVM codegen's
// select(x < y, x, y) and select(x > y, x, y): with a NaN, y.
static Expr foldBothFloats(NodeKind kind, DataType dtype, double x, double y) {
  x = roundToFloatType(x, dtype);
  y = roundToFloatType(y, dtype);
  auto result = [&](double value) { return floatImm(roundToFloatType(value, dtype), dtype); };
  switch (kind) {
  case NodeKind::Add: return result(x + y);
  case NodeKind::Sub: return result(x - y);
  case NodeKind::Mul: return result(x * y);
  case NodeKind::Div: return y == 0 ? Expr() : result(x / y);
  case NodeKind::Min: return result(x < y ? x : y);
  case NodeKind::Max: return result(x > y ? x : y);
  default: return foldComparison(kind, x, y, DataType::boolTy(dtype.lanes()));
  }
}

static bool isLiteralValue(const Expr &e, double value) {
  if (auto i = asConstInt(e)) return double(*i) == value;
  if (auto f = asConstFloat(e)) return *f == value;
  return false;
}

Expr tryConstFold(NodeKind kind, const Expr &a, const Expr &b) {
  auto ia = asConstInt(a), ib = asConstInt(b);
  if (ia && ib) return foldBothInts(kind, a->dtype, *ia, *ib);
  auto fa = asConstFloat(a), fb = asConstFloat(b);
  if (fa && fb) return foldBothFloats(kind, a->dtype, *fa, *fb);
  // Identities with one literal side (TVM's TryConstFold), for floats only those that hold for
  // every value: x + -0.0 and x - 0.0 are x, but x + 0.0 is 0.0 at x = -0.0, and x * 0.0 is
  // NaN at x = NaN or inf (TVM folds both, the engines do not).
  if (a->dtype.isFloat()) {
    auto negativeZero = [](std::optional<double> f) { return f && *f == 0 && std::signbit(*f); };
    auto positiveZero = [](std::optional<double> f) { return f && *f == 0 && !std::signbit(*f); };
    switch (kind) {
    case NodeKind::Add:
      if (negativeZero(fa)) return b;
      if (negativeZero(fb)) return a;
      return nullptr;
    case NodeKind::Sub: return positiveZero(fb) ? a : nullptr;
    case NodeKind::Mul:
      if (isLiteralValue(a, 1)) return b;
      if (isLiteralValue(b, 1)) return a;
      return nullptr;
    case NodeKind::Div: return isLiteralValue(b, 1) ? a : nullptr;
    default: return nullptr;
    }
  }
  switch (kind) {
  case NodeKind::Add:
    if (isLiteralValue(a, 0)) return b;
    if (isLiteralValue(b, 0)) return a;
    return nullptr;
  case NodeKind::Sub:
    return isLiteralValue(b, 0) ? a : nullptr;
  case NodeKind::Mul:
    if (isLiteralValue(a, 1)) return b;
    if (isLiteralValue(a, 0)) return a;
    if (isLiteralValue(b, 1)) return a;
    if (isLiteralValue(b, 0)) return b;
    return nullptr;
  case NodeKind::Div:
  case NodeKind::FloorDiv:
    if (ia && *ia == 0) return a;
    if (isLiteralValue(b, 1)) return a;
    return nullptr;
  case NodeKind::Mod:
  case NodeKind::FloorMod:
    if (ia && *ia == 0) return a;
    if (ib && *ib == 1) return literalLike(a->dtype, 0);
    return nullptr;
  case NodeKind::And:
    if (ia) return *ia ? b : a;
    if (ib) return *ib ? a : b;
    return nullptr;
  case NodeKind::Or:
    if (ia) return *ia ? a : b;
    if (ib) return *ib ? b : a;
    return nullptr;
  default:
    return nullptr;
  }
}

Expr castExpr(DataType dtype, Expr value, SourceLoc loc) {
  if (value->dtype == dtype) return value;
  if (auto i = asConstInt(value)) {
    // Rounded once, to the target's precision (a uint64 literal holds its bits in int64).
    if (dtype.isFloat()) return make<FloatImm>(dtype, intToFloatType(*i, value->dtype.isUInt(), dtype), loc);
    if (dtype.isScalar()) return make<IntImm>(dtype, wrapToType(*i, dtype), loc);
  }
  if (auto f = asConstFloat(value)) {
    if (dtype.isFloat()) return make<FloatImm>(dtype, roundToFloatType(*f, dtype), loc);
    // A value the integer type cannot hold (NaN, infinities, out of range) stays a Cast: the
    // engines stop there with their float-to-int error.
    if (dtype.isScalar() && dtype.isBool()) {
      bool convertible = *f >= -9223372036854775808.0 && *f < 9223372036854775808.0;
      if (convertible) return make<IntImm>(dtype, wrapToType(int64_t(*f), dtype), loc);
    } else if (dtype.isScalar() && dtype.isIntOrUInt()) {
      double whole = std::trunc(*f);
      double low = dtype.isUInt() ? 0.0 : -std::ldexp(1.0, dtype.bits() - 1);
      double end = std::ldexp(1.0, dtype.isUInt() ? dtype.bits() : dtype.bits() - 1);
      if (whole >= low && whole < end) {
        int64_t bits = whole >= 9223372036854775808.0 ? int64_t(uint64_t(whole)) : int64_t(whole);
        return make<IntImm>(dtype, bits, loc);
      }
    }
  }
  if (value->dtype.isScalar() && dtype.isVector())
    return make<Broadcast>(castExpr(dtype.elementType(), std::move(value), loc), dtype.lanes(), loc);
  return make<Cast>(dtype, std::move(value), loc);
}

void matchBinaryTypes(Expr &a, Expr &b) {
  DataType ta = a->dtype, tb = b->dtype;
  if (ta == tb) return;
  if (ta.lanes() != tb.lanes()) {
    if (ta.isScalar()) a = make<Broadcast>(a, tb.lanes(), a->loc());
    else if (tb.isScalar()) b = make<Broadcast>(b, ta.lanes(), b->loc());
    ta = a->dtype;
    tb = b->dtype;
    if (ta == tb) return;
  }
  if (!ta.isFloat() && tb.isFloat()) {
    a = castExpr(tb, a);
  } else if (ta.isFloat() && !tb.isFloat()) {
    b = castExpr(ta, b);
  } else if (ta.code() == tb.code()) {
    // Same kind of number, different widths: widen the narrower one.
    if (ta.bits() < tb.bits()) a = castExpr(tb, a);
    else b = castExpr(ta, b);
  } else if (ta.isIntOrUInt() && tb.isIntOrUInt()) {
    // Signed with unsigned: the wider wins; at equal width unsigned wins.
    if (ta.bits() < tb.bits()) a = castExpr(tb, a);
    else if (ta.bits() > tb.bits()) b = castExpr(ta, b);
    else if (ta.isUInt()) b = castExpr(ta, b);
    else a = castExpr(tb, a);
  } else if (ta.isBool() && tb.isIntOrUInt()) {
    a = castExpr(tb, a);
  } else if (tb.isBool() && ta.isIntOrUInt()) {
    b = castExpr(ta, b);
  }
}

Expr makeBinary(NodeKind kind, Expr a, Expr b, SourceLoc loc) {
  if (BinaryExpr::isLogical(kind)) {
    DataType boolA = DataType::boolTy(a->dtype.lanes()), boolB = DataType::boolTy(b->dtype.lanes());
    a = castExpr(boolA, std::move(a));
    b = castExpr(boolB, std::move(b));
  }
  matchBinaryTypes(a, b);
  if (Expr folded = tryConstFold(kind, a, b)) {
    // A literal just built for the folded value (not an operand) takes the expression's place
    // in the source, for the errors that name it (the C emitter's float16).
    if (folded != a && folded != b && !folded->loc().isKnown()) const_cast<ExprNode *>(folded.get())->setLoc(loc);
    return folded;
  }
  return make<BinaryExpr>(kind, std::move(a), std::move(b), loc);
}

Expr notExpr(Expr a, SourceLoc loc) {
  if (auto v = asConstInt(a)) return intImm(!*v, DataType::boolTy(a->dtype.lanes()), loc);
  return make<Not>(std::move(a), loc);
}

namespace detail {

static bool sameAtom(const Expr &x, const Expr &y) {
  if (x == y) return true;
  if (x.isa<Var>() || y.isa<Var>()) return false;
  return structuralEqual(x, y);
}

void LinearForm::addTerm(const Expr &atom, int64_t coeff) {
  for (LinearTerm &t : terms) {
    if (sameAtom(t.atom, atom)) {
      t.coeff += coeff;
      return;
    }
  }
  terms.push_back({atom, coeff});
}

void LinearForm::add(const LinearForm &other, int64_t scale) {
  for (const LinearTerm &t : other.terms) addTerm(t.atom, t.coeff * scale);
  constant += other.constant * scale;
}

bool LinearForm::isConstant() const {
  for (const LinearTerm &t : terms)
    if (t.coeff != 0) return false;
  return true;
}

int64_t LinearForm::coeffOf(const Expr &atom) const {
  for (const LinearTerm &t : terms)
    if (sameAtom(t.atom, atom)) return t.coeff;
  return 0;
}

// An atom keeps its own operator; only its operands are simplified (simplifying the atom
// itself would come straight back here).
static Expr simplifyAtom(const Expr &e) {
  const auto *bin = e.as<BinaryExpr>();
  if (!bin) return simplify(e);
  Expr a = simplify(bin->a), b = simplify(bin->b);
  if (a == bin->a && b == bin->b) return e;
  return makeBinary(bin->kind(), a, b, e->loc());
}

static void collect(const Expr &e, int64_t scale, LinearForm &form) {
  if (auto v = asConstInt(e)) {
    form.constant += *v * scale;
    return;
  }
  if (const auto *bin = e.as<BinaryExpr>(); bin && bin->a->dtype == e->dtype && bin->b->dtype == e->dtype) {
    switch (bin->kind()) {
    case NodeKind::Add:
      collect(bin->a, scale, form);
      collect(bin->b, scale, form);
      return;
    case NodeKind::Sub:
      collect(bin->a, scale, form);
      collect(bin->b, -scale, form);
      return;
    case NodeKind::Mul:
      if (auto c = asConstInt(bin->b)) return collect(bin->a, scale * *c, form);
      if (auto c = asConstInt(bin->a)) return collect(bin->b, scale * *c, form);
      break;
    default:
      break;
    }
  }
  form.addTerm(simplifyAtom(e), scale);
}

std::optional<LinearForm> toLinearForm(const Expr &e) {
  if (!e->dtype.isIntOrUInt() || !e->dtype.isScalar()) return std::nullopt;
  LinearForm form;
  collect(e, 1, form);
  return form;
}

Expr fromLinearForm(const LinearForm &form, DataType dtype) {
  Expr result;
  for (const LinearTerm &t : form.terms) {
    if (t.coeff == 0) continue;
    int64_t magnitude = t.coeff < 0 ? -t.coeff : t.coeff;
    Expr term = magnitude == 1 ? t.atom : make<BinaryExpr>(NodeKind::Mul, t.atom, intImm(magnitude, dtype));
    if (!result) {
      result = t.coeff > 0 ? term : make<BinaryExpr>(NodeKind::Mul, t.atom, intImm(t.coeff, dtype));
    } else {
      result = make<BinaryExpr>(t.coeff > 0 ? NodeKind::Add : NodeKind::Sub, result, term);
    }
  }
  if (!result) return intImm(form.constant, dtype);
  if (form.constant > 0) return make<BinaryExpr>(NodeKind::Add, result, intImm(form.constant, dtype));
  if (form.constant < 0) return make<BinaryExpr>(NodeKind::Sub, result, intImm(-form.constant, dtype));
  return result;
}

}  // namespace detail

Expr simplify(const Expr &e) {
  if (const auto *bin = e.as<BinaryExpr>()) {
    NodeKind k = bin->kind();
    bool linear = k == NodeKind::Add || k == NodeKind::Sub || k == NodeKind::Mul;
    if (linear && e->dtype.isIntOrUInt() && e->dtype.isScalar()) {
      auto form = detail::toLinearForm(e);
      return detail::fromLinearForm(*form, e->dtype);
    }
    Expr a = simplify(bin->a), b = simplify(bin->b);
    if (a == bin->a && b == bin->b && !tryConstFold(k, a, b)) return e;
    return makeBinary(k, a, b, e->loc());
  }
  if (const auto *n = e.as<Not>()) {
    Expr a = simplify(n->a);
    return a == n->a && !asConstInt(a) ? e : notExpr(a, e->loc());
  }
  if (const auto *c = e.as<Cast>()) {
    Expr v = simplify(c->value);
    return v == c->value && !v.isa<IntImm>() && !v.isa<FloatImm>() ? e : castExpr(c->dtype, v, e->loc());
  }
  return e;
}

std::optional<Expr> divideExactly(const Expr &e, int64_t divisor) {
  auto form = detail::toLinearForm(e);
  if (!form || divisor == 0 || form->constant % divisor != 0) return std::nullopt;
  for (detail::LinearTerm &t : form->terms) {
    if (t.coeff % divisor != 0) return std::nullopt;
    t.coeff /= divisor;
  }
  form->constant /= divisor;
  return detail::fromLinearForm(*form, e->dtype);
}

Range rangeFromBeginEnd(Expr begin, Expr end) {
  if (isZero(begin)) return Range{std::move(begin), std::move(end)};
  Expr extent = simplify(subExpr(end, begin));
  return Range{std::move(begin), std::move(extent)};
}

std::optional<LinearEquation> detectLinearEquation(const Expr &e, const std::vector<VarRef> &vars) {
  auto form = detail::toLinearForm(e);
  if (!form) return std::nullopt;
  auto isTarget = [&](const Node &n) {
    return std::any_of(vars.begin(), vars.end(), [&](const VarRef &v) { return v.get() == &n; });
  };
  LinearEquation eq;
  eq.coeffs.assign(vars.size(), 0);
  detail::LinearForm rest;
  rest.constant = form->constant;
  for (const detail::LinearTerm &t : form->terms) {
    if (t.coeff == 0) continue;
    auto it = std::find_if(vars.begin(), vars.end(), [&](const VarRef &v) { return v == t.atom; });
    if (it != vars.end()) {
      eq.coeffs[it - vars.begin()] += t.coeff;
      continue;
    }
    bool mentionsTarget = false;
    preOrderVisit(t.atom, [&](const Node &n) { mentionsTarget |= isTarget(n); });
    if (mentionsTarget) return std::nullopt;
    rest.addTerm(t.atom, t.coeff);
  }
  eq.base = detail::fromLinearForm(rest, e->dtype);
  return eq;
}

}  // namespace vtac::ir
