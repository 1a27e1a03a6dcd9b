// The canonical simplifier's arithmetic (TVM's CanonicalSimplifier): an index expression is a
// sum of split terms plus a constant,
//   sum_k ((index_k % upper_k) / lower_k) * scale_k + base,
// where `/` and `%` are floor or truncating division (each term has its mode). Terms on the same
// index stay adjacent, ordered by decreasing lower factor, so `(x // 4) * 4 + x % 4` merges back
// into x. Division and modulo by a positive constant split the divisible part off and drop
// remainders proven to lie in [0, c); a floor division whose remainders divide to one constant
// under the known bounds is the quotient plus that constant. Normalising orders the terms by decreasing scale (stable),
// adds the constant after the positive terms and subtracts the negative ones last.
#include <algorithm>
#include <functional>

#include "Simplifier.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/StructuralEqual.h"

namespace vtac::ir::arith {
namespace {

enum class DivMode : uint8_t { Trunc, Floor };

Expr modExpr(DivMode mode, const Expr &a, int64_t c) {
  return makeBinary(mode == DivMode::Floor ? NodeKind::FloorMod : NodeKind::Mod, a, intImm(c, a->dtype));
}
Expr divExpr(DivMode mode, const Expr &a, int64_t c) {
  return makeBinary(mode == DivMode::Floor ? NodeKind::FloorDiv : NodeKind::Div, a, intImm(c, a->dtype));
}

// lower * factor, the divisor of a split in dtype t; nullopt where the product leaves t (it
// would wrap, and x // 2^62 % 4 is not x % 2^64 // 2^62).
std::optional<int64_t> scaledDivisor(int64_t lower, int64_t factor, DataType t) {
  std::optional<int64_t> product = exactIntArith(NodeKind::Mul, lower, factor);
  return product && fitsIntType(*product, t) ? product : std::nullopt;
}

struct SplitTerm {
  Expr index;
  int64_t lower = 1;
  int64_t upper = IntBound::kPosInf;  // upper % lower == 0 unless infinite
  int64_t scale = 1;
  DivMode mode = DivMode::Trunc;

  bool sameIndex(const SplitTerm &other) const {
    return index == other.index || structuralEqual(index, other.index);
  }
  bool compatibleWith(DivMode m) const { return mode == m || (lower == 1 && upper == IntBound::kPosInf); }
  bool sameSplit(const SplitTerm &other) const {
    return lower == other.lower && upper == other.upper && compatibleWith(other.mode);
  }

  Expr normalize(int64_t extraScale = 1) const {
    DataType t = index->dtype;
    if (scale == 0) return intImm(0, t);
    Expr result = index;
    if (upper != IntBound::kPosInf) result = modExpr(mode, result, upper);
    if (lower != 1) result = divExpr(mode, result, lower);
    int64_t s = scale * extraScale;
    return s == 1 ? result : mulExpr(result, intImm(s, t));
  }
};

struct SumForm {
  std::vector<SplitTerm> args;
  int64_t base = 0;

  bool isZero() const { return base == 0 && args.empty(); }

  // this += other * scale, keeping terms on one index adjacent and ordered by lower factor.
  void addTerm(SplitTerm other, int64_t scale) {
    if (other.scale == 0) return;
    size_t start = 0;
    while (start < args.size() && !args[start].sameIndex(other)) ++start;
    for (size_t j = start; j < args.size(); ++j) {
      if (!args[j].sameIndex(other) || other.lower > args[j].lower) {
        other.scale *= scale;
        args.insert(args.begin() + j, std::move(other));
        return;
      }
      if (other.sameSplit(args[j])) {
        args[j].scale += other.scale * scale;
        return;
      }
    }
    other.scale *= scale;
    args.push_back(std::move(other));
  }
  void add(const SumForm &other, int64_t scale) {
    for (const SplitTerm &t : other.args) addTerm(t, scale);
    base += other.base * scale;
  }
  void multiply(int64_t c) {
    base *= c;
    for (SplitTerm &t : args) t.scale *= c;
  }
  void divideExactly(int64_t c) {
    base /= c;
    for (SplitTerm &t : args) t.scale /= c;
  }

