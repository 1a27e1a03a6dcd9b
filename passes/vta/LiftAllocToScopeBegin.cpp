#include "vta/LiftAllocToScopeBegin.h"

#include "vta/VtaTarget.h"
#include "vtac/ir/Mutator.h"

namespace vtac::passes {
namespace {

class AllocLifter : public ir::StmtExprMutator {
public:
  // The function body with the allocations found outside any loop around it.
  ir::Stmt liftAll(const ir::Stmt &body) {
    scopes_.emplace_back();
    ir::Stmt result = visitStmt(body);
    return wrapPending(result);
  }

  ir::Stmt visitAllocate(const ir::Allocate &op) override {
    ir::Stmt body = visitStmt(op.body);
    ir::Allocate *lifted = ir::copyNode(op);
    lifted->body = nullptr;
    scopes_.back().push_back(ir::Stmt(lifted));
    return body;
  }

  ir::Stmt visitFor(const ir::For &op) override {
    scopes_.emplace_back();
    ir::Stmt body = wrapPending(visitStmt(op.body));
    if (body == op.body) return ir::Stmt(&op);
    return ir::make<ir::For>(op.loopVar, op.min, op.extent, op.forKind, body, op.threadBinding,
                             op.annotations, op.loc());
  }

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    if (op.key != "virtual_thread") return StmtExprMutator::visitAttrStmt(op);
    scopes_.emplace_back();
    ir::Stmt body = wrapPending(visitStmt(op.body));
    if (body == op.body) return ir::Stmt(&op);
    return ir::make<ir::AttrStmt>(op.node, op.key, op.value, body, op.loc());
  }

private:
  // Wraps body in the allocations collected in the innermost scope (first found outermost),
  // and closes that scope.
  ir::Stmt wrapPending(ir::Stmt body) {
    std::vector<ir::Stmt> allocs = std::move(scopes_.back());
    scopes_.pop_back();
    for (const ir::Stmt &stmt : allocs) {
      const auto *a = stmt.as<ir::Allocate>();
      ir::Allocate *placed = ir::copyNode(*a);
      placed->body = body;
      body = ir::Stmt(placed);
    }
    return body;
  }

  std::vector<std::vector<ir::Stmt>> scopes_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> liftAllocToScopeBegin(const ir::PrimFuncRef &func, PassContext &) {
  return vta::withRebuiltBody(func, AllocLifter().liftAll(func->body));
}

}  // namespace vtac::passes
