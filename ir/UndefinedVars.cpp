#include "vtac/ir/UndefinedVars.h"

#include <unordered_set>

#include "vtac/ir/Visitor.h"

namespace vtac::ir {

namespace {

class UndefinedVarCollector : public StmtExprVisitor {
public:
  std::vector<VarRef> result() const {
    std::vector<VarRef> free;
    for (const Var *var : used_)
      if (!bound_.count(var)) free.push_back(VarRef(var));
    return free;
  }

  void visitVar(const Var &op) override {
    if (seen_.insert(&op).second) used_.push_back(&op);
  }
  void visitBufferLoad(const BufferLoad &op) override {
    visitVar(*op.buffer->data);
    StmtExprVisitor::visitBufferLoad(op);
  }
  void visitBufferStore(const BufferStore &op) override {
    visitVar(*op.buffer->data);
    StmtExprVisitor::visitBufferStore(op);
  }
  void visitFor(const For &op) override { bindThenVisit(op.loopVar, [&] { StmtExprVisitor::visitFor(op); }); }
  void visitLetStmt(const LetStmt &op) override { bindThenVisit(op.var, [&] { StmtExprVisitor::visitLetStmt(op); }); }
  void visitLet(const Let &op) override { bindThenVisit(op.var, [&] { StmtExprVisitor::visitLet(op); }); }
  void visitAllocate(const Allocate &op) override {
    bindThenVisit(op.bufferVar, [&] { StmtExprVisitor::visitAllocate(op); });
  }
  void visitBlock(const Block &op) override {
    for (const IterVarRef &iv : op.iterVars) bound_.insert(iv->var.get());
    for (const BufferRef &buffer : op.allocBuffers) bound_.insert(buffer->data.get());
    StmtExprVisitor::visitBlock(op);
  }

private:
  template <class Visit> void bindThenVisit(const VarRef &var, Visit visit) {
    bound_.insert(var.get());
    visit();
  }

  std::vector<const Var *> used_;
  std::unordered_set<const Var *> seen_, bound_;
};

}  // namespace

std::vector<VarRef> undefinedVars(const Stmt &stmt) {
  UndefinedVarCollector collector;
  collector.visitStmt(stmt);
  return collector.result();
}

}  // namespace vtac::ir