  Expr normalize(DataType t) const {
    if (args.empty()) return intImm(base, t);
    std::vector<SplitTerm> terms = mergedTerms();
    Expr result = intImm(0, t);
    for (const SplitTerm &term : terms)
      if (term.scale > 0) result = addExpr(result, term.normalize());
    // The least value of t has no negation in t: x + INT32_MIN stays an addition.
    bool subtractBase = base < 0 && base != INT64_MIN && fitsIntType(-base, t);
    if (base > 0 || (base < 0 && !subtractBase)) result = addExpr(result, intImm(base, t));
    for (const SplitTerm &term : terms)
      if (term.scale < 0) result = subExpr(result, term.normalize(-1));
    if (subtractBase) result = subExpr(result, intImm(-base, t));
    return result;
  }

private:
  // Folds equal splits and adjacent pieces of one index (`(x // 6) * 6 + (x % 6 // 3) * 3` ->
  // `(x // 3) * 3`), then sorts by decreasing scale, lower, upper factor and mode.
  std::vector<SplitTerm> mergedTerms() const {
    std::vector<SplitTerm> terms = args;
    for (size_t i = 0; i < terms.size(); ++i) {
      if (terms[i].scale == 0) continue;
      for (size_t j = i + 1; j < terms.size(); ++j) {
        SplitTerm &lhs = terms[i], &rhs = terms[j];
        if (!lhs.sameIndex(rhs) || lhs.upper < rhs.lower) break;
        if (lhs.sameSplit(rhs)) {
          rhs.scale += lhs.scale;
          lhs.scale = 0;
        } else if (lhs.lower == rhs.upper && rhs.scale != 0 && lhs.scale % rhs.scale == 0 &&
                   lhs.lower == (lhs.scale / rhs.scale) * rhs.lower && lhs.compatibleWith(rhs.mode)) {
          rhs.upper = lhs.upper;
          lhs.scale = 0;
          break;
        }
      }
    }
    std::stable_sort(terms.begin(), terms.end(), [](const SplitTerm &a, const SplitTerm &b) {
      if (a.scale != b.scale) return a.scale > b.scale;
      if (a.lower != b.lower) return a.lower > b.lower;
      if (a.upper != b.upper) return a.upper > b.upper;
      return a.mode > b.mode;
    });
    return terms;
  }
};

}  // namespace

// An intermediate result of the canonical simplifier: a plain expression, one split term or a
// sum. Parents of arithmetic nodes combine these without normalising in between.
struct CanonValue {
  enum class Kind : uint8_t { Plain, Split, Sum } kind = Kind::Plain;
  DataType dtype;
  Expr plain;
  SplitTerm split;
  SumForm sum;

  static CanonValue ofPlain(Expr e) {
    CanonValue v;
    v.dtype = e->dtype;
    v.plain = std::move(e);
    return v;
  }
  static CanonValue ofSplit(SplitTerm s, DataType t) {
    CanonValue v;
    v.kind = Kind::Split;
    v.dtype = t;
    v.split = std::move(s);
    return v;
  }
  static CanonValue ofSum(SumForm s, DataType t) {
    CanonValue v;
    v.kind = Kind::Sum;
    v.dtype = t;
    v.sum = std::move(s);
    return v;
  }

  std::optional<int64_t> constant() const { return kind == Kind::Plain ? asConstInt(plain) : std::nullopt; }
  Expr normalize() const {
    switch (kind) {
    case Kind::Plain: return plain;
    case Kind::Split: return split.normalize();
    case Kind::Sum: return sum.normalize(dtype);
    }
    return plain;
  }
  SplitTerm toSplit() const {
    if (kind == Kind::Split) return split;
    if (kind == Kind::Sum && sum.base == 0 && sum.args.size() == 1) return sum.args[0];
    SplitTerm s;
    s.index = normalize();
    return s;
  }
  SumForm toSum() const {
    if (kind == Kind::Sum) return sum;
    SumForm s;
    if (auto c = constant()) s.base = *c;
    else s.args.push_back(toSplit());
    return s;
  }
};

// The division and modulo algebra; a friend of Simplifier for bounds and recursion.
struct CanonicalOps {
  Simplifier &self;

