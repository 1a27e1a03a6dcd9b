// The arithmetic analyzer (TVM's arith::Analyzer): what passes and schedules ask about integer
// index expressions under the loop ranges in scope.
//
//   Analyzer ana;
//   ana.bind(i, Range{0, 16});               // for i in range(16)
//   ana.simplify((i * 16 + j) // 16)         // with j in [0, 16) bound too: i
//   ana.constIntBound(i * 4 + 3)             // [3, 63]
//   ana.canProve(i < 16)                     // true
//   { Analyzer::ConstraintScope inIf(ana, i < 8); ... }   // facts of an `if` branch
//
// simplify() is TVM's Analyzer::Simplify: the rewrite simplifier (rule-based: comparisons
// against known bounds, min/max, logic, select/if_then_else with a decided condition), then the
// canonical simplifier, whose forms are the ones TVM prints and the VTA matchers expect:
// a sum of terms `index % upper // lower * scale` ordered by decreasing scale, then the constant,
// terms with negative scale subtracted last (`i * 256 + j * 16 + k - 240`); floordiv/floormod by
// a constant split divisible parts off and drop remainders proven to lie in [0, c).
// Arithmetic in "index types" (int32, int64) is canonicalised; other types only fold constants.
//
// Not ported from TVM (yet): the rewrite simplifier's own arithmetic rules (rewriteSimplify
// only folds constants in +, -, *, /, %; simplify() gets those forms from the canonical step,
// plus TVM's `floordiv(x * c1 + y, c2)` rules), the modular-set and transitive-inequality
// analyses, ProdDivSimplify of symbolic divisors, vector (Ramp/Broadcast) rules.
//
// Bindings are not scoped: bind each loop variable once (variables are unique objects), or
// rebind it (the new range replaces the old). Constraint scopes nest and undo themselves.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "vtac/ir/Expr.h"
#include "vtac/ir/Function.h"

namespace vtac::ir::arith {

// A closed interval [min, max] of int64 values that contains every value of an expression;
// kNegInf / kPosInf stand for "unbounded".
struct IntBound {
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  int64_t min = kNegInf;
  int64_t max = kPosInf;
  bool isConst() const { return min == max; }
};

// How conjuncts() takes a conjunct T.likely(c).
enum class LikelyConjunct {
  LookThrough,  // as the conjuncts of c: the hint does not change what holds (constraint scopes)
  Keep,         // as the call itself, which TVM's iter-map detection does not parse as a bound
};
// The conjuncts of `condition` in order: `a && (b && c)` gives a, b, c (TVM's ExtractConstraints).
std::vector<Expr> conjuncts(const Expr &condition, LikelyConjunct likely);

class Analyzer {
public:
  Analyzer();
  ~Analyzer();
  Analyzer(const Analyzer &) = delete;
  Analyzer &operator=(const Analyzer &) = delete;

  // `var` ranges over [range.min, range.min + range.extent) (a loop, a block iteration var).
  void bind(const VarRef &var, const Range &range);
  // `var` equals `value` (an inlined let): simplify() substitutes it.
  void bind(const VarRef &var, const Expr &value);
  // `var` lies within `bound`, which simplify() uses but never substitutes, even when it is one
  // value (TVM's const_int_bound.update): an outer block iterator of extent 1 stays itself.
  void updateBound(const VarRef &var, const IntBound &bound);

  IntBound constIntBound(const Expr &e);

  // TVM's Analyzer::Simplify: rewriteSimplify, then canonicalSimplify.
  Expr simplify(const Expr &e);
  Expr rewriteSimplify(const Expr &e);
  Expr canonicalSimplify(const Expr &e);

  // TVM's ProofStrength: SymbolicBound also proves `a < b` / `a <= b` from the least value of
  // b - a over variables bound to symbolic ranges (k_0 * 32 + k_1 < n * 32 for k_0 < n,
  // k_1 < 32), as TVM's CanProve does for the split of a symbolic extent.
  enum class ProofStrength { Default, SymbolicBound };
  // True when `condition` simplifies to true under the bindings and constraints in scope.
  bool canProve(const Expr &condition, ProofStrength strength = ProofStrength::Default);
  // From the constant bounds of e as given (simplify it first for a sharper answer).
  bool canProveGreaterEqual(const Expr &e, int64_t lowerBound);
  bool canProveLess(const Expr &e, int64_t upperBound);
  bool canProveEqual(const Expr &a, const Expr &b);

  // Facts that hold while the scope lives: `condition` (each conjunct of it) simplifies to true,
  // its negation to false, and `var < c`-style conjuncts narrow the bound of var.
  class ConstraintScope {
  public:
    ConstraintScope(Analyzer &analyzer, const Expr &condition);
    ~ConstraintScope();
    ConstraintScope(const ConstraintScope &) = delete;
    ConstraintScope &operator=(const ConstraintScope &) = delete;

  private:
    Analyzer &analyzer_;
    size_t savedDepth_;
  };

  struct State;  // defined in ir/arith/AnalyzerState.h

private:
  std::unique_ptr<State> state_;
};

// Bounds the size variables of `func`'s parameter buffers by the buffer fitting in memory: in a
// buffer whose other dimensions are constants (not 0), a dimension `n`, `n * c` or either plus
// or minus constants (`n * 32 - 1`) makes 0 <= dimension * (other dimensions) * element bytes
// <= INT64_MAX (TVM's MarkGlobalNonNegValue, which Simplify applies to the buffer_map too). TVM
// assumes such index arithmetic never wraps; this lets the simplifier prove it
// (`(n * 32 + 31) // 32` is n).
void boundShapeVariables(Analyzer &analyzer, const PrimFunc &func);

}  // namespace vtac::ir::arith
