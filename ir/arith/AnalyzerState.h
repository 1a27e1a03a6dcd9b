// Internal to the analyzer: what an Analyzer knows (variable ranges and values, the conditions
// of the constraint scopes in force) and the integer helpers its parts share.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "vtac/ir/arith/Analyzer.h"

namespace vtac::ir::arith {

struct Analyzer::State {
  std::unordered_map<VarRef, IntBound> varBounds;
  // The ranges as bound, symbolic ends included (for ProofStrength::SymbolicBound).
  std::unordered_map<VarRef, Range> varRanges;
  std::unordered_map<VarRef, Expr> varValues;
  // Simplified conjuncts of the constraint scopes in force, innermost last.
  std::vector<Expr> knownTrue;
  // Variable bounds narrowed by constraint scopes, to restore when a scope ends.
  struct SavedBound {
    VarRef var;
    bool existed;
    IntBound bound;
  };
  std::vector<SavedBound> savedBounds;
  // Per open scope: sizes of knownTrue and savedBounds when it opened.
  std::vector<std::pair<size_t, size_t>> scopeMarks;
};

// int32 and int64 scalars: the types whose arithmetic is canonicalised (TVM's IsIndexType).
inline bool isIndexType(DataType t) { return t.isInt() && t.isScalar() && (t.bits() == 32 || t.bits() == 64); }

// Whether a + - * (kind) on operands in ranges a and b can leave the integer type t: the ends are
// taken as numbers, an infinite end as the int64 extreme it stands for.
bool mayLeaveType(NodeKind kind, IntBound a, IntBound b, DataType t);

// ceil(log2(x)) of a constant x as every engine computes it in the float type `type` (their
// log2 is within a few ulps of the exact value): the exact value where that rounding cannot
// reach an integer, else none. Exact for powers of two, float64 integers x <= 2^32 and values
// whose log2 is not within a tolerance of an integer.
std::optional<int64_t> ceilLog2(double x, DataType type);

int64_t floorDivInt(int64_t a, int64_t b);
int64_t floorModInt(int64_t a, int64_t b);
int64_t gcdInt(int64_t a, int64_t b);  // gcd(|a|, |b|); gcd(0, b) = |b|

}  // namespace vtac::ir::arith