  static SplitTerm withMode(SplitTerm s, DivMode mode) {
    if (s.mode == mode) return s;
    if (!s.compatibleWith(mode)) s = reindex(s);
    s.mode = mode;
    return s;
  }
  // A split on its own normalised value (scale 1, no factors).
  static SplitTerm reindex(const SplitTerm &s) {
    SplitTerm fresh;
    fresh.index = s.normalize();
    return fresh;
  }

  SplitTerm divConst(SplitTerm lhs, int64_t c, DivMode mode) {
    lhs = withMode(std::move(lhs), mode);
    if (lhs.scale % c == 0) {
      lhs.scale /= c;
      return lhs;
    }
    std::optional<int64_t> lower = c % lhs.scale == 0 ? scaledDivisor(lhs.lower, c / lhs.scale, lhs.index->dtype) : std::nullopt;
    if (lower) {
      if (lhs.upper == IntBound::kPosInf || lhs.upper % *lower == 0) {
        lhs.scale = 1;
        lhs.lower = *lower;
        return lhs;
      }
      if (lhs.upper <= *lower) return reindex(SplitTerm{intImm(0, lhs.index->dtype)});
      lhs.index = modExpr(mode, lhs.index, lhs.upper);
      lhs.upper = IntBound::kPosInf;
      lhs.scale = 1;
      lhs.lower = *lower;
      return lhs;
    }
    lhs = reindex(lhs);
    lhs.lower = c;
    lhs.mode = mode;
    return lhs;
  }

  SplitTerm modConst(SplitTerm lhs, int64_t c, DivMode mode) {
    lhs = withMode(std::move(lhs), mode);
    if (lhs.scale % c == 0) {
      lhs.scale = 0;
      return lhs;
    }
    std::optional<int64_t> upper = c % lhs.scale == 0 ? scaledDivisor(lhs.lower, c / lhs.scale, lhs.index->dtype) : std::nullopt;
    if (upper) {
      int64_t newUpper = *upper;
      if (lhs.upper == IntBound::kPosInf || lhs.upper % newUpper == 0) {
        if (newUpper < lhs.upper && lhs.upper != IntBound::kPosInf) {
          // A smaller modulus on the index may simplify further: redo it on the index.
          SplitTerm updated = reindex(SplitTerm{self.visitExpr(modExpr(mode, lhs.index, newUpper))});
          SplitTerm result = lhs.lower != 1 ? divConst(updated, lhs.lower, mode) : updated;
          result.scale *= lhs.scale;
          return result;
        }
        lhs.upper = newUpper;
        return lhs;
      }
      if (newUpper % lhs.upper == 0) return lhs;
    }
    lhs = reindex(lhs);
    lhs.mode = mode;
    lhs.upper = c;
    return lhs;
  }

  static void separateDivisible(const SumForm &sum, int64_t c, SumForm &divisible, SumForm &rest) {
    (sum.base % c == 0 ? divisible : rest).base = sum.base;
    for (const SplitTerm &t : sum.args) (t.scale % c == 0 ? divisible : rest).args.push_back(t);
  }

  bool nonNegative(const Expr &e) { return self.analyzer_.canProveGreaterEqual(e, 0); }
  bool isBelow(const Expr &e, int64_t c) { return self.compare(e, c) == Compare::LT; }

