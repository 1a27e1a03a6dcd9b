// The Analyzer's state and queries; the simplifier and the bounds live in their own files.
#include "vtac/ir/arith/Analyzer.h"

#include <algorithm>
#include <cmath>

#include "AnalyzerState.h"
#include "Simplifier.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/SideEffect.h"

namespace vtac::ir::arith {

int64_t floorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floorModInt(int64_t a, int64_t b) { return a - floorDivInt(a, b) * b; }

std::optional<int64_t> ceilLog2(double x, DataType type) {
  if (!(x > 0) || !std::isfinite(x) || !type.isFloat() || type.bits() < 32) return std::nullopt;
  int exponent;
  double mantissa = std::frexp(x, &exponent);  // x = mantissa * 2^exponent, mantissa in [0.5, 1)
  if (mantissa == 0.5) return exponent - 1;
  // log2(x) lies strictly between exponent - 1 and exponent. An integer x <= 2^32 is more than
  // 2^-33 away from both (log2(1 + t) >= t), where float64's ulp is at most 2^-48.
  if (type.bits() == 64 && x == std::floor(x) && x <= 4294967296.0) return exponent;
  double log = std::log2(x);
  double distance = std::min(log - (exponent - 1), exponent - log);
  double tolerance = (type.bits() == 64 ? 1e-9 : 1e-3) * std::max(1.0, std::fabs(double(exponent)));
  if (distance > tolerance) return exponent;
  return std::nullopt;
}
int64_t gcdInt(int64_t a, int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

Analyzer::Analyzer() : state_(std::make_unique<State>()) {}
Analyzer::~Analyzer() = default;

void Analyzer::bind(const VarRef &var, const Range &range) {
  // A range of one value binds the variable to it (TVM does the same).
  if (isOne(range.extent)) return bind(var, range.min);
  IntBound min = constIntBound(range.min), extent = constIntBound(range.extent);
  IntBound bound{min.min, IntBound::kPosInf};
  if (min.max != IntBound::kPosInf && extent.max != IntBound::kPosInf) {
    // A loop may start at INT64_MIN: the last value is computed wide and clamped, never wrapped.
    __int128 last = __int128(min.max) + extent.max - 1;
    bound.max = int64_t(std::clamp<__int128>(last, IntBound::kNegInf, IntBound::kPosInf));
  }
  state_->varValues.erase(var);
  state_->varBounds[var] = bound;
  state_->varRanges.insert_or_assign(var, range);
}

void Analyzer::updateBound(const VarRef &var, const IntBound &bound) {
  state_->varValues.erase(var);
  state_->varRanges.erase(var);
  state_->varBounds[var] = bound;
}

void Analyzer::bind(const VarRef &var, const Expr &value) {
  Expr simplified = simplify(value);
  state_->varBounds.erase(var);
  state_->varRanges.erase(var);
  state_->varValues[var] = simplified;
}

Expr Analyzer::simplify(const Expr &e) {
  if (e.isa<IntImm>()) return e;
  Expr rewritten = rewriteSimplify(e);
  if (rewritten.isa<IntImm>()) return rewritten;
  return canonicalSimplify(rewritten);
}

Expr Analyzer::rewriteSimplify(const Expr &e) {
  return Simplifier(*this, *state_, Simplifier::Mode::Rewrite).visitExpr(e);
}

Expr Analyzer::canonicalSimplify(const Expr &e) {
  return Simplifier(*this, *state_, Simplifier::Mode::Canonical).visitExpr(e);
}

bool Analyzer::canProve(const Expr &condition, ProofStrength strength) {
  if (auto c = asConstInt(condition)) return *c != 0;
  if (auto c = asConstInt(simplify(condition))) return *c != 0;
  const auto *compare = condition.as<BinaryExpr>();
  if (strength != ProofStrength::SymbolicBound || !compare ||
      (compare->kind() != NodeKind::LT && compare->kind() != NodeKind::LE) || !isIndexType(compare->a->dtype))
    return false;
  // The least value of b - a: each bound variable of a linear difference at the end of its range
  // that lowers it (TVM relaxes the difference to an integer set for the same question).
  Expr difference = simplify(subExpr(compare->b, compare->a));
  std::vector<VarRef> vars;
  for (const auto &[var, range] : state_->varRanges) vars.push_back(var);
  std::optional<LinearEquation> linear = detectLinearEquation(difference, vars);
  if (!linear) return false;
  Expr least = linear->base;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (linear->coeffs[i] == 0) continue;
    const Range &range = state_->varRanges.at(vars[i]);
    Expr end = linear->coeffs[i] > 0 ? range.min : subExpr(addExpr(range.min, range.extent), intImm(1, range.min->dtype));
    least = addExpr(least, mulExpr(intImm(linear->coeffs[i], end->dtype), end));
  }
  return canProveGreaterEqual(simplify(least), compare->kind() == NodeKind::LT ? 1 : 0);
}

bool Analyzer::canProveGreaterEqual(const Expr &e, int64_t lowerBound) {
  if (auto c = asConstInt(e)) return *c >= lowerBound;
  return constIntBound(e).min >= lowerBound;
}

bool Analyzer::canProveLess(const Expr &e, int64_t upperBound) {
  if (auto c = asConstInt(e)) return *c < upperBound;
  return constIntBound(e).max < upperBound;
}

bool Analyzer::canProveEqual(const Expr &a, const Expr &b) {
  if (a->dtype.isIntOrUInt() && b->dtype.isIntOrUInt() && isZero(simplify(subExpr(a, b)))) return true;
  return canProve(makeBinary(NodeKind::EQ, a, b));
}

// ---- constraint scopes ----------------------------------------------------------------------

static void collectConjuncts(const Expr &e, LikelyConjunct likely, std::vector<Expr> &out) {
  if (const auto *bin = e.as<BinaryExpr>(); bin && bin->kind() == NodeKind::And) {
    collectConjuncts(bin->a, likely, out);
    collectConjuncts(bin->b, likely, out);
    return;
  }
  const auto *call = e.as<Call>();
  if (likely == LikelyConjunct::LookThrough && call && call->op == "tir.likely" && call->args.size() == 1)
    return collectConjuncts(call->args[0], likely, out);
  out.push_back(e);
}

std::vector<Expr> conjuncts(const Expr &condition, LikelyConjunct likely) {
  std::vector<Expr> out;
  collectConjuncts(condition, likely, out);
  return out;
}

// The bound `var < c`, `c <= var`, `var == c`, ... puts on var, if the conjunct is one of those.
static std::optional<std::pair<VarRef, IntBound>> boundFromConjunct(const Expr &e) {
  const auto *bin = e.as<BinaryExpr>();
  if (!bin) return std::nullopt;
  const auto *va = bin->a.as<Var>(), *vb = bin->b.as<Var>();
  auto ca = asConstInt(bin->a), cb = asConstInt(bin->b);
  constexpr int64_t lo = IntBound::kNegInf, hi = IntBound::kPosInf;
  if (va && cb) {
    VarRef v(va);
    switch (bin->kind()) {
    case NodeKind::LT: return std::make_pair(v, IntBound{lo, *cb - 1});
    case NodeKind::LE: return std::make_pair(v, IntBound{lo, *cb});
    case NodeKind::GT: return std::make_pair(v, IntBound{*cb + 1, hi});
    case NodeKind::GE: return std::make_pair(v, IntBound{*cb, hi});
    case NodeKind::EQ: return std::make_pair(v, IntBound{*cb, *cb});
    default: return std::nullopt;
    }
  }
  if (vb && ca) {
    VarRef v(vb);
    switch (bin->kind()) {
    case NodeKind::LT: return std::make_pair(v, IntBound{*ca + 1, hi});
    case NodeKind::LE: return std::make_pair(v, IntBound{*ca, hi});
    case NodeKind::GT: return std::make_pair(v, IntBound{lo, *ca - 1});
    case NodeKind::GE: return std::make_pair(v, IntBound{lo, *ca});
    case NodeKind::EQ: return std::make_pair(v, IntBound{*ca, *ca});
    default: return std::nullopt;
    }
  }
  return std::nullopt;
}

// `floormod(x, c) == 0` for a negative c (TVM's canonical form writes floormod(-i, 2) so, as
// floormod(i, -2)) says x is a multiple of -c: the same fact with the positive divisor.
static Expr positiveDivisorFact(const Expr &e) {
  const auto *eq = e.as<BinaryExpr>();
  const auto *mod = eq && eq->kind() == NodeKind::EQ && isConstInt(eq->b, 0) ? eq->a.as<BinaryExpr>() : nullptr;
  if (!mod || (mod->kind() != NodeKind::FloorMod && mod->kind() != NodeKind::Mod)) return nullptr;
  auto c = asConstInt(mod->b);
  if (!c || *c >= 0 || *c == IntBound::kNegInf) return nullptr;
  return makeBinary(NodeKind::EQ, makeBinary(mod->kind(), mod->a, intImm(-*c, mod->b->dtype)), eq->b);
}

Analyzer::ConstraintScope::ConstraintScope(Analyzer &analyzer, const Expr &condition) : analyzer_(analyzer) {
  State &state = *analyzer.state_;
  savedDepth_ = state.scopeMarks.size();
  state.scopeMarks.emplace_back(state.knownTrue.size(), state.savedBounds.size());
  // T.likely is a hint: its condition holds in the scope all the same.
  for (const Expr &c : conjuncts(condition, LikelyConjunct::LookThrough)) {
    // A conjunct that reads memory may stop holding within the scope (`if A[0] == n:
    // A[0] = A[0] + 1`), so only pure ones become facts, as in TVM's EnterConstraint.
    if (sideEffect(c) != SideEffect::Pure) continue;
    Expr simplified = analyzer.rewriteSimplify(c);
    if (simplified.isa<IntImm>()) continue;
    if (auto narrowed = boundFromConjunct(simplified)) {
      auto &[var, bound] = *narrowed;
      IntBound current = analyzer.constIntBound(var);
      auto it = state.varBounds.find(var);
      state.savedBounds.push_back({var, it != state.varBounds.end(), it != state.varBounds.end() ? it->second : IntBound{}});
      state.varBounds[var] = {std::max(current.min, bound.min), std::min(current.max, bound.max)};
    }
    state.knownTrue.push_back(simplified);
    if (Expr divisible = positiveDivisorFact(simplified)) state.knownTrue.push_back(analyzer.rewriteSimplify(divisible));
  }
}

Analyzer::ConstraintScope::~ConstraintScope() {
  State &state = *analyzer_.state_;
  auto [knownSize, boundsSize] = state.scopeMarks[savedDepth_];
  state.scopeMarks.resize(savedDepth_);
  state.knownTrue.resize(knownSize);
  while (state.savedBounds.size() > boundsSize) {
    State::SavedBound &saved = state.savedBounds.back();
    if (saved.existed) state.varBounds[saved.var] = saved.bound;
    else state.varBounds.erase(saved.var);
    state.savedBounds.pop_back();
  }
}

void boundShapeVariables(Analyzer &analyzer, const PrimFunc &func) {
  for (const auto &[param, buffer] : func.bufferMap) {
    // the product of the constant dimensions and the element size, and the one symbolic dimension
    int64_t constantBytes = buffer->dtype.bytes();
    const Expr *symbolic = nullptr;
    for (const Expr &dim : buffer->shape) {
      std::optional<int64_t> extent = asConstInt(dim);
      if (extent && *extent > 0 && !__builtin_mul_overflow(constantBytes, *extent, &constantBytes)) continue;
      if (extent || symbolic) {  // an empty buffer, or two symbolic dimensions: nothing bounds them
        symbolic = nullptr;
        break;
      }
      symbolic = &dim;
    }
    if (!symbolic) continue;
    std::optional<ScaledVar> dim = asScaledVar(*symbolic);
    if (!dim || !dim->var->dtype.isInt() || dim->var->dtype.bits() < 32) continue;
    const Var *var = dim->var;
    int64_t scale = dim->scale, offset = dim->offset;
    // 0 <= var * scale + offset <= the largest dimension
    int64_t largest = IntBound::kPosInf / constantBytes;
    if (var->dtype.bits() == 32) largest = std::min<int64_t>(largest, std::numeric_limits<int32_t>::max());
    __int128 least = -__int128(floorDivInt(offset, scale));
    __int128 most = (__int128(largest) - offset) / scale;  // largest - offset >= 0 where it matters
    if (most < least || least < IntBound::kNegInf || most > IntBound::kPosInf) continue;
    analyzer.updateBound(VarRef(var), {int64_t(least), int64_t(most)});
  }
}

}  // namespace vtac::ir::arith
