// The arithmetic analyzer: each expected form is TVM's (tests/python/arith/
// test_arith_canonical_simplify.py, test_arith_rewrite_simplify.py, test_arith_simplify.py),
// written as vtac prints it.
#include <catch2/catch.hpp>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/arith/Analyzer.h"

using namespace vtac::ir;
using vtac::ir::arith::Analyzer;
using vtac::ir::arith::IntBound;

namespace {

Expr c(int64_t v) { return intImm(v); }
Expr bin(NodeKind k, const Expr &a, const Expr &b) { return make<BinaryExpr>(k, a, b); }
Expr fdiv(const Expr &a, int64_t b) { return bin(NodeKind::FloorDiv, a, c(b)); }
Expr fmod(const Expr &a, int64_t b) { return bin(NodeKind::FloorMod, a, c(b)); }
Expr tdiv(const Expr &a, int64_t b) { return bin(NodeKind::Div, a, c(b)); }
Expr tmod(const Expr &a, int64_t b) { return bin(NodeKind::Mod, a, c(b)); }
Expr lt(const Expr &a, const Expr &b) { return bin(NodeKind::LT, a, b); }
Expr minE(const Expr &a, const Expr &b) { return bin(NodeKind::Min, a, b); }
Expr maxE(const Expr &a, const Expr &b) { return bin(NodeKind::Max, a, b); }

std::string canonical(Analyzer &ana, const Expr &e) { return printExpr(ana.canonicalSimplify(e)); }
std::string simplified(Analyzer &ana, const Expr &e) { return printExpr(ana.simplify(e)); }

}  // namespace

TEST_CASE("canonical sums: terms by decreasing scale, constant after the positive terms", "[arith]") {
  Analyzer ana;
  VarRef x = makeVar("x"), y = makeVar("y"), z = makeVar("z");
  CHECK(canonical(ana, c(2) + (x * 3 + z + y + 1) * 4 + x) == "x * 13 + z * 4 + y * 4 + 6");
  CHECK(canonical(ana, x * 3 - x * 4 + 1) == "1 - x");
  CHECK(canonical(ana, y + x * 3 - x * 5 + 1 + y) == "y * 2 + 1 - x * 2");
  CHECK(canonical(ana, tmod(x + y + x + y * 3, 2)) == "0");
  CHECK(canonical(ana, fmod(x + x + y * 3, 2)) == "y * 3 % 2");
}

TEST_CASE("canonical divisions: exact only where the dividend cannot wrap", "[arith]") {
  Analyzer ana;
  VarRef x = makeVar("x"), y = makeVar("y");
  // vtac's departure from TVM (docs/design.md): int32 wraps, and (x + x) // 2 is not x when x + x
  // wraps (x = 2^30 gives -2^30). Unbounded variables keep the division...
  CHECK(canonical(ana, fdiv(x + y + x + y * 3, 2)) == "(y * 4 + x * 2) // 2");
  CHECK(canonical(ana, tdiv(x + y + x + y * 3, 2)) == "T.Div(y * 4 + x * 2, 2)");
  CHECK(canonical(ana, fmod(x + y + x + y * 3, 3)) == "(y * 4 + x * 2) % 3");
  // ...a floor modulo by a power of two is exact under wrap (2^32 is a multiple of it)...
  CHECK(canonical(ana, fmod(x * 3 + y * 4 + 5, 4)) == "(x * 3 + 1) % 4");
  // ...and index variables, TVM's case, simplify as TVM does.
  ana.bind(x, Range{c(0), c(1024)});
  ana.bind(y, Range{c(0), c(1024)});
  CHECK(canonical(ana, tdiv(x + y + x + y * 3, 2)) == "y * 2 + x");
  CHECK(canonical(ana, fdiv(x + y + x + y * 3, 2)) == "y * 2 + x");
  CHECK(canonical(ana, fdiv(x + x + y * 3, 2)) == "y * 3 // 2 + x");
}

