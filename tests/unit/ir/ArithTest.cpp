// TVM operator semantics: folding, type matching, linear simplification, slice ranges.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "IRTestUtil.h"
#include "vtac/ir/Arith.h"

using namespace vtac::ir;
using namespace vtac::ir::test;

TEST_CASE("literals fold", "[ir][arith]") {
  CHECK(asConstInt(mulExpr(i32(16), i32(16))) == 256);
  CHECK(asConstInt(floorDivExpr(i32(-7), i32(2))) == -4);
  CHECK(asConstInt(floorModExpr(i32(-7), i32(2))) == 1);
  CHECK(asConstInt(makeBinary(NodeKind::Div, i32(-7), i32(2))) == -3);
  CHECK(asConstInt(makeBinary(NodeKind::Mod, i32(-7), i32(2))) == -1);
  CHECK(asConstInt(makeBinary(NodeKind::Max, i32(3), i32(9))) == 9);
  Expr lt = makeBinary(NodeKind::LT, i32(1), i32(2));
  CHECK(lt->dtype == DataType::boolTy());
  CHECK(asConstInt(lt) == 1);
  // int8 arithmetic wraps like the hardware type.
  CHECK(asConstInt(addExpr(intImm(127, DataType::intTy(8)), intImm(1, DataType::intTy(8)))) == -128);
  Expr sum = addExpr(f32(1.5), f32(2.0));
  REQUIRE(sum.isa<FloatImm>());
  CHECK(sum.as<FloatImm>()->value == 3.5);
}

// Issue 26: floats fold in their own precision (inf past the range), min/max as TVM's LLVM
// select, integer division wraps.
static double folded(NodeKind kind, Expr a, Expr b) {
  Expr result = makeBinary(kind, std::move(a), std::move(b));
  REQUIRE(result.isa<FloatImm>());
  return result.as<FloatImm>()->value;
}

TEST_CASE("floats fold in their own precision, min and max as TVM's select", "[ir][arith]") {
  CHECK(folded(NodeKind::Sub, addExpr(f32(16777216), f32(1)), f32(16777216)) == 0.0);
  DataType f64 = DataType::floatTy(64);
  CHECK(folded(NodeKind::Sub, addExpr(floatImm(16777216, f64), floatImm(1, f64)), floatImm(16777216, f64)) == 1.0);
  CHECK(std::isinf(folded(NodeKind::Mul, f32(3e38), f32(10))));
  DataType f16 = DataType::floatTy(16);
  CHECK(std::isinf(folded(NodeKind::Mul, floatImm(1000, f16), floatImm(1000, f16))));
  CHECK(folded(NodeKind::Add, floatImm(1, f16), floatImm(0.0001, f16)) == 1.0);
  double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(folded(NodeKind::Max, f32(nan), f32(1)) == 1.0);
  CHECK(std::isnan(folded(NodeKind::Max, f32(1), f32(nan))));
  CHECK(folded(NodeKind::Min, f32(nan), f32(1)) == 1.0);
  CHECK(std::isnan(folded(NodeKind::Min, f32(1), f32(nan))));
  Expr int64Min = intImm(INT64_MIN, DataType::int64()), minusOne = intImm(-1, DataType::int64());
  CHECK(asConstInt(makeBinary(NodeKind::Div, int64Min, minusOne)) == INT64_MIN);
  CHECK(asConstInt(makeBinary(NodeKind::Mod, int64Min, minusOne)) == 0);
}

TEST_CASE("identities with one literal side fold, others build nodes", "[ir][arith]") {
  VarRef x = makeVar("x");
  CHECK(addExpr(x, i32(0)) == x);
  CHECK(addExpr(i32(0), x) == x);
  CHECK(subExpr(x, i32(0)) == x);
  CHECK(mulExpr(x, i32(1)) == x);
  CHECK(isZero(mulExpr(x, i32(0))));
  CHECK(floorDivExpr(x, i32(1)) == x);
  CHECK(isZero(floorModExpr(x, i32(1))));
  VarRef c = makeVar("c", DataType::boolTy());
  CHECK(makeBinary(NodeKind::And, boolImm(true), c) == c);
  CHECK(isZero(makeBinary(NodeKind::And, boolImm(false), c)));
  CHECK(makeBinary(NodeKind::Or, boolImm(false), c) == c);
  CHECK(addExpr(x, i32(1)).isa<BinaryExpr>());
  CHECK(!tryConstFold(NodeKind::Sub, i32(0), x));
}

TEST_CASE("operands are brought to a common type", "[ir][arith]") {
  VarRef i8 = makeVar("a", DataType::intTy(8));
  VarRef i64 = makeVar("n", DataType::int64());
  VarRef f = makeVar("f", DataType::float32());
  Expr widened = addExpr(i8, makeVar("b", DataType::int32()));
  CHECK(widened->dtype == DataType::int32());
  CHECK(widened.as<BinaryExpr>()->a.isa<Cast>());
  // The narrower side converts; a literal becomes a literal of the wider type.
  Expr scaled = mulExpr(i64, i32(4));
  CHECK(scaled->dtype == DataType::int64());
  CHECK(scaled.as<BinaryExpr>()->b.as<IntImm>()->dtype == DataType::int64());
  CHECK(addExpr(f, i32(1))->dtype == DataType::float32());
  Expr mixed = addExpr(makeVar("u", DataType::uintTy(32)), makeVar("s", DataType::int32()));
  CHECK(mixed->dtype == DataType::uintTy(32));
  CHECK(castExpr(DataType::intTy(8), i32(300)).as<IntImm>()->value == 44);
  CHECK(castExpr(DataType::int32(), i8).isa<Cast>());
  VarRef same = makeVar("s");
  CHECK(castExpr(DataType::int32(), same) == same);
}

