#include "tir/ConvertBlocksToOpaque.h"

#include <unordered_set>

#include "vtac/ir/Mutator.h"
#include "vtac/ir/Substitute.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {
namespace {

class OpaqueBlockConverter : public FirstErrorMutator {
public:
  ir::Expr visitVar(const ir::Var &op) override {
    if (forbidden_.count(&op)) fail(op, "variable '" + op.name + "' occurs in the predicate or bindings of its own block");
    auto it = substitutes_.find(&op);
    return it == substitutes_.end() ? ir::Expr(&op) : it->second;
  }

  ir::Stmt visitBlock(const ir::Block &op) override {
    if (op.init) fail(op, "block '" + op.name + "' still has T.init(); run lower-init-block first");
    ir::Stmt visited = StmtExprMutator::visitBlock(op);
    if (visited.as<ir::Block>()->iterVars.empty()) return visited;
    ir::Block *copy = ir::copyNode(*visited.as<ir::Block>());
    copy->iterVars.clear();
    return ir::Stmt(copy);
  }

  ir::Stmt visitBlockRealize(const ir::BlockRealize &op) override {
    const ir::Block &block = *op.block;
    for (const ir::IterVarRef &iter : block.iterVars) forbidden_.insert(iter->var.get());
    ir::Expr predicate = visitOptionalExpr(op.predicate);
    std::vector<ir::Expr> values = op.iterValues;
    mutateExprs(values);
    for (const ir::IterVarRef &iter : block.iterVars) forbidden_.erase(iter->var.get());
    for (size_t i = 0; i < block.iterVars.size() && i < values.size(); ++i)
      substitutes_[block.iterVars[i]->var.get()] = values[i];
    ir::Stmt visited = visitStmt(op.block);
    for (const ir::IterVarRef &iter : block.iterVars) substitutes_.erase(iter->var.get());
    if (op.iterValues.empty() && predicate == op.predicate && visited == op.block) return ir::Stmt(&op);
    return ir::make<ir::BlockRealize>(std::vector<ir::Expr>{}, predicate, ir::cast<ir::Block>(visited), op.loc());
  }

private:
  ir::VarMap substitutes_;
  std::unordered_set<const ir::Var *> forbidden_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> convertBlocksToOpaque(const ir::PrimFuncRef &func, PassContext &) {
  if (isFromLegacyTeSchedule(*func)) return func;
  OpaqueBlockConverter converter;
  return mutateBody(func, converter);
}

}  // namespace vtac::passes