TEST_CASE("canonical splits: divisions and modulos of one index merge back", "[arith]") {
  Analyzer ana;
  VarRef x = makeVar("x");
  CHECK(canonical(ana, fdiv(x, 3) * 3 + fmod(x, 3)) == "x");
  CHECK(canonical(ana, fdiv(x, 6) * 6 + fmod(fdiv(x, 3), 2) * 3 + fmod(x, 3)) == "x");
  CHECK(canonical(ana, fdiv(fdiv(fmod(x, 16), 2) * 2, 4)) == "x % 16 // 4");
  CHECK(canonical(ana, fdiv(fmod(x, 2), 8)) == "0");
  CHECK(canonical(ana, fdiv(fdiv(fmod(x, 16), 2) * 2, 6)) == "x % 16 // 6");
  CHECK(canonical(ana, fdiv(x * 5, 2)) == "x * 5 // 2");
  CHECK(canonical(ana, tdiv(x, 3) * 3 + tmod(x, 3)) == "x");
  CHECK(canonical(ana, tmod(x * 8, 2)) == "0");
}

TEST_CASE("division by a constant uses the bounds of the remainder", "[arith]") {
  Analyzer ana;
  VarRef x = makeVar("x"), y = makeVar("y");
  // (17 + 48 * x) / 16 needs x >= 0 for truncating division.
  CHECK(canonical(ana, tdiv(c(17) + x * 48, 16)) == "T.Div(x * 48 + 17, 16)");
  ana.bind(x, Range{c(0), c(11)});
  CHECK(canonical(ana, tdiv(c(17) + x * 48, 16)) == "x * 3 + 1");
  CHECK(canonical(ana, fdiv(c(17) + x * 48, 16)) == "x * 3 + 1");
  // TVM's index identity: (x * 16 + y) // 16 == x and (x * 16 + y) % 16 == y for y in [0, 16).
  ana.bind(y, Range{c(0), c(16)});
  CHECK(canonical(ana, fdiv(x * 16 + y, 16)) == "x");
  CHECK(canonical(ana, fmod(x * 16 + y, 16)) == "y");
  CHECK(canonical(ana, fdiv(y, 16)) == "0");
  CHECK(canonical(ana, fmod(y, 16)) == "y");
}

TEST_CASE("a bound the simplifier uses without substituting the variable", "[arith]") {
  Analyzer ana;
  VarRef o = makeVar("o"), i = makeVar("i");
  ana.updateBound(o, IntBound{0, 0});
  ana.bind(i, Range{c(0), c(8)});
  CHECK(simplified(ana, o + 0) == "o");  // bind(o, [0, 1)) would make it 0
  CHECK(canonical(ana, fdiv(o * 8 + i, 8)) == "o");
  CHECK(canonical(ana, fmod(o * 8 + i, 8)) == "i");
}

TEST_CASE("constant bounds by interval arithmetic", "[arith]") {
  Analyzer ana;
  VarRef i = makeVar("i"), j = makeVar("j"), n = makeVar("n");
  ana.bind(i, Range{c(0), c(16)});
  ana.bind(j, Range{c(2), c(4)});
  IntBound b = ana.constIntBound(i * 4 + j);
  CHECK(b.min == 2);
  CHECK(b.max == 65);
  b = ana.constIntBound(fmod(n, 8));
  CHECK(b.min == 0);
  CHECK(b.max == 7);
  b = ana.constIntBound(fdiv(i, 4) - j);
  CHECK(b.min == -5);
  CHECK(b.max == 1);
  b = ana.constIntBound(n);
  CHECK(b.min == -(int64_t(1) << 31));
  CHECK(ana.constIntBound(intImm(5, DataType::int64()) * makeVar("m", DataType::int64())).max == IntBound::kPosInf);
  // A sum that may leave int32 wraps, so it can take any int32 value.
  b = ana.constIntBound(c(2147483600) + i * 4);
  CHECK(b.min == -(int64_t(1) << 31));
  CHECK(b.max == (int64_t(1) << 31) - 1);
}