  // extra = s * X + R with c % s == 0, s > 1 and 0 <= R < s: then (extra // c) == X // (c / s)
  // and extra % c == (X % (c / s)) * s + R (TVM's rewrite rules for floordiv(x * c1 + y, c2)).
  // X takes the terms of largest scale; returns X (divided by s) and s.
  std::optional<std::pair<SumForm, int64_t>> scaledPart(const SumForm &extra, int64_t c, DataType t) {
    std::vector<size_t> order(extra.args.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto magnitude = [&](size_t i) { return extra.args[i].scale < 0 ? -extra.args[i].scale : extra.args[i].scale; };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return magnitude(a) > magnitude(b); });
    int64_t s = 0;
    for (size_t k = 0; k < order.size(); ++k) {
      s = gcdInt(s, extra.args[order[k]].scale);
      if (s <= 1) return std::nullopt;
      if (c % s != 0) continue;
      SumForm x, rest;
      rest.base = extra.base;
      for (size_t j = 0; j < order.size(); ++j) (j <= k ? x : rest).args.push_back(extra.args[order[j]]);
      Expr r = rest.normalize(t);
      if (nonNegative(r) && isBelow(r, s)) {
        x.divideExactly(s);
        return std::make_pair(std::move(x), s);
      }
    }
    return std::nullopt;
  }

  // For floor division and modulo only the remainder of the constant matters:
  // (S + q * c + r) // c == (S + r) // c + q.
  static SumForm reducedBase(SumForm sum, int64_t c, bool floor) {
    if (floor) sum.base = floorModInt(sum.base, c);
    return sum;
  }

  // TVM's rewrite rule for floordiv(x * c1 + y, c2) that eliminates the residue: with Q the
  // whole multiples of c taken out of every scale and of the constant, and R the remainders
  // (S == Q * c + R), S // c == Q + R // c; where the known bounds make R // c one constant k,
  // S // c is Q + k (x * 360 // 16 is x * 22 for x in [0, 2), as x * 8 // 16 is 0 there).
  std::optional<SumForm> quotientWithConstantResidue(const SumForm &sum, int64_t c, DataType t) {
    SumForm quotient, residue;
    quotient.base = floorDivInt(sum.base, c);
    residue.base = floorModInt(sum.base, c);
    for (const SplitTerm &term : sum.args) {
      SplitTerm whole = term, rest = term;
      whole.scale = floorDivInt(term.scale, c);
      rest.scale = floorModInt(term.scale, c);
      if (whole.scale != 0) quotient.args.push_back(whole);
      if (rest.scale != 0) residue.args.push_back(rest);
    }
    IntBound k = self.analyzer_.constIntBound(divExpr(DivMode::Floor, residue.normalize(t), c));
    if (!k.isConst() || k.min == IntBound::kPosInf || k.min == IntBound::kNegInf) return std::nullopt;
    quotient.base += k.min;
    return quotient;
  }

  CanonValue division(const CanonValue &a, int64_t c, DataType t, bool floor) {
    DivMode mode = floor ? DivMode::Floor : DivMode::Trunc;
    if (c == 1) return a;
    if (floor)
      if (std::optional<SumForm> quotient = quotientWithConstantResidue(a.toSum(), c, t))
        return CanonValue::ofSum(std::move(*quotient), t);
    if (a.kind == CanonValue::Kind::Sum) {
      SumForm lhs, extra;
      separateDivisible(a.sum, c, lhs, extra);
      if (extra.isZero()) {
        lhs.divideExactly(c);
        return CanonValue::ofSum(lhs, t);
      }
      Expr rest = extra.normalize(t);
      // Truncating division splits only when both parts are non-negative.
      if (floor || (nonNegative(lhs.normalize(t)) && nonNegative(rest))) {
        lhs.divideExactly(c);
        if (auto k = asConstInt(rest)) {
          lhs.base += floor ? floorDivInt(*k, c) : *k / c;
        } else if (auto part = scaledPart(reducedBase(extra, c, floor), c, t)) {
          if (floor) lhs.base += floorDivInt(extra.base, c);
          lhs.addTerm(divConst(CanonValue::ofSum(part->first, t).toSplit(), c / part->second, mode), 1);
        } else if (!(isBelow(rest, c) && (!floor || nonNegative(rest)))) {
          lhs.addTerm(divConst(SplitTerm{rest}, c, mode), 1);
        }
        return CanonValue::ofSum(lhs, t);
      }
    } else {
      IntBound b = self.analyzer_.constIntBound(a.normalize());
      if (b.min >= 0 && b.max < c) return CanonValue::ofPlain(intImm(0, t));
    }
    return CanonValue::ofSplit(divConst(a.toSplit(), c, mode), t);
  }

