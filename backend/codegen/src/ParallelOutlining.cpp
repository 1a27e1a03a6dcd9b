#include "vtac/codegen/ParallelOutlining.h"

#include "vtac/codegen/RuntimeApi.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/HostLowered.h"

namespace vtac::codegen {

namespace {

using ir::DataType;

// The first place in `body` that needs the VTA runtime's command handle, if any.
const ir::Node *firstRuntimeUse(const ir::Stmt &body) {
  const ir::Node *found = nullptr;
  ir::preOrderVisit(body, [&](const ir::Node &node) {
    if (found) return;
    auto *call = node.as<ir::Call>();
    if (call && (call->op == hostop::kPushMicroKernel || runtimeSignature(externCallee(ir::Expr(call)))))
      found = &node;
  });
  return found;
}

// Each parallel loop declare-parallel-tasks declared, cut out as a ParallelTask with the
// closure it declared.
class ParallelOutlining : public ir::StmtExprMutator {
public:
  explicit ParallelOutlining(std::vector<ParallelTask> &tasks) : tasks_(tasks) {}

  llvm::Error takeError() { return std::move(error_); }

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    const ir::Call *closure = passes::declaredParallelTask(op);
    if (!closure) return StmtExprMutator::visitAttrStmt(op);
    const ir::For &loop = *op.body.as<ir::For>();
    if (const ir::Node *use = firstRuntimeUse(loop.body)) {
      fail(use->loc().isKnown() ? use->loc() : loop.loc(),
           "a parallel loop cannot call the VTA runtime (its command handle belongs to the calling thread): make "
           "loop '" + loop.loopVar->name + "' serial");
      return ir::Stmt(&op);
    }
    DataType indexType = loop.loopVar->dtype;
    ParallelTask task;
    task.begin = ir::makeVar("vtac_begin", DataType::int64());
    task.end = ir::makeVar("vtac_end", DataType::int64());
    task.loopRange = {loop.min, loop.extent};
    ir::Expr first = ir::addExpr(loop.min, ir::castExpr(indexType, task.begin));
    ir::Expr count = ir::castExpr(indexType, ir::subExpr(task.end, task.begin));
    task.body = ir::make<ir::For>(loop.loopVar, first, count, ir::ForKind::Serial, loop.body, nullptr,
                                  loop.annotations, loop.loc());
    for (const ir::Expr &var : closure->args) task.closure.push_back(ir::VarRef(var.as<ir::Var>()));
    tasks_.push_back(std::move(task));
    return ir::make<ir::Evaluate>(
        ir::make<ir::Call>(DataType::int32(), hostop::kParallelFor,
                           std::vector<ir::Expr>{ir::intImm(int64_t(tasks_.size() - 1)),
                                                 ir::castExpr(DataType::int64(), loop.extent)}),
        loop.loc());
  }

  ir::Stmt visitFor(const ir::For &op) override {
    if (op.forKind == ir::ForKind::Parallel)
      fail(op.loc(), "parallel loop '" + op.loopVar->name + "' declares no closure: run host-lower "
                     "(declare-parallel-tasks) before code generation");
    return StmtExprMutator::visitFor(op);
  }

private:
  void fail(ir::SourceLoc loc, const std::string &message) {
    if (!error_) error_ = ir::diagnosticError(loc, message);
  }

  std::vector<ParallelTask> &tasks_;
  llvm::Error error_ = llvm::Error::success();
};

}  // namespace

llvm::Expected<ir::Stmt> outlineParallelLoops(const ir::Stmt &body, std::vector<ParallelTask> &tasks) {
  ParallelOutlining outlining(tasks);
  ir::Stmt result = outlining.visitStmt(body);
  if (llvm::Error error = outlining.takeError()) return error;
  return result;
}

}  // namespace vtac::codegen