TEST_CASE("comparisons decided by bounds, otherwise normalised", "[arith]") {
  Analyzer ana;
  VarRef i = makeVar("i"), x = makeVar("x"), y = makeVar("y");
  ana.bind(i, Range{c(0), c(16)});
  CHECK(ana.canProve(lt(i, c(16))));
  CHECK_FALSE(ana.canProve(lt(i, c(15))));
  CHECK(simplified(ana, lt(c(16), i)) == "T.bool(False)");
  CHECK(simplified(ana, bin(NodeKind::GE, i, c(1))) == "1 <= i");
  // The rules solve comparisons over the integers, so only where the operands cannot wrap.
  CHECK(simplified(ana, lt(x + 1, c(7))) == "x + 1 < 7");
  ana.bind(x, Range{c(-1000), c(2000)});
  ana.bind(y, Range{c(-1000), c(2000)});
  CHECK(simplified(ana, lt(x + 1, c(7))) == "x < 6");
  CHECK(simplified(ana, lt(x * 2 + 1, c(7))) == "x < 3");
  CHECK(simplified(ana, lt(c(3), x - 2)) == "5 < x");
  CHECK(simplified(ana, lt(x + y, x + c(4))) == "y < 4");
  CHECK(simplified(ana, bin(NodeKind::EQ, c(3), x)) == "x == 3");
  CHECK(simplified(ana, bin(NodeKind::EQ, x - 2, c(5))) == "x == 7");
  CHECK(simplified(ana, notExpr(lt(x, y))) == "y <= x");
  CHECK(simplified(ana, lt(fdiv(x, 4), c(3))) == "x < 12");
}

TEST_CASE("min and max with known orders", "[arith]") {
  Analyzer ana;
  VarRef i = makeVar("i"), x = makeVar("x"), y = makeVar("y");
  ana.bind(i, Range{c(0), c(16)});
  CHECK(simplified(ana, minE(i, c(20))) == "i");
  CHECK(simplified(ana, maxE(i, c(0))) == "i");
  CHECK(simplified(ana, minE(x + 1, x + 3)) == "T.min(x + 1, x + 3)");  // x + 3 may wrap
  ana.bind(x, Range{c(-1000), c(2000)});
  CHECK(simplified(ana, minE(x + 1, x + 3)) == "x + 1");
  CHECK(simplified(ana, maxE(x, x + 2)) == "x + 2");
  CHECK(simplified(ana, minE(x, x)) == "x");
  CHECK(simplified(ana, minE(x, y)) == "T.min(x, y)");
}

TEST_CASE("logic: contradictions, tautologies and constraint scopes", "[arith]") {
  Analyzer ana;
  VarRef x = makeVar("x"), i = makeVar("i");
  Expr andE = bin(NodeKind::And, lt(x, c(3)), lt(c(5), x));
  CHECK(simplified(ana, andE) == "T.bool(False)");
  Expr orE = bin(NodeKind::Or, lt(x, c(6)), lt(c(5), x));
  CHECK(simplified(ana, orE) == "T.bool(True)");
  CHECK(simplified(ana, bin(NodeKind::Or, lt(x, c(3)), lt(c(5), x))) == "x < 3 or 5 < x");
  ana.bind(i, Range{c(0), c(16)});
  {
    Analyzer::ConstraintScope inIf(ana, lt(i, c(8)));
    CHECK(ana.canProve(lt(i, c(8))));
    CHECK(ana.constIntBound(i).max == 7);
    CHECK(simplified(ana, bin(NodeKind::GE, i, c(8))) == "T.bool(False)");
    Analyzer::ConstraintScope onX(ana, lt(x, i));
    CHECK(ana.canProve(lt(x, i)));
  }
  CHECK(ana.constIntBound(i).max == 15);
  CHECK_FALSE(ana.canProve(lt(x, i)));
}