  CanonValue modulo(const CanonValue &a, int64_t c, DataType t, bool floor) {
    DivMode mode = floor ? DivMode::Floor : DivMode::Trunc;
    if (a.kind == CanonValue::Kind::Sum) {
      SumForm lhs, extra;
      separateDivisible(a.sum, c, lhs, extra);
      if (!floor && extra.isZero()) return CanonValue::ofPlain(intImm(0, t));
      Expr rest = extra.normalize(t);
      SumForm remaining = a.sum;
      if (floor || (nonNegative(lhs.normalize(t)) && nonNegative(rest))) {
        if (auto k = asConstInt(rest)) return CanonValue::ofPlain(intImm(floor ? floorModInt(*k, c) : *k % c, t));
        if (isBelow(rest, c) && (!floor || nonNegative(rest))) return CanonValue::ofPlain(rest);
        if (auto part = scaledPart(reducedBase(extra, c, floor), c, t)) {
          SumForm result = reducedBase(extra, c, floor);
          result.args.erase(std::remove_if(result.args.begin(), result.args.end(),
                                           [&](const SplitTerm &term) {
                                             return std::any_of(part->first.args.begin(), part->first.args.end(),
                                                                [&](const SplitTerm &x) { return x.sameIndex(term) && x.sameSplit(term); });
                                           }),
                            result.args.end());
          SplitTerm high = modConst(CanonValue::ofSum(part->first, t).toSplit(), c / part->second, mode);
          high.scale *= part->second;
          result.addTerm(high, 1);
          return CanonValue::ofSum(std::move(result), t);
        }
        remaining = extra;
      }
      if (floor) {
        remaining.base = floorModInt(remaining.base, c);
        return CanonValue::ofSplit(modConst(CanonValue::ofSum(remaining, t).toSplit(), c, mode), t);
      }
      // (x - 5) % 3 -> (x - 2) % 3 when x - 5 >= 0.
      IntBound b = self.analyzer_.constIntBound(remaining.normalize(t));
      int64_t newBase = remaining.base % c;
      if (b.min >= 0 && b.min - remaining.base + newBase >= 0) remaining.base = newBase;
      return CanonValue::ofSplit(modConst(CanonValue::ofSum(remaining, t).toSplit(), c, mode), t);
    }
    IntBound b = self.analyzer_.constIntBound(a.normalize());
    if (b.min >= 0 && b.max < c) return a;
    return CanonValue::ofSplit(modConst(a.toSplit(), c, mode), t);
  }
};

bool isIndexArithmetic(const BinaryExpr &op) {
  switch (op.kind()) {
  case NodeKind::Add: case NodeKind::Sub: case NodeKind::Mul: case NodeKind::Div:
  case NodeKind::Mod: case NodeKind::FloorDiv: case NodeKind::FloorMod:
    return isIndexType(op.dtype);
  default:
    return false;
  }
}

Expr Simplifier::visitIndexArithmetic(const BinaryExpr &op) { return canonicalArith(op).normalize(); }

CanonValue Simplifier::canonicalMutate(const Expr &e) {
  if (const auto *bin = e.as<BinaryExpr>(); bin && isIndexArithmetic(*bin)) return canonicalArith(*bin);
  return CanonValue::ofPlain(visitExpr(e));
}

// Products of symbolic factors: the factors in order, the constant last (TVM's MulAndNormalize).
static Expr productNormalForm(const Expr &a, const Expr &b) {
  int64_t constant = 1;
  Expr product;
  std::function<void(const Expr &)> collect = [&](const Expr &e) {
    if (const auto *bin = e.as<BinaryExpr>(); bin && bin->kind() == NodeKind::Mul) {
      collect(bin->a);
      collect(bin->b);
    } else if (auto c = asConstInt(e)) {
      constant *= *c;
    } else {
      product = product ? mulExpr(product, e) : e;
    }
  };
  collect(a);
  collect(b);
  if (!product) return intImm(constant, a->dtype);
  return constant == 1 ? product : mulExpr(product, intImm(constant, a->dtype));
}

