// TVM's rewrite-simplifier rules for the operators the canonical form leaves alone:
// comparisons (decided from constant bounds of their difference, else put into a normal form
// with constants moved to one side), min/max, logical operators and their negations. Each rule
// names TVM's pattern; rules whose result is simplified again say "recurse".
#include <numeric>

#include "Simplifier.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/StructuralEqual.h"

namespace vtac::ir::arith {
namespace {

constexpr int kMaxRecursion = 5;

const BinaryExpr *asOp(const Expr &e, NodeKind kind) {
  const auto *bin = e.as<BinaryExpr>();
  return bin && bin->kind() == kind ? bin : nullptr;
}

bool same(const Expr &a, const Expr &b) { return a == b || structuralEqual(a, b); }

Expr lit(int64_t v, const Expr &like) { return intImm(v, like->dtype); }

// The literal v of like's dtype; null where v leaves the dtype (a rule whose constant would wrap
// does not fire).
Expr litFit(__int128 v, const Expr &like) {
  if (v < INT64_MIN || v > INT64_MAX || !fitsIntType(int64_t(v), like->dtype)) return nullptr;
  return lit(int64_t(v), like);
}

Expr node(NodeKind kind, Expr a, Expr b) { return makeBinary(kind, std::move(a), std::move(b)); }
Expr lt(Expr a, Expr b) { return node(NodeKind::LT, std::move(a), std::move(b)); }
Expr le(Expr a, Expr b) { return node(NodeKind::LE, std::move(a), std::move(b)); }

// x + c / x - c: the non-constant part and the signed constant (exact: -INT64_MIN too); (e, 0)
// otherwise.
std::pair<Expr, __int128> splitConstantOffset(const Expr &e) {
  if (const auto *add = asOp(e, NodeKind::Add))
    if (auto c = asConstInt(add->b)) return {add->a, *c};
  if (const auto *sub = asOp(e, NodeKind::Sub))
    if (auto c = asConstInt(sub->b)) return {sub->a, -__int128(*c)};
  return {e, 0};
}

// gcd of every value e can take, from its linear structure (TVM's modular set, reduced to
// gcd(coeff, base)); 1 when unknown, 0 for the literal 0.
int64_t commonDivisor(const Expr &e) {
  if (auto c = asConstInt(e)) return *c < 0 ? -*c : *c;
  if (const auto *bin = e.as<BinaryExpr>()) {
    switch (bin->kind()) {
    case NodeKind::Add:
    case NodeKind::Sub: return gcdInt(commonDivisor(bin->a), commonDivisor(bin->b));
    case NodeKind::Mul: {
      int64_t a = commonDivisor(bin->a), b = commonDivisor(bin->b);
      return (a == 0 || b == 0) ? 0 : a * b;
    }
    default: break;
    }
  }
  return 1;
}

}  // namespace

Expr Simplifier::recurse(const Expr &e) {
  if (recursionDepth_ >= kMaxRecursion) return e;
  ++recursionDepth_;
  Expr result = visitExpr(e);
  --recursionDepth_;
  return result;
}

std::optional<bool> Simplifier::matchKnown(const Expr &cond) const {
  for (auto it = state_.knownTrue.rbegin(); it != state_.knownTrue.rend(); ++it) {
    const Expr &known = *it;
    if (same(known, cond)) return true;
    if (const auto *n = cond.as<Not>(); n && same(n->a, known)) return false;
    if (const auto *n = known.as<Not>(); n && same(n->a, cond)) return false;
    const auto *k = known.as<BinaryExpr>(), *c = cond.as<BinaryExpr>();
    if (!k || !c) continue;
    // a < b is false where b <= a is known, a == b where a != b is known, and so on.
    auto swapped = [&] { return same(k->a, c->b) && same(k->b, c->a); };
    auto straight = [&] { return same(k->a, c->a) && same(k->b, c->b); };
    if ((k->kind() == NodeKind::LT && c->kind() == NodeKind::LE) ||
        (k->kind() == NodeKind::LE && c->kind() == NodeKind::LT)) {
      if (swapped()) return false;
    }
    if ((k->kind() == NodeKind::EQ && c->kind() == NodeKind::NE) ||
        (k->kind() == NodeKind::NE && c->kind() == NodeKind::EQ)) {
      if (straight() || swapped()) return false;
    }
  }
  return std::nullopt;
}

Compare Simplifier::compare(const Expr &x, int64_t value) {
  Expr diff = analyzer_.canonicalSimplify(x);
  if (auto c = asConstInt(diff)) return *c == value ? Compare::EQ : *c < value ? Compare::LT : Compare::GT;
  IntBound b = analyzer_.constIntBound(diff);
  if (b.min == value && b.max == value) return Compare::EQ;
  if (b.min > value) return Compare::GT;
  if (b.max < value) return Compare::LT;
  if (b.min >= value) return Compare::GE;
  if (b.max <= value) return Compare::LE;
  return Compare::Unknown;
}

// x against y as seen from y's side.
static Compare mirror(Compare c) {
  switch (c) {
  case Compare::LT: return Compare::GT;
  case Compare::LE: return Compare::GE;
  case Compare::GT: return Compare::LT;
  case Compare::GE: return Compare::LE;
  default: return c;
  }
}

// What the range a variable x is bound to says of x against y: TVM keeps a bound range's ends as
// known comparisons (x >= min, x < min + extent), which settle `v < n` for v in [0, n) where
// constant bounds cannot. y is compared with each end by the constant difference between them.
Compare Simplifier::compareWithRange(const Expr &x, const Expr &y) {
  const auto *var = x.as<Var>();
  if (!var || !isIndexType(y->dtype)) return Compare::Unknown;
  auto it = state_.varRanges.find(VarRef(var));
  if (it == state_.varRanges.end()) return Compare::Unknown;
  const Range &range = it->second;
  uint8_t result = uint8_t(Compare::Unknown);
  // y at or past the end (end - y <= 0), which x is below: x < y.
  if (auto c = asConstInt(analyzer_.canonicalSimplify(subExpr(addExpr(range.min, range.extent), y))); c && *c <= 0)
    result &= uint8_t(Compare::LT);
  // y at or below the min (y - min <= 0), which x is at or above: x >= y (x > y when below).
  if (auto c = asConstInt(analyzer_.canonicalSimplify(subExpr(y, range.min))); c && *c <= 0)
    result &= uint8_t(*c < 0 ? Compare::GT : Compare::GE);
  return Compare(result);
}

Compare Simplifier::compare(const Expr &x, const Expr &y) {
  // What comparisons of exactly these two sides in enclosing conditions say, narrowed by bounds.
  uint8_t known = uint8_t(Compare::Unknown);
  for (const Expr &fact : state_.knownTrue) {
    const auto *k = fact.as<BinaryExpr>();
    if (!k || !BinaryExpr::isComparison(k->kind())) continue;
    bool straight = same(k->a, x) && same(k->b, y), swapped = same(k->a, y) && same(k->b, x);
    if (!straight && !swapped) continue;
    switch (k->kind()) {
    case NodeKind::EQ: known &= uint8_t(Compare::EQ); break;
    case NodeKind::NE: known &= uint8_t(Compare::NE); break;
    case NodeKind::LT: known &= uint8_t(straight ? Compare::LT : Compare::GT); break;
    case NodeKind::LE: known &= uint8_t(straight ? Compare::LE : Compare::GE); break;
    default: break;
    }
  }
  // The sign of x - y orders x and y only where it cannot wrap; whether it is 0 holds regardless.
  Compare difference = compare(subExpr(x, y), 0);
  if (difference != Compare::EQ && difference != Compare::Unknown && !fits(NodeKind::Sub, x, y))
    difference = difference == Compare::LT || difference == Compare::GT ? Compare::NE : Compare::Unknown;
  uint8_t result = known & uint8_t(difference) & uint8_t(compareWithRange(x, y));
  // Against a constant, the bounds of the other side order them with no subtraction to wrap
  // (n < 5 settles n < 10, where n - 10 may wrap for an n unbounded below).
  if (auto c = asConstInt(y)) result &= uint8_t(compare(x, *c));
  if (auto c = asConstInt(x)) result &= uint8_t(mirror(compare(y, *c)));
  if (Compare swapped = compareWithRange(y, x); swapped != Compare::Unknown) result &= uint8_t(mirror(swapped));
  // No possibility left: the context contradicts itself (dead code); decide nothing.
  return result == 0 ? Compare::Unknown : Compare(result);
}

Expr Simplifier::rewriteArith(const BinaryExpr &op, const Expr &a, const Expr &b) {
  // x - max(x, 0) -> min(x, 0) (TVM's x - max(x, y) -> min(0, x - y) where y is 0: x - x and
  // x - 0 cannot wrap, so it holds for every x)
  if (const auto *m = asOp(b, NodeKind::Max); m && op.kind() == NodeKind::Sub && isIndexType(op.dtype))
    if ((same(m->a, a) && isZero(m->b)) || (isZero(m->a) && same(m->b, a)))
      return recurse(node(NodeKind::Min, a, lit(0, a)));
  if (a == op.a && b == op.b && !tryConstFold(op.kind(), a, b)) return Expr(&op);
  return makeBinary(op.kind(), a, b, op.loc());
}

Expr Simplifier::rewriteMinMax(const BinaryExpr &op, const Expr &a, const Expr &b) {
  bool isMin = op.kind() == NodeKind::Min;
  Expr rebuilt = a == op.a && b == op.b && !tryConstFold(op.kind(), a, b) ? Expr(&op) : makeBinary(op.kind(), a, b, op.loc());
  if (!asOp(rebuilt, op.kind()) || !isIndexType(op.dtype)) return rebuilt;
  if (same(a, b)) return a;
  IntBound ba = analyzer_.constIntBound(a), bb = analyzer_.constIntBound(b);
  if (isMin) {
    if (ba.max <= bb.min) return a;
    if (bb.max <= ba.min) return b;
  } else {
    if (ba.min >= bb.max) return a;
    if (bb.min >= ba.max) return b;
  }
  // min(min(x, c1), y) -> min(min(x, y), c1) (recurse)
  if (const auto *inner = asOp(a, op.kind()); inner && asConstInt(inner->b) && !asConstInt(b))
    return recurse(node(op.kind(), node(op.kind(), inner->a, b), inner->b));
  // The rules below compare offsets and factors over the integers: only where a and b do not wrap.
  if (!noWrap(a) || !noWrap(b)) return rebuilt;
  // min(x + c1, x + c2), min(x + c1, x), min(x, x + c1): the smaller offset (larger for max).
  auto [xa, ca] = splitConstantOffset(a);
  auto [xb, cb] = splitConstantOffset(b);
  if (same(xa, xb) && (asOp(a, NodeKind::Add) || asOp(b, NodeKind::Add) || a == xa || b == xb)) {
    bool pickA = isMin ? ca <= cb : ca >= cb;
    return pickA ? a : b;
  }
  // min(c1 - x, c2 - x)
  const auto *sa = asOp(a, NodeKind::Sub), *sb = asOp(b, NodeKind::Sub);
  if (sa && sb && same(sa->b, sb->b)) {
    auto c1 = asConstInt(sa->a), c2 = asConstInt(sb->a);
    if (c1 && c2) return (isMin ? *c1 <= *c2 : *c1 >= *c2) ? a : b;
  }
  // min(x * c1, y * c1): min(x, y) * c1 for c1 > 0, max(x, y) * c1 for c1 < 0.
  const auto *ma = asOp(a, NodeKind::Mul), *mb = asOp(b, NodeKind::Mul);
  if (ma && mb) {
    auto c1 = asConstInt(ma->b), c2 = asConstInt(mb->b);
    if (c1 && c2 && *c1 == *c2 && *c1 != 0) {
      NodeKind inner = (*c1 > 0) == isMin ? NodeKind::Min : NodeKind::Max;
      return recurse(mulExpr(node(inner, ma->a, mb->a), ma->b));
    }
  }
  return rebuilt;
}

Expr Simplifier::visitComparison(const BinaryExpr &op) {
  NodeKind kind = op.kind();
  // a > b is b < a, a >= b is b <= a.
  if (kind == NodeKind::GT) return visitExpr(make<BinaryExpr>(NodeKind::LT, op.b, op.a, op.loc()));
  if (kind == NodeKind::GE) return visitExpr(make<BinaryExpr>(NodeKind::LE, op.b, op.a, op.loc()));
  Expr a = visitExpr(op.a), b = visitExpr(op.b);
  Expr rebuilt = a == op.a && b == op.b ? Expr(&op) : makeBinary(kind, a, b, op.loc());
  if (!asOp(rebuilt, kind)) return rebuilt;
  if (auto known = matchKnown(rebuilt)) return intImm(*known, op.dtype);
  bool index = isIndexType(a->dtype);
  Expr yes = intImm(1, op.dtype), no = intImm(0, op.dtype);
  switch (kind) {
  case NodeKind::LT: return rewriteLT(rebuilt);
  case NodeKind::EQ: return rewriteEQ(rebuilt);
  case NodeKind::NE: {
    if (index) {
      Compare r = compare(a, b);
      if (r == Compare::NE || r == Compare::GT || r == Compare::LT) return yes;
      if (r == Compare::EQ) return no;
      if (r == Compare::GE) return rewriteLT(lt(b, a));
      if (r == Compare::LE) return rewriteLT(lt(a, b));
    }
    return rewriteNot(notExpr(rewriteEQ(node(NodeKind::EQ, a, b))));
  }
  default: {  // LE: a <= b is !(b < a)
    Expr result = rewriteNot(notExpr(rewriteLT(lt(b, a))));
    const auto *r = asOp(result, NodeKind::LE);
    if (!r || !isIndexType(r->a->dtype)) return result;
    Compare c = compare(r->a, r->b);
    if (c == Compare::LE || c == Compare::LT || c == Compare::EQ) return yes;
    if (c == Compare::GT) return no;
    if (c == Compare::NE) return rewriteLT(lt(r->a, r->b));
    if (c == Compare::GE) return rewriteEQ(node(NodeKind::EQ, r->a, r->b));
    return result;
  }
  }
}

Expr Simplifier::rewriteLT(const Expr &e) {
  const auto *op = asOp(e, NodeKind::LT);
  if (!op || !isIndexType(op->a->dtype)) return e;
  const Expr &a = op->a, &b = op->b;
  Compare r = compare(a, b);
  if (r == Compare::LT) return intImm(1, e->dtype);
  if (r == Compare::EQ || r == Compare::GT || r == Compare::GE) return intImm(0, e->dtype);

  // The rules below solve a < b over the integers: they hold where the + - * at the top of a and
  // b cannot wrap, and build no constant outside the dtype (litFit).
  bool exactA = noWrap(a), exactB = noWrap(b);
  const auto *addA = asOp(a, NodeKind::Add), *addB = asOp(b, NodeKind::Add);
  const auto *subA = asOp(a, NodeKind::Sub), *subB = asOp(b, NodeKind::Sub);
  // x + y < x + z (any order of the sums) -> y < z
  if (addA && addB && exactA && exactB) {
    if (same(addA->a, addB->a)) return lt(addA->b, addB->b);
    if (same(addA->a, addB->b)) return lt(addA->b, addB->a);
    if (same(addA->b, addB->a)) return lt(addA->a, addB->b);
    if (same(addA->b, addB->b)) return lt(addA->a, addB->a);
  }
  if (subA && subB && exactA && exactB) {
    if (same(subA->b, subB->b)) return lt(subA->a, subB->a);  // y - x < z - x -> y < z
    if (same(subA->a, subB->a)) return lt(subB->b, subA->b);  // x - y < x - z -> z < y
  }
  Expr zero = lit(0, a);
  if (addB && exactB && same(a, addB->a)) return lt(zero, addB->b);  // x < x + z -> 0 < z
  if (addB && exactB && same(a, addB->b)) return lt(zero, addB->a);  // x < z + x -> 0 < z
  if (subB && exactB && same(a, subB->a)) return lt(subB->b, zero);  // x < x - z -> z < 0

  const auto *mulA = asOp(a, NodeKind::Mul), *mulB = asOp(b, NodeKind::Mul);
  auto ca = asConstInt(a), cb = asConstInt(b);
  // x * c1 < y * c1
  if (mulA && mulB && exactA && exactB) {
    auto c1 = asConstInt(mulA->b), c2 = asConstInt(mulB->b);
    if (c1 && c2 && *c1 == *c2 && *c1 > 0) return lt(mulA->a, mulB->a);
    if (c1 && c2 && *c1 == *c2 && *c1 < 0) return lt(mulB->a, mulA->a);
  }
  // x * c2 < c1, with truncating division as TVM's rules: x < k for c2 > 0, k < x for c2 < 0.
  if (mulA && cb && exactA) {
    if (auto c2 = asConstInt(mulA->b); c2 && *c2 != 0) {
      __int128 c1 = *cb, d = *c2;
      __int128 k = d > 0 ? (c1 > 0 ? (c1 - 1) / d + 1 : c1 / d) : (c1 > 0 ? (c1 - 1) / d - 1 : c1 / d);
      const Expr &x = mulA->a;
      if (Expr bound = litFit(k, x)) return d > 0 ? lt(x, bound) : lt(bound, x);
    }
  }
  // c1 < x * c2: k < x for c2 > 0, x < k for c2 < 0.
  if (mulB && ca && exactB) {
    if (auto c2 = asConstInt(mulB->b); c2 && *c2 != 0) {
      __int128 c1 = *ca, d = *c2;
      __int128 k = d > 0 ? (c1 < 0 ? (c1 + 1) / d - 1 : c1 / d) : (c1 < 0 ? (c1 + 1) / d + 1 : c1 / d);
      const Expr &x = mulB->a;
      if (Expr bound = litFit(k, x)) return d > 0 ? lt(bound, x) : lt(x, bound);
    }
  }
  // truncdiv(x, c1) < c2 and c1 < truncdiv(x, c2)
  if (const auto *div = asOp(a, NodeKind::Div); div && cb) {
    auto c1 = asConstInt(div->b);
    __int128 c2 = *cb;
    if (c1 && *c1 > 0)
      if (Expr bound = litFit(c2 > 0 ? *c1 * c2 : *c1 * (c2 - 1) + 1, a)) return lt(div->a, bound);
  }
  if (const auto *div = asOp(b, NodeKind::Div); div && ca) {
    auto c2 = asConstInt(div->b);
    __int128 c1 = *ca;
    if (c2 && *c2 > 0)
      if (Expr bound = litFit(c1 >= 0 ? (c1 + 1) * *c2 - 1 : c1 * *c2, b)) return lt(bound, div->a);
  }
  // floordiv(x, c1) < c2 -> x < c1 * c2; c1 < floordiv(x, c2) -> (c1 + 1) * c2 - 1 < x
  if (const auto *div = asOp(a, NodeKind::FloorDiv); div && cb) {
    if (auto c1 = asConstInt(div->b); c1 && *c1 > 0)
      if (Expr bound = litFit(__int128(*c1) * *cb, a)) return lt(div->a, bound);
  }
  if (const auto *div = asOp(b, NodeKind::FloorDiv); div && ca) {
    if (auto c2 = asConstInt(div->b); c2 && *c2 > 0)
      if (Expr bound = litFit((__int128(*ca) + 1) * *c2 - 1, b)) return lt(bound, div->a);
  }
  // min/max against a value become disjunctions/conjunctions (recurse).
  if (const auto *m = asOp(a, NodeKind::Min)) return recurse(node(NodeKind::Or, lt(m->a, b), lt(m->b, b)));
  if (const auto *m = asOp(a, NodeKind::Max)) return recurse(node(NodeKind::And, lt(m->a, b), lt(m->b, b)));
  if (const auto *m = asOp(b, NodeKind::Min)) return recurse(node(NodeKind::And, lt(a, m->a), lt(a, m->b)));
  if (const auto *m = asOp(b, NodeKind::Max)) return recurse(node(NodeKind::Or, lt(a, m->a), lt(a, m->b)));
  // Constants to one side (recurse).
  auto constantA = [](const BinaryExpr *op) { return op ? asConstInt(op->a) : std::nullopt; };
  auto constantB = [](const BinaryExpr *op) { return op ? asConstInt(op->b) : std::nullopt; };
  if (ca && exactB)
    if (auto c2 = constantB(addB))  // c1 < x + c2
      if (Expr k = litFit(__int128(*ca) - *c2, a)) return recurse(lt(k, addB->a));
  if (cb && exactA)
    if (auto c1 = constantA(subA))  // c1 - x < c2
      if (Expr k = litFit(__int128(*c1) - *cb, a)) return recurse(lt(k, subA->b));
  if (ca && exactB)
    if (auto c2 = constantA(subB))  // c1 < c2 - x
      if (Expr k = litFit(__int128(*c2) - *ca, a)) return recurse(lt(subB->b, k));
  if (cb && exactA)
    if (auto c1 = constantB(addA))  // x + c1 < c2
      if (Expr k = litFit(__int128(*cb) - *c1, a)) return recurse(lt(addA->a, k));
  if (ca && exactB)
    if (auto c2 = constantB(subB))  // c1 < x - c2
      if (Expr k = litFit(__int128(*ca) + *c2, a)) return recurse(lt(k, subB->a));
  if (cb && exactA)
    if (auto c2 = constantB(subA))  // x - c2 < c1
      if (Expr k = litFit(__int128(*cb) + *c2, a)) return recurse(lt(subA->a, k));
  if (constantA(subB) && exactB && fits(NodeKind::Add, a, subB->b))
    return recurse(lt(addExpr(a, subB->b), subB->a));  // x < c1 - y
  if (constantA(subA) && exactA && fits(NodeKind::Add, b, subA->b))
    return recurse(lt(subA->a, addExpr(b, subA->b)));  // c1 - y < x
  if (constantA(addB) && exactB && fits(NodeKind::Sub, a, addB->b))
    return recurse(lt(subExpr(a, addB->b), addB->a));  // x < c1 + y
  if (constantA(addA) && exactA && fits(NodeKind::Sub, b, addA->b))
    return recurse(lt(addA->a, subExpr(b, addA->b)));  // c1 + y < x
  // Merge the constant offsets of both sides.
  auto [lhs, lhsOffset] = splitConstantOffset(a);
  auto [rhs, rhsOffset] = splitConstantOffset(b);
  if ((lhsOffset != 0 || rhsOffset != 0) && exactA && exactB) {
    __int128 diff = __int128(rhsOffset) - lhsOffset;
    if (diff == 0) return recurse(lt(lhs, rhs));
    if (diff == 1) return recurse(le(lhs, rhs));
    if (Expr k = litFit(diff < 0 ? -diff : diff, a)) {
      if (diff < 0 && rhsOffset != 0 && fits(NodeKind::Add, lhs, k)) return recurse(lt(addExpr(lhs, k), rhs));
      if (diff > 0 && lhsOffset != 0 && fits(NodeKind::Add, rhs, k)) return recurse(lt(lhs, addExpr(rhs, k)));
    }
  }
  // A common factor of both sides divides out.
  int64_t factor = gcdInt(commonDivisor(a), commonDivisor(b));
  if (factor > 1 && exactA && exactB)
    return recurse(lt(floorDivExpr(a, lit(factor, a)), floorDivExpr(b, lit(factor, b))));
  return e;
}

bool Simplifier::fits(NodeKind kind, const Expr &x, const Expr &y) {
  return x->dtype.isInt() && !mayLeaveType(kind, analyzer_.constIntBound(x), analyzer_.constIntBound(y), x->dtype);
}

bool Simplifier::noWrap(const Expr &e) {
  const auto *bin = e.as<BinaryExpr>();
  if (!bin || (bin->kind() != NodeKind::Add && bin->kind() != NodeKind::Sub && bin->kind() != NodeKind::Mul)) return true;
  return fits(bin->kind(), bin->a, bin->b) && noWrap(bin->a) && noWrap(bin->b);
}

Expr Simplifier::rewriteEQ(const Expr &e) {
  const auto *op = asOp(e, NodeKind::EQ);
  if (!op) return e;
  const Expr &a = op->a, &b = op->b;
  Expr yes = intImm(1, e->dtype), no = intImm(0, e->dtype);
  if (!isIndexType(a->dtype)) return same(a, b) && !a->dtype.isFloat() ? yes : e;
  Compare r = compare(a, b);
  if (r == Compare::EQ) return yes;
  if (r == Compare::NE || r == Compare::GT || r == Compare::LT) return no;
  auto ca = asConstInt(a), cb = asConstInt(b);
  NodeKind eq = NodeKind::EQ;
  if (ca) return node(eq, b, a);  // c1 == x -> x == c1
  if (cb) {
    // Adding a constant is a bijection modulo 2^bits, so these hold where the sums wrap too, with
    // the new constant wrapped into the type (x + INT32_MIN == 0 is x == INT32_MIN).
    auto wrapped = [&](NodeKind kind, int64_t x, int64_t y) { return tryConstFold(kind, lit(x, a), lit(y, a)); };
    if (const auto *sub = asOp(a, NodeKind::Sub)) {
      if (auto c1 = asConstInt(sub->b)) return node(eq, sub->a, wrapped(NodeKind::Add, *cb, *c1));  // x - c1 == c2
      if (auto c1 = asConstInt(sub->a)) return node(eq, sub->b, wrapped(NodeKind::Sub, *c1, *cb));  // c1 - x == c2
    }
    if (const auto *add = asOp(a, NodeKind::Add))
      if (auto c1 = asConstInt(add->b)) return node(eq, add->a, wrapped(NodeKind::Sub, *cb, *c1));  // x + c1 == c2
    // x * c == 0 -> x == 0 for an odd c: multiplying by it is a bijection modulo 2^bits, so
    // this holds where the product wraps too (TVM's floormod(-i, 2) == 0 is floormod(i, -2) * -1).
    if (const auto *mul = asOp(a, NodeKind::Mul); mul && *cb == 0)
      if (auto c = asConstInt(mul->b); c && (*c & 1)) return recurse(node(eq, mul->a, lit(0, a)));
    // x * y == 0 (recurse), only where the product cannot wrap: -2^31 * 2 is 0 in int32.
    if (const auto *mul = asOp(a, NodeKind::Mul); mul && *cb == 0 && fits(NodeKind::Mul, mul->a, mul->b))
      return recurse(node(NodeKind::Or, node(eq, mul->a, lit(0, a)), node(eq, mul->b, lit(0, a))));
  }
  return same(a, b) ? yes : e;
}

Expr Simplifier::rewriteNot(const Expr &e) {
  const auto *op = e.as<Not>();
  if (!op) return e;
  const Expr &x = op->a;
  if (const auto *inner = x.as<Not>()) return inner->a;
  if (const auto *bin = x.as<BinaryExpr>()) {
    switch (bin->kind()) {
    case NodeKind::LE: return lt(bin->b, bin->a);
    case NodeKind::GE: return lt(bin->a, bin->b);
    case NodeKind::LT: return le(bin->b, bin->a);
    case NodeKind::GT: return le(bin->a, bin->b);
    case NodeKind::EQ: return node(NodeKind::NE, bin->a, bin->b);
    case NodeKind::NE: return node(NodeKind::EQ, bin->a, bin->b);
    case NodeKind::Or: return recurse(node(NodeKind::And, notExpr(bin->a), notExpr(bin->b)));
    case NodeKind::And: return recurse(node(NodeKind::Or, notExpr(bin->a), notExpr(bin->b)));
    default: break;
    }
  }
  return e;
}

// x OP c for a comparison OP against a literal on either side, as a closed interval test:
// the set of x it accepts is [lo, hi] (one end may be infinite).
namespace {
struct IntervalTest {
  Expr x;
  int64_t lo = IntBound::kNegInf, hi = IntBound::kPosInf;
};
std::optional<IntervalTest> asIntervalTest(const Expr &e) {
  const auto *bin = e.as<BinaryExpr>();
  if (!bin || !isIndexType(bin->a->dtype)) return std::nullopt;
  auto ca = asConstInt(bin->a), cb = asConstInt(bin->b);
  if (ca == cb || (ca && cb)) return std::nullopt;
  IntervalTest t;
  switch (bin->kind()) {
  case NodeKind::LT: if (cb) t = {bin->a, IntBound::kNegInf, *cb - 1}; else t = {bin->b, *ca + 1, IntBound::kPosInf}; break;
  case NodeKind::LE: if (cb) t = {bin->a, IntBound::kNegInf, *cb}; else t = {bin->b, *ca, IntBound::kPosInf}; break;
  case NodeKind::EQ: t = {cb ? bin->a : bin->b, cb ? *cb : *ca, cb ? *cb : *ca}; break;
  default: return std::nullopt;
  }
  return t;
}
// x != c for a literal c on either side.
std::optional<std::pair<Expr, int64_t>> asNotEqualTest(const Expr &e) {
  const auto *bin = e.as<BinaryExpr>();
  if (!bin || bin->kind() != NodeKind::NE || !isIndexType(bin->a->dtype)) return std::nullopt;
  auto ca = asConstInt(bin->a), cb = asConstInt(bin->b);
  if (ca.has_value() == cb.has_value()) return std::nullopt;
  return std::make_pair(cb ? bin->a : bin->b, cb ? *cb : *ca);
}
// An interval test of x that excludes c implies x != c (x == 20 implies x != 30).
bool impliesNotEqual(const std::optional<IntervalTest> &t, const Expr &ne) {
  auto n = asNotEqualTest(ne);
  return t && n && same(t->x, n->first) && (n->second < t->lo || n->second > t->hi);
}
}  // namespace

Expr Simplifier::rewriteAnd(const Expr &e) {
  const auto *op = asOp(e, NodeKind::And);
  if (!op) return e;
  const Expr &a = op->a, &b = op->b;
  Expr no = intImm(0, e->dtype);
  if (same(a, b)) return a;
  if (const auto *n = b.as<Not>(); n && same(n->a, a)) return no;  // x && !x
  if (const auto *n = a.as<Not>(); n && same(n->a, b)) return no;
  // Contradicting tests of one value: x < c1 && c2 < x with no integer between, x == c1 && x == c2.
  auto ta = asIntervalTest(a), tb = asIntervalTest(b);
  if (ta && tb && same(ta->x, tb->x) && std::max(ta->lo, tb->lo) > std::min(ta->hi, tb->hi)) return no;
  if (impliesNotEqual(ta, b)) return a;  // x == c1 && x != c2 -> x == c1
  if (impliesNotEqual(tb, a)) return b;
  // x <= y && y < x
  const auto *ba = a.as<BinaryExpr>(), *bb = b.as<BinaryExpr>();
  if (ba && bb && same(ba->a, bb->b) && same(ba->b, bb->a) &&
      ((ba->kind() == NodeKind::LE && bb->kind() == NodeKind::LT) || (ba->kind() == NodeKind::LT && bb->kind() == NodeKind::LE)))
    return no;
  if (ba && bb && ((ba->kind() == NodeKind::EQ && bb->kind() == NodeKind::NE) || (ba->kind() == NodeKind::NE && bb->kind() == NodeKind::EQ)) &&
      same(ba->a, bb->a) && same(ba->b, bb->b))
    return no;
  // x && (y && z) -> (x && y) && z (recurse)
  if (const auto *inner = asOp(b, NodeKind::And))
    return recurse(node(NodeKind::And, node(NodeKind::And, a, inner->a), inner->b));
  return e;
}

Expr Simplifier::rewriteOr(const Expr &e) {
  const auto *op = asOp(e, NodeKind::Or);
  if (!op) return e;
  const Expr &a = op->a, &b = op->b;
  Expr yes = intImm(1, e->dtype);
  if (same(a, b)) return a;
  if (const auto *n = b.as<Not>(); n && same(n->a, a)) return yes;  // x || !x
  if (const auto *n = a.as<Not>(); n && same(n->a, b)) return yes;
  // Tests of one value whose intervals together cover all the value can be.
  auto ta = asIntervalTest(a), tb = asIntervalTest(b);
  if (impliesNotEqual(ta, b)) return b;  // x == c1 || x != c2 -> x != c2
  if (impliesNotEqual(tb, a)) return a;
  if (ta && tb && same(ta->x, tb->x)) {
    IntBound range = analyzer_.constIntBound(ta->x);
    const IntervalTest &first = ta->lo <= tb->lo ? *ta : *tb, &second = ta->lo <= tb->lo ? *tb : *ta;
    bool contiguous = first.hi == IntBound::kPosInf || second.lo <= first.hi + 1;
    if (contiguous && first.lo <= range.min && std::max(first.hi, second.hi) >= range.max) return yes;
  }
  const auto *ba = a.as<BinaryExpr>(), *bb = b.as<BinaryExpr>();
  if (ba && bb && same(ba->a, bb->b) && same(ba->b, bb->a) &&
      ((ba->kind() == NodeKind::LE && bb->kind() == NodeKind::LT) || (ba->kind() == NodeKind::LT && bb->kind() == NodeKind::LE)))
    return yes;
  if (ba && bb && ((ba->kind() == NodeKind::EQ && bb->kind() == NodeKind::NE) || (ba->kind() == NodeKind::NE && bb->kind() == NodeKind::EQ)) &&
      same(ba->a, bb->a) && same(ba->b, bb->b))
    return yes;
  if (const auto *inner = asOp(b, NodeKind::Or))
    return recurse(node(NodeKind::Or, node(NodeKind::Or, a, inner->a), inner->b));
  return e;
}

}  // namespace vtac::ir::arith
