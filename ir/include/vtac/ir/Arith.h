// Expression building with TVM's operator semantics, constant folding and a small linear
// simplifier.
//
// The frontend builds Python operators (`a + b`, `a // b`, `a < b`, `a and b`, T.Cast, ...)
// with these functions, as TVM's parser does with tvm.tir's operators: operands of different
// dtypes are first brought to a common type (int8 + int32 -> int32, int + float -> float,
// scalar + vector -> broadcast), then constants fold (`2 + 3` -> 5, `x + 0` -> x, `x * 1` -> x,
// `x // 1` -> x, `True and c` -> c, ...). The printer uses the same rule in reverse: it writes
// `a + b` only when addExpr(a, b) rebuilds that very node, and `T.Add(a, b)` otherwise, so
// printing and re-parsing reproduces the tree.
//
// simplify() puts integer expressions built from +, -, and * by constants into a canonical
// linear form (terms in order of first appearance, then the constant): `(i + 3) - i` -> 3.
// The frontend turns `begin:end` slices and `(begin, end)` domains into ranges with
// rangeFromBeginEnd(), which simplifies `end - begin` that way (TVM's Range(begin, end)).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "vtac/ir/Expr.h"

namespace vtac::ir {

// The operator of `kind` (a BinaryExpr kind) with type matching and folding.
Expr makeBinary(NodeKind kind, Expr a, Expr b, SourceLoc loc = {});
inline Expr addExpr(Expr a, Expr b, SourceLoc loc = {}) { return makeBinary(NodeKind::Add, std::move(a), std::move(b), loc); }
inline Expr subExpr(Expr a, Expr b, SourceLoc loc = {}) { return makeBinary(NodeKind::Sub, std::move(a), std::move(b), loc); }
inline Expr mulExpr(Expr a, Expr b, SourceLoc loc = {}) { return makeBinary(NodeKind::Mul, std::move(a), std::move(b), loc); }
inline Expr floorDivExpr(Expr a, Expr b, SourceLoc loc = {}) { return makeBinary(NodeKind::FloorDiv, std::move(a), std::move(b), loc); }
inline Expr floorModExpr(Expr a, Expr b, SourceLoc loc = {}) { return makeBinary(NodeKind::FloorMod, std::move(a), std::move(b), loc); }
Expr notExpr(Expr a, SourceLoc loc = {});
// T.Cast(dtype, value): value itself when it already has dtype; a literal of dtype when value
// is a literal; a Cast node otherwise.
Expr castExpr(DataType dtype, Expr value, SourceLoc loc = {});

// The folded result of `a <kind> b` when it folds (both literals, or an identity such as
// x + 0, x * 1, x * 0, x // 1, x % 1, True and x); null when a node would be built. Operands
// must already have matching dtypes.
Expr tryConstFold(NodeKind kind, const Expr &a, const Expr &b);

// The exact value of `x <kind> y` for the integer arithmetic kinds (Add, Sub, Mul, Min, Max,
// Div and Mod truncating, FloorDiv, FloorMod); nullopt when it does not fit in 64 bits, the
// divisor is zero or kind is not one of those. (tryConstFold wraps to the dtype instead, as
// the target computes; the frontend uses this to report overflow in the source.)
std::optional<int64_t> exactIntArith(NodeKind kind, int64_t x, int64_t y);

// Whether an integer dtype holds `value` unchanged.
bool fitsIntType(int64_t value, DataType dtype);

// Brings a and b to a common dtype as TVM's BinaryOpMatchTypes does.
void matchBinaryTypes(Expr &a, Expr &b);

// Integer literal value, if e is an IntImm (bools included).
std::optional<int64_t> asConstInt(const Expr &e);

// A buffer dimension `var * scale + offset` with a constant scale > 0, written `n`, `n * 32` or
// either plus or minus constants (`n * 32 + 1 - 2`).
struct ScaledVar {
  const Var *var;
  int64_t scale;
  int64_t offset;
};
std::optional<ScaledVar> asScaledVar(const Expr &e);
bool isConstInt(const Expr &e, int64_t value);
inline bool isZero(const Expr &e) { return isConstInt(e, 0); }
inline bool isOne(const Expr &e) { return isConstInt(e, 1); }

// Canonical linear form of integer arithmetic; other expressions have their operands
// simplified and literals folded.
Expr simplify(const Expr &e);

// Range with min `begin` and extent `end - begin` (simplified); extent is `end` itself when
// begin is literal zero.
Range rangeFromBeginEnd(Expr begin, Expr end);

// e == coeffs[0] * vars[0] + ... + coeffs[n-1] * vars[n-1] + base, with integer literal
// coefficients and a base that mentions none of `vars` (TVM's DetectLinearEquation, for
// integer expressions); nullopt when e is not of that form (a var under a division, a
// product of two vars, ...). The base is in simplify()'s canonical form.
struct LinearEquation {
  std::vector<int64_t> coeffs;
  Expr base;
};
std::optional<LinearEquation> detectLinearEquation(const Expr &e, const std::vector<VarRef> &vars);

// e / divisor, exactly: the linear form of e (terms of any atom, e.g. `max(1 - y, 0) * 224`)
// with every coefficient and the constant divided by `divisor`; nullopt when one of them is not
// a multiple of it (VTA's passes turn element offsets into tile indices this way).
std::optional<Expr> divideExactly(const Expr &e, int64_t divisor);

// Operators for building expressions in passes: the same semantics as the functions above
// (`i * 16 + j`, `n - 1`; an integer operand becomes a literal of the other side's type).
inline Expr operator+(const Expr &a, const Expr &b) { return addExpr(a, b); }
inline Expr operator-(const Expr &a, const Expr &b) { return subExpr(a, b); }
inline Expr operator*(const Expr &a, const Expr &b) { return mulExpr(a, b); }
inline Expr operator+(const Expr &a, int64_t b) { return addExpr(a, intImm(b, a->dtype)); }
inline Expr operator-(const Expr &a, int64_t b) { return subExpr(a, intImm(b, a->dtype)); }
inline Expr operator*(const Expr &a, int64_t b) { return mulExpr(a, intImm(b, a->dtype)); }

}  // namespace vtac::ir