TEST_CASE("simplify puts integer arithmetic in linear canonical form", "[ir][arith]") {
  VarRef i = makeVar("i"), j = makeVar("j");
  CHECK(asConstInt(simplify(subExpr(addExpr(i, i32(3)), i))) == 3);
  Expr start = mulExpr(i, i32(16));
  CHECK(asConstInt(simplify(subExpr(addExpr(start, i32(16)), start))) == 16);
  // (j + 2 * i) - (i - 1) == j + i + 1, terms in order of first appearance.
  Expr e = subExpr(addExpr(j, mulExpr(i32(2), i)), subExpr(i, i32(1)));
  Expr s = simplify(e);
  CHECK(structuralEqual(s, addExpr(addExpr(j, i), i32(1))));
  CHECK(structuralEqual(simplify(subExpr(i, mulExpr(j, i32(3)))), subExpr(i, mulExpr(j, i32(3)))));
  // Non-linear parts are atoms.
  Expr q = floorDivExpr(i, i32(4));
  CHECK(asConstInt(simplify(subExpr(addExpr(q, i32(5)), floorDivExpr(i, i32(4))))) == 5);
}

TEST_CASE("slice ranges have simplified extents", "[ir][arith]") {
  VarRef vi = makeVar("vi");
  Expr start = mulExpr(vi, i32(16));
  Range r = rangeFromBeginEnd(start, addExpr(start, i32(16)));
  CHECK(r.min == start);
  CHECK(asConstInt(r.extent) == 16);
  VarRef n = makeVar("n");
  Range fromZero = rangeFromBeginEnd(i32(0), n);
  CHECK(fromZero.extent == n);
  CHECK(rangeFromBeginEnd(i32(2), addExpr(n, i32(2))).extent == n);
}

TEST_CASE("linear equations in chosen variables", "[ir][arith]") {
  VarRef i = makeVar("i"), j = makeVar("j"), n = makeVar("n");
  // (i * 16 + j) * 4 + n * 2 - 3 in (i, j): coefficients 64 and 4, base n * 2 - 3.
  Expr e = (i * 16 + j) * 4 + n * 2 - 3;
  auto eq = detectLinearEquation(e, {i, j});
  REQUIRE(eq);
  CHECK(eq->coeffs == std::vector<int64_t>{64, 4});
  CHECK(structuralEqual(eq->base, n * 2 - 3));
  // A variable that does not occur has coefficient 0; a constant expression is all base.
  auto constant = detectLinearEquation(i32(7), {i});
  REQUIRE(constant);
  CHECK(constant->coeffs == std::vector<int64_t>{0});
  CHECK(asConstInt(constant->base) == 7);
  // Not linear in i.
  CHECK(!detectLinearEquation(floorDivExpr(i, i32(2)) + j, {i, j}));
  CHECK(!detectLinearEquation(mulExpr(i, j), {i}));
  // Linear in j once i is not a target: i // 2 is part of the base.
  auto partial = detectLinearEquation(floorDivExpr(i, i32(2)) + j, {j});
  REQUIRE(partial);
  CHECK(partial->coeffs == std::vector<int64_t>{1});
  CHECK(printExpr(partial->base) == "i // 2");
}

TEST_CASE("expression operators follow the operator semantics", "[ir][arith]") {
  VarRef i = makeVar("i");
  VarRef n = makeVar("n", DataType::int64());
  CHECK(printExpr(i * 16 + 1) == "i * 16 + 1");
  CHECK(i + 0 == i);
  Expr wide = n - 1;
  CHECK(wide->dtype == DataType::int64());
  CHECK(printExpr(wide) == "n - T.int64(1)");
  CHECK(asConstInt(i32(3) * i32(5)) == 15);
}

TEST_CASE("integer folding at the edges of int64 wraps and never traps", "[ir][arith]") {
  const int64_t min = std::numeric_limits<int64_t>::min();
  CHECK(exactIntArith(NodeKind::FloorDiv, min, -1) == std::nullopt);
  CHECK(exactIntArith(NodeKind::Div, min, -1) == std::nullopt);
  CHECK(exactIntArith(NodeKind::Mod, min, -1) == 0);
  CHECK(exactIntArith(NodeKind::FloorMod, -7, 2) == 1);
  CHECK(exactIntArith(NodeKind::FloorDiv, -7, 2) == -4);
  CHECK(exactIntArith(NodeKind::Mul, int64_t(1) << 62, 2) == std::nullopt);
  CHECK(exactIntArith(NodeKind::Mul, 2147483647, 3) == 6442450941);
  CHECK(exactIntArith(NodeKind::Div, 1, 0) == std::nullopt);
  Expr wrapped = tryConstFold(NodeKind::Div, intImm(min, DataType::int64()), intImm(-1, DataType::int64()));
  CHECK(asConstInt(wrapped) == min);
  Expr int32Product = tryConstFold(NodeKind::Mul, intImm(2147483647), intImm(3));
  CHECK(asConstInt(int32Product) == 2147483645);
  CHECK(fitsIntType(6442450941, DataType::int64()));
  CHECK_FALSE(fitsIntType(6442450941, DataType::int32()));
}
