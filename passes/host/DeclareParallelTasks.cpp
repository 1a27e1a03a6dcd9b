#include "host/DeclareParallelTasks.h"

#include <set>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/UndefinedVars.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/HostLowered.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {
namespace {

// The variables `loop` reads from outside, in order of first use: undefinedVars of its start
// and body (its extent is the caller's), then the variables in the shapes, strides and offsets
// of the buffers it indexes.
std::vector<ir::Expr> capturedVars(const ir::For &loop) {
  ir::Stmt task = ir::make<ir::For>(loop.loopVar, loop.min, ir::intImm(1, loop.loopVar->dtype), ir::ForKind::Serial,
                                    loop.body, nullptr, loop.annotations, loop.loc());
  std::vector<ir::Expr> vars;
  std::set<const ir::Var *> seen;
  for (const ir::VarRef &var : ir::undefinedVars(task)) {
    seen.insert(var.get());
    vars.push_back(var);
  }
  std::set<const ir::Var *> boundInside;
  ir::preOrderVisit(task, [&](const ir::Node &node) {
    if (auto *inner = node.as<ir::For>()) boundInside.insert(inner->loopVar.get());
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
  ir::preOrderVisit(task, [&](const ir::Node &node) {
    if (auto *load = node.as<ir::BufferLoad>()) addBuffer(*load->buffer);
    if (auto *store = node.as<ir::BufferStore>()) addBuffer(*store->buffer);
  });
  return vars;
}

class ParallelTaskDeclarer : public ir::StmtExprMutator {
public:
  ir::Stmt visitFor(const ir::For &op) override {
    if (op.forKind != ir::ForKind::Parallel) return StmtExprMutator::visitFor(op);
    return declare(op);
  }

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    // A micro-kernel's body is code generation's as it stands (declare-micro-kernels).
    if (op.key == "coproc_uop_scope") return ir::Stmt(&op);
    const ir::Call *declared = declaredParallelTask(op);
    if (!declared) return StmtExprMutator::visitAttrStmt(op);
    // A second run: the same closure again, unless the loop has changed since.
    std::vector<ir::Expr> closure = capturedVars(*op.body.as<ir::For>());
    bool same = closure.size() == declared->args.size();
    for (size_t i = 0; same && i < closure.size(); ++i) same = closure[i] == declared->args[i];
    return same ? ir::Stmt(&op) : declare(*op.body.as<ir::For>());
  }

private:
  // The loop inside the attribute that declares its closure; its body is the task's, left as it
  // is (a parallel loop in it runs serially).
  static ir::Stmt declare(const ir::For &loop) {
    ir::Expr closure = ir::make<ir::Call>(ir::DataType::handle(), kTupleOp, capturedVars(loop), loop.loc());
    return ir::make<ir::AttrStmt>(ir::intImm(0), kParallelTaskAttr, closure, ir::Stmt(&loop), loop.loc());
  }
};

}  // namespace

const ir::Call *declaredParallelTask(const ir::AttrStmt &attr) {
  auto *loop = attr.body.as<ir::For>();
  auto *closure = attr.value.as<ir::Call>();
  bool declares = attr.key == kParallelTaskAttr && loop && loop->forKind == ir::ForKind::Parallel && isClosure(closure);
  return declares ? closure : nullptr;
}

llvm::Expected<ir::PrimFuncRef> declareParallelTasks(const ir::PrimFuncRef &func, PassContext &) {
  ParallelTaskDeclarer declarer;
  return withBody(func, declarer.visitStmt(func->body));
}

}  // namespace vtac::passes