TEST_CASE("bound variables and selects", "[arith]") {
  Analyzer ana;
  VarRef x = makeVar("x"), y = makeVar("y"), t = makeVar("t");
  ana.bind(t, x * 4);
  CHECK(simplified(ana, t + x) == "x * 5");
  // A range of one value binds the variable to it.
  ana.bind(y, Range{c(3), c(1)});
  CHECK(simplified(ana, y * 2) == "6");
  Expr select = make<Select>(lt(x, c(5)), tdiv(x, 1), x + 0);
  CHECK(simplified(ana, select) == "x");
  Expr guarded = make<Call>(DataType::int32(), "tir.if_then_else",
                            std::vector<Expr>{lt(x, c(5)), minE(x, c(10)), c(0)});
  CHECK(simplified(ana, guarded) == "T.if_then_else(x < 5, x, 0)");
}

TEST_CASE("a bounded remainder below the scale of the leading terms leaves the quotient", "[arith]") {
  Analyzer ana;
  VarRef x = makeVar("x"), y = makeVar("y"), z = makeVar("z");
  ana.bind(x, Range{c(0), c(1000)});
  ana.bind(y, Range{c(0), c(32)});
  ana.bind(z, Range{c(0), c(4)});
  // TVM's test_arith_rewrite_simplify TestFloordivIndex / TestFloormodIndex cases.
  CHECK(simplified(ana, fdiv(x * 32 + y, 64)) == "x // 2");
  CHECK(simplified(ana, fdiv(x * 128 + y * 4 + z, 512)) == "x // 4");
  CHECK(simplified(ana, fmod(x * 32 + y, 64)) == "x % 2 * 32 + y");
  CHECK(simplified(ana, fdiv(x * 4 + y, 2)) == "x * 2 + y // 2");
  CHECK(simplified(ana, fdiv(fdiv(x, 2), 3)) == "x // 6");
  CHECK(simplified(ana, fdiv(x * 8 + 39, 16)) == "x // 2 + 2");
  CHECK(simplified(ana, fmod(x * 8 + 39, 16)) == "x % 2 * 8 + 7");
  // Without a bounded remainder the constant stays inside (TVM's canonical form).
  CHECK(simplified(ana, fdiv(x + 17, 16)) == "(x + 17) // 16");
}

TEST_CASE("symbolic-bound proofs use the ends of symbolic ranges", "[arith]") {
  // TVM's ProofStrength::kSymbolicBound, as split asks it for a symbolic extent n * 32.
  Analyzer ana;
  VarRef n = makeVar("n"), ko = makeVar("ko"), ki = makeVar("ki");
  ana.bind(ko, Range{c(0), n});
  ana.bind(ki, Range{c(0), c(32)});
  Expr inBounds = lt(ko * 32 + ki, n * 32);
  CHECK_FALSE(ana.canProve(inBounds));
  CHECK(ana.canProve(inBounds, Analyzer::ProofStrength::SymbolicBound));
  // ko * 32 + ki reaches n * 32 + 31 - 32 = n * 32 - 1, not below n * 32 - 1.
  CHECK_FALSE(ana.canProve(lt(ko * 32 + ki, n * 32 - 1), Analyzer::ProofStrength::SymbolicBound));
  CHECK(ana.canProve(bin(NodeKind::LE, ko * 32 + ki, n * 32 - 1), Analyzer::ProofStrength::SymbolicBound));
  // The split of a symbolic extent by an inferred factor keeps its predicate.
  VarRef m = makeVar("m"), jo = makeVar("jo");
  ana.bind(jo, Range{c(0), fdiv(m + 31, 32)});
  CHECK_FALSE(ana.canProve(lt(jo * 32 + ki, m), Analyzer::ProofStrength::SymbolicBound));
}