CanonValue Simplifier::canonicalArith(const BinaryExpr &op) {
  DataType t = op.dtype;
  CanonValue a = canonicalMutate(op.a), b = canonicalMutate(op.b);
  auto ca = a.constant(), cb = b.constant();
  if (ca && cb) {
    if (Expr folded = tryConstFold(op.kind(), a.plain, b.plain)) return CanonValue::ofPlain(folded);
  }
  // TVM's TryConstFold identities, which may return a whole canonical operand.
  auto is = [](const std::optional<int64_t> &c, int64_t v) { return c && *c == v; };
  switch (op.kind()) {
  case NodeKind::Add:
    if (is(ca, 0)) return b;
    if (is(cb, 0)) return a;
    break;
  case NodeKind::Sub:
    if (is(cb, 0)) return a;
    break;
  case NodeKind::Mul:
    if (is(ca, 1) || is(cb, 0)) return b;
    if (is(ca, 0) || is(cb, 1)) return a;
    break;
  case NodeKind::Div:
  case NodeKind::FloorDiv:
    if (is(ca, 0) || is(cb, 1)) return a;
    break;
  default:
    if (is(ca, 0)) return a;
    if (is(cb, 1)) return CanonValue::ofPlain(intImm(0, t));
    break;
  }
  CanonicalOps ops{*this};
  switch (op.kind()) {
  case NodeKind::Add:
  case NodeKind::Sub: {
    int64_t sign = op.kind() == NodeKind::Add ? 1 : -1;
    SumForm sum = a.toSum();
    if (cb) sum.base += sign * *cb;
    else if (b.kind == CanonValue::Kind::Sum) sum.add(b.sum, sign);
    else sum.addTerm(b.toSplit(), sign);
    return CanonValue::ofSum(std::move(sum), t);
  }
  case NodeKind::Mul: {
    if (ca) std::swap(a, b), std::swap(ca, cb);
    if (cb) {
      if (a.kind == CanonValue::Kind::Sum) {
        a.sum.multiply(*cb);
        return a;
      }
      SplitTerm s = a.toSplit();
      s.scale *= *cb;
      return CanonValue::ofSplit(std::move(s), t);
    }
    Expr na = a.normalize(), nb = b.normalize();
    if (na == op.a && nb == op.b) return CanonValue::ofPlain(Expr(&op));
    return CanonValue::ofPlain(productNormalForm(na, nb));
  }
  default: {
    bool isDiv = op.kind() == NodeKind::Div || op.kind() == NodeKind::FloorDiv;
    bool floor = op.kind() == NodeKind::FloorDiv || op.kind() == NodeKind::FloorMod;
    // The division rules take the dividend's terms apart modulo c, which is exact where computing
    // the dividend does not wrap. A wrap adds a multiple of 2^bits: no multiple of 1767, so
    // floormod(x + 2^63 - 1, 1767) is not (x + 1309) % 1767 when x + 2^63 - 1 wraps; but a
    // multiple of a power of two c <= 2^bits, which keeps a floor modulo by c, and a truncated
    // one when it is 0 (`(x * 8) % 2`) whatever the dividend's sign.
    if (cb && *cb > 0) {
      if (noWrap(op.a)) return isDiv ? ops.division(a, *cb, t, floor) : ops.modulo(a, *cb, t, floor);
      bool dividesWrap = (*cb & (*cb - 1)) == 0 && (t.bits() >= 64 || *cb <= (int64_t{1} << t.bits()));
      if (!isDiv && dividesWrap) {
        CanonValue rest = ops.modulo(a, *cb, t, floor);
        if (floor || isConstInt(rest.normalize(), 0)) return rest;
      }
    }
    Expr na = a.normalize(), nb = b.normalize();
    if (na == op.a && nb == op.b) return CanonValue::ofPlain(Expr(&op));
    return CanonValue::ofPlain(makeBinary(op.kind(), na, nb, op.loc()));
  }
  }
}

}  // namespace vtac::ir::arith
