// Internal to the analyzer: the expression simplifier behind Analyzer::rewriteSimplify and
// Analyzer::canonicalSimplify. One mutator, two modes: rewrite mode applies TVM's rewrite rules
// (RewriteRules.cpp) and only folds arithmetic; canonical mode also puts index arithmetic into
// the sum-of-split-terms form (CanonicalForm.cpp).
#pragma once

#include <optional>

#include "AnalyzerState.h"
#include "vtac/ir/Functor.h"

namespace vtac::ir::arith {

// What is known about x - y (or x against a constant): bit 1 "may be equal", 2 "may be
// less", 4 "may be greater".
enum class Compare : uint8_t { EQ = 1, LT = 2, LE = 3, GT = 4, GE = 5, NE = 6, Unknown = 7 };

struct CanonValue;  // CanonicalForm.cpp

// Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod of an index type.
bool isIndexArithmetic(const BinaryExpr &op);

class Simplifier : public ExprFunctor<Expr> {
public:
  enum class Mode { Rewrite, Canonical };
  Simplifier(Analyzer &analyzer, Analyzer::State &state, Mode mode)
      : analyzer_(analyzer), state_(state), mode_(mode) {}

  Expr visitIntImm(const IntImm &op) override { return Expr(&op); }
  Expr visitFloatImm(const FloatImm &op) override { return Expr(&op); }
  Expr visitStringImm(const StringImm &op) override { return Expr(&op); }
  Expr visitVar(const Var &op) override;
  Expr visitCast(const Cast &op) override;
  Expr visitBinary(const BinaryExpr &op) override;
  Expr visitNot(const Not &op) override;
  Expr visitSelect(const Select &op) override;
  Expr visitSelectBranch(const Expr &value, const Expr &assumed);
  Expr visitBufferLoad(const BufferLoad &op) override;
  Expr visitCall(const Call &op) override;
  Expr visitLet(const Let &op) override;
  Expr visitRamp(const Ramp &op) override;
  Expr visitBroadcast(const Broadcast &op) override;

private:
  // ---- rewrite rules (RewriteRules.cpp) ----
  Expr rewriteArith(const BinaryExpr &op, const Expr &a, const Expr &b);
  Expr rewriteMinMax(const BinaryExpr &op, const Expr &a, const Expr &b);
  Expr rewriteLT(const Expr &lt);
  // Whether x <kind> y (+ - *) stays in its integer dtype for all the values x and y are bounded
  // by: vtac's integers wrap, and TVM's rules that reorder or cancel terms hold only without it.
  bool fits(NodeKind kind, const Expr &x, const Expr &y);
  // fits() for every + - * at the top of e, through + - * below it.
  bool noWrap(const Expr &e);
  Expr rewriteEQ(const Expr &eq);
  Expr rewriteNot(const Expr &notExpr);
  Expr rewriteAnd(const Expr &andExpr);
  Expr rewriteOr(const Expr &orExpr);
  Expr visitComparison(const BinaryExpr &op);
  // Simplifies a rewritten expression again (TVM's RecursiveRewrite), to a bounded depth.
  Expr recurse(const Expr &e);
  // true/false when cond (or its negation) is a condition of the constraint scopes in force.
  std::optional<bool> matchKnown(const Expr &cond) const;
  Compare compare(const Expr &x, int64_t value);
  Compare compare(const Expr &x, const Expr &y);
  Compare compareWithRange(const Expr &x, const Expr &y);

  // ---- canonical form (CanonicalForm.cpp) ----
  // The canonical form of index arithmetic (Add .. FloorMod in int32/int64), normalised.
  Expr visitIndexArithmetic(const BinaryExpr &op);
  CanonValue canonicalMutate(const Expr &e);
  CanonValue canonicalArith(const BinaryExpr &op);
  friend struct CanonicalOps;

  Analyzer &analyzer_;
  Analyzer::State &state_;
  Mode mode_;
  int recursionDepth_ = 0;
};

}  // namespace vtac::ir::arith
