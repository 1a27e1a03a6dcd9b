#include "vtac/codegen/ParallelOutlining.h"

#include <set>

#include "vtac/codegen/RuntimeApi.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/UndefinedVars.h"
#include "vtac/ir/Visitor.h"

namespace vtac::codegen {

namespace {

using ir::DataType;

// The variables `body` reads from outside, in order of first use: undefinedVars, plus the
// variables in the shapes, strides and offsets of the buffers it indexes (the emitters
// flatten indices with them).
std::vector<ir::VarRef> capturedVars(const ir::Stmt &body) {
  std::vector<ir::VarRef> vars = ir::undefinedVars(body);
  std::set<const ir::Var *> seen;
  for (const ir::VarRef &var : vars) seen.insert(var.get());
  std::set<const ir::Var *> boundInside;
  ir::preOrderVisit(body, [&](const ir::Node &node) {
    if (auto *loop = node.as<ir::For>()) boundInside.insert(loop->loopVar.get());
    if (auto *let = node.as<ir::LetStmt>()) boundInside.insert(let->var.get());
  });
  auto addVarsOf = [&](const ir::Expr &expr) {
    if (!expr) return;
    ir::preOrderVisit(expr, [&](const ir::Node &node) {
      auto *var = node.as<ir::Var>();
      if (var && !boundInside.count(var) && seen.insert(var).second) vars.push_back(ir::VarRef(var));
    });
  };
  auto addBuffer = [&](const ir::Buffer &buffer) {
    for (const ir::Expr &dim : buffer.shape) addVarsOf(dim);
    for (const ir::Expr &stride : buffer.strides) addVarsOf(stride);
    addVarsOf(buffer.elemOffset);
  };
  ir::preOrderVisit(body, [&](const ir::Node &node) {
    if (auto *load = node.as<ir::BufferLoad>()) addBuffer(*load->buffer);
    if (auto *store = node.as<ir::BufferStore>()) addBuffer(*store->buffer);
  });
  return vars;
}

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

class ParallelOutlining : public ir::StmtExprMutator {
public:
  explicit ParallelOutlining(std::vector<ParallelTask> &tasks) : tasks_(tasks) {}

  llvm::Error takeError() { return std::move(error_); }

  ir::Stmt visitFor(const ir::For &op) override {
    if (op.forKind != ir::ForKind::Parallel) return StmtExprMutator::visitFor(op);
    if (const ir::Node *use = firstRuntimeUse(op.body)) {
      if (!error_)
        error_ = ir::diagnosticError(use->loc().isKnown() ? use->loc() : op.loc(),
                                     "a parallel loop cannot call the VTA runtime (its command handle belongs to "
                                     "the calling thread): make loop '" + op.loopVar->name + "' serial");
      return ir::Stmt(&op);
    }
    DataType indexType = op.loopVar->dtype;
    ParallelTask task;
    task.begin = ir::makeVar("vtac_begin", DataType::int64());
    task.end = ir::makeVar("vtac_end", DataType::int64());
    task.loopRange = {op.min, op.extent};
    ir::Expr first = ir::addExpr(op.min, ir::castExpr(indexType, task.begin));
    ir::Expr count = ir::castExpr(indexType, ir::subExpr(task.end, task.begin));
    task.body = ir::make<ir::For>(op.loopVar, first, count, ir::ForKind::Serial, op.body, nullptr, op.annotations,
                                  op.loc());
    for (const ir::VarRef &var : capturedVars(task.body))
      if (var.get() != task.begin.get() && var.get() != task.end.get()) task.closure.push_back(var);
    tasks_.push_back(std::move(task));
    return ir::make<ir::Evaluate>(
        ir::make<ir::Call>(DataType::int32(), hostop::kParallelFor,
                           std::vector<ir::Expr>{ir::intImm(int64_t(tasks_.size() - 1)),
                                                 ir::castExpr(DataType::int64(), op.extent)}),
        op.loc());
  }

private:
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
