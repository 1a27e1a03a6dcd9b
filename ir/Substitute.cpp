// Variable substitution as a StmtExprMutator.
#include "vtac/ir/Substitute.h"

#include "vtac/ir/Mutator.h"

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

}  // namespace

Expr substitute(const Expr &expr, const VarMap &replacements) {
  if (replacements.empty()) return expr;
  return Substituter(replacements).visitExpr(expr);
}

Stmt substitute(const Stmt &stmt, const VarMap &replacements) {
  if (replacements.empty()) return stmt;
  return Substituter(replacements).visitStmt(stmt);
}

}  // namespace vtac::ir
