// Variable substitution as a StmtExprMutator.
#include "vtac/ir/Substitute.h"

#include "vtac/ir/Mutator.h"
#include "vtac/ir/StructuralEqual.h"

namespace vtac::ir {
namespace {

class Substituter : public StmtExprMutator {
public:
  explicit Substituter(const VarMap &replacements) : replacements_(replacements) {}
  Expr visitVar(const Var &op) override {
    auto it = replacements_.find(&op);
    return it == replacements_.end() ? Expr(&op) : it->second;
  }

private:
  const VarMap &replacements_;
};

class SubexpressionReplacer : public StmtExprMutator {
public:
  SubexpressionReplacer(const Expr &target, const Expr &replacement) : target_(target), replacement_(replacement) {}
  using StmtExprMutator::visitExpr;
  Expr visitExpr(const Expr &e) override {
    if (e->kind() == target_->kind() && structuralEqual(e, target_)) return replacement_;
    return StmtExprMutator::visitExpr(e);
  }

private:
  const Expr &target_;
  const Expr &replacement_;
};

}  // namespace

Expr replaceSubexpression(const Expr &expr, const Expr &target, const Expr &replacement) {
  return SubexpressionReplacer(target, replacement).visitExpr(expr);
}

Expr substitute(const Expr &expr, const VarMap &replacements) {
  if (replacements.empty()) return expr;
  return Substituter(replacements).visitExpr(expr);
}

Stmt substitute(const Stmt &stmt, const VarMap &replacements) {
  if (replacements.empty()) return stmt;
  return Substituter(replacements).visitStmt(stmt);
}

}  // namespace vtac::ir
