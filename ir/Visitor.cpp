// StmtExprVisitor: the default recursion into children.
#include "vtac/ir/Visitor.h"

namespace vtac::ir {

void StmtExprVisitor::visitExprs(const std::vector<Expr> &exprs) {
  for (const Expr &e : exprs) visitExpr(e);
}

void StmtExprVisitor::visitRange(const Range &range) {
  if (range.min) visitExpr(range.min);
  if (range.extent) visitExpr(range.extent);
}

void StmtExprVisitor::visitRegion(const BufferRegion &region) {
  for (const Range &r : region.region) visitRange(r);
}

void StmtExprVisitor::visitCast(const Cast &op) { visitExpr(op.value); }
void StmtExprVisitor::visitBinary(const BinaryExpr &op) {
  visitExpr(op.a);
  visitExpr(op.b);
}
void StmtExprVisitor::visitNot(const Not &op) { visitExpr(op.a); }
void StmtExprVisitor::visitSelect(const Select &op) {
  visitExpr(op.condition);
  visitExpr(op.trueValue);
  visitExpr(op.falseValue);
}
void StmtExprVisitor::visitBufferLoad(const BufferLoad &op) { visitExprs(op.indices); }
void StmtExprVisitor::visitCall(const Call &op) { visitExprs(op.args); }
void StmtExprVisitor::visitLet(const Let &op) {
  visitExpr(op.value);
  visitExpr(op.body);
}
void StmtExprVisitor::visitRamp(const Ramp &op) {
  visitExpr(op.base);
  visitExpr(op.stride);
}
void StmtExprVisitor::visitBroadcast(const Broadcast &op) { visitExpr(op.value); }

void StmtExprVisitor::visitBufferStore(const BufferStore &op) {
  visitExpr(op.value);
  visitExprs(op.indices);
}
void StmtExprVisitor::visitLetStmt(const LetStmt &op) {
  visitExpr(op.value);
  visitStmt(op.body);
}
void StmtExprVisitor::visitAttrStmt(const AttrStmt &op) {
  visitExpr(op.value);
  visitStmt(op.body);
}
void StmtExprVisitor::visitAssertStmt(const AssertStmt &op) {
  visitExpr(op.condition);
  visitExpr(op.message);
  visitStmt(op.body);
}
void StmtExprVisitor::visitFor(const For &op) {
  visitExpr(op.min);
  visitExpr(op.extent);
  visitStmt(op.body);
}
void StmtExprVisitor::visitWhile(const While &op) {
  visitExpr(op.condition);
  visitStmt(op.body);
}
void StmtExprVisitor::visitIfThenElse(const IfThenElse &op) {
  visitExpr(op.condition);
  visitStmt(op.thenCase);
  if (op.elseCase) visitStmt(op.elseCase);
}
void StmtExprVisitor::visitSeqStmt(const SeqStmt &op) {
  for (const Stmt &s : op.stmts) visitStmt(s);
}
void StmtExprVisitor::visitEvaluate(const Evaluate &op) { visitExpr(op.value); }
void StmtExprVisitor::visitAllocate(const Allocate &op) {
  visitExprs(op.extents);
  if (op.condition) visitExpr(op.condition);
  visitStmt(op.body);
}
void StmtExprVisitor::visitDeclBuffer(const DeclBuffer &op) { visitStmt(op.body); }
void StmtExprVisitor::visitBlock(const Block &op) {
  for (const IterVarRef &iv : op.iterVars) visitRange(iv->dom);
  for (const BufferRegion &r : op.reads) visitRegion(r);
  for (const BufferRegion &r : op.writes) visitRegion(r);
  for (const MatchBufferRegion &m : op.matchBuffers) visitRegion(m.source);
  if (op.init) visitStmt(op.init);
  visitStmt(op.body);
}
void StmtExprVisitor::visitBlockRealize(const BlockRealize &op) {
  visitExprs(op.iterValues);
  if (op.predicate) visitExpr(op.predicate);
  visitStmt(op.block);
}

namespace {
class PreOrderCallback : public StmtExprVisitor {
public:
  explicit PreOrderCallback(const std::function<void(const Node &)> &fn) : fn_(fn) {}
  void visitExpr(const Expr &e) override {
    fn_(*e);
    StmtExprVisitor::visitExpr(e);
  }
  void visitStmt(const Stmt &s) override {
    fn_(*s);
    StmtExprVisitor::visitStmt(s);
  }

private:
  const std::function<void(const Node &)> &fn_;
};
}  // namespace

void preOrderVisit(const Stmt &stmt, const std::function<void(const Node &)> &fn) {
  PreOrderCallback(fn).visitStmt(stmt);
}

void preOrderVisit(const Expr &expr, const std::function<void(const Node &)> &fn) {
  PreOrderCallback(fn).visitExpr(expr);
}

bool usesVar(const Stmt &stmt, const Var *var) {
  bool found = false;
  preOrderVisit(stmt, [&](const Node &node) { found |= &node == var; });
  return found;
}

bool usesVar(const Expr &expr, const Var *var) {
  bool found = false;
  preOrderVisit(expr, [&](const Node &node) { found |= &node == var; });
  return found;
}

}  // namespace vtac::ir