TEST_CASE("a variable bound to a symbolic range compares with its ends", "[arith]") {
  // TVM keeps a bound range's ends as known comparisons: v in [0, n) settles v < n (the
  // predicate reverse_compute_inline would otherwise add for an extent n).
  Analyzer ana;
  VarRef n = makeVar("n"), v = makeVar("v");
  ana.bind(v, Range{c(0), n});
  CHECK(simplified(ana, lt(v, n)) == "T.bool(True)");
  CHECK(simplified(ana, lt(v, n + 1)) == "T.bool(True)");
  CHECK(simplified(ana, bin(NodeKind::GE, v, c(0))) == "T.bool(True)");
  CHECK(simplified(ana, lt(n, v)) == "T.bool(False)");
  CHECK(simplified(ana, bin(NodeKind::LE, n, v)) == "T.bool(False)");
  // v reaches n - 1: neither v < n - 1 nor its negation follows; n - 1 may wrap (n unbounded),
  // so the constant does not move to v's side.
  CHECK(simplified(ana, lt(v, n - 1)) == "v < n - 1");
}

TEST_CASE("a floor division whose residue is one constant under the bounds is the quotient", "[arith]") {
  // TVM's rewrite rule for floordiv(x * c1 + y, c2): (x * c1 + y) // c2 ==
  // x * (c1 // c2) + y // c2 + (x * (c1 % c2) + y % c2) // c2, the last term a constant here
  // (test_arith_rewrite_simplify TestFloordivIndex).
  Analyzer ana;
  VarRef x = makeVar("x"), y = makeVar("y");
  ana.bind(x, Range{c(0), c(2)});
  ana.bind(y, Range{c(0), c(7)});
  CHECK(simplified(ana, fdiv(x * 360 + y, 16)) == "x * 22");
  CHECK(simplified(ana, fdiv(x * 360 + y, 25)) == "x * 14");
  CHECK(simplified(ana, fdiv(x * 360, 16)) == "x * 22");
  // The channel groups of compute_at's test_compute_at_non_perfect_channel_group: the last group
  // x * 360 + 359 needs is x * 22 + 22, so each x needs 23 of them.
  CHECK(simplified(ana, fdiv(x * 360 + 359, 16)) == "x * 22 + 22");
  CHECK(simplified(ana, fdiv(x * 360 + 359, 16) - fdiv(x * 360, 16)) == "22");
  // A negative scale: -360 == -23 * 16 + 8, and x * 8 // 16 is still 0.
  CHECK(simplified(ana, fdiv(c(720) - x * 360, 16)) == "45 - x * 23");
  // Where the residue takes two values the division stays (x in [0, 4): x * 8 reaches 24).
  VarRef w = makeVar("w");
  ana.bind(w, Range{c(0), c(4)});
  CHECK(simplified(ana, fdiv(w * 360, 16)) == "w * 360 // 16");
}

TEST_CASE("conjuncts split a condition at its ands; T.likely is looked through or kept", "[arith]") {
  VarRef x = makeVar("x"), y = makeVar("y"), z = makeVar("z");
  Expr hint = make<Call>(DataType::boolTy(), "tir.likely", std::vector<Expr>{bin(NodeKind::And, lt(y, c(3)), lt(z, c(2)))});
  Expr condition = bin(NodeKind::And, lt(x, c(4)), hint);
  std::vector<std::string> lookedThrough, kept;
  for (const Expr &e : vtac::ir::arith::conjuncts(condition, vtac::ir::arith::LikelyConjunct::LookThrough))
    lookedThrough.push_back(printExpr(e));
  for (const Expr &e : vtac::ir::arith::conjuncts(condition, vtac::ir::arith::LikelyConjunct::Keep))
    kept.push_back(printExpr(e));
  CHECK(lookedThrough == std::vector<std::string>{"x < 4", "y < 3", "z < 2"});
  CHECK(kept == std::vector<std::string>{"x < 4", "T.likely(y < 3 and z < 2)"});
  // A constraint scope takes the hint's condition as a fact.
  Analyzer ana;
  Analyzer::ConstraintScope scope(ana, condition);
  CHECK(ana.constIntBound(z).max == 1);
}
