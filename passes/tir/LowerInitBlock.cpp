#include "tir/LowerInitBlock.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {
namespace {

class InitLowerer : public ir::StmtExprMutator {
public:
  ir::Stmt visitBlock(const ir::Block &op) override {
    ir::Stmt visited = ir::StmtExprMutator::visitBlock(op);
    const auto *block = visited.as<ir::Block>();
    if (!block->init) return visited;
    ir::Expr atStart;
    for (const ir::IterVarRef &iter : block->iterVars) {
      if (iter->iterType != ir::IterType::CommReduce) continue;
      ir::Expr isMin = ir::binary(ir::NodeKind::EQ, ir::Expr(iter->var), iter->dom.min, op.loc());
      atStart = atStart ? ir::binary(ir::NodeKind::And, atStart, isMin, op.loc()) : isMin;
    }
    ir::Stmt init = block->init;
    if (atStart) init = ir::Stmt(new ir::IfThenElse(atStart, init, nullptr, init->loc()));
    return ir::Stmt(new ir::Block(block->name, block->iterVars, block->reads, block->writes,
                                  ir::seq({init, block->body}, block->loc()), nullptr,
                                  block->allocBuffers, block->matchBuffers, block->annotations,
                                  block->loc()));
  }
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> lowerInitBlock(const ir::PrimFuncRef &func, PassContext &) {
  return withBody(func, InitLowerer().visitStmt(func->body));
}

}  // namespace vtac::passes
