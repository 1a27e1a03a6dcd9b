// StmtExprMutator: default copy-on-write reconstruction. Each method mutates the children and
// builds a copy of the node only when one of them changed.
#include "vtac/ir/Mutator.h"

namespace vtac::ir {

// Replaces `field` by `replacement` and reports whether that is a change.
template <class T> static bool update(T &field, T replacement) {
  if (replacement == field) return false;
  field = std::move(replacement);
  return true;
}

bool StmtExprMutator::mutateExprs(std::vector<Expr> &exprs) {
  bool changed = false;
  for (Expr &e : exprs) changed |= update(e, visitExpr(e));
  return changed;
}

bool StmtExprMutator::mutateRange(Range &range) {
  bool changed = false;
  if (range.min) changed |= update(range.min, visitExpr(range.min));
  if (range.extent) changed |= update(range.extent, visitExpr(range.extent));
  return changed;
}

bool StmtExprMutator::mutateRegions(std::vector<BufferRegion> &regions) {
  bool changed = false;
  for (BufferRegion &r : regions)
    for (Range &range : r.region) changed |= mutateRange(range);
  return changed;
}

Expr StmtExprMutator::visitCast(const Cast &op) {
  Expr value = visitExpr(op.value);
  if (value == op.value) return Expr(&op);
  Cast *copy = copyNode(op);
  copy->value = std::move(value);
  return Expr(copy);
}

Expr StmtExprMutator::visitBinary(const BinaryExpr &op) {
  Expr a = visitExpr(op.a), b = visitExpr(op.b);
  if (a == op.a && b == op.b) return Expr(&op);
  BinaryExpr *copy = copyNode(op);
  copy->a = std::move(a);
  copy->b = std::move(b);
  return Expr(copy);
}

Expr StmtExprMutator::visitNot(const Not &op) {
  Expr a = visitExpr(op.a);
  if (a == op.a) return Expr(&op);
  Not *copy = copyNode(op);
  copy->a = std::move(a);
  return Expr(copy);
}

Expr StmtExprMutator::visitSelect(const Select &op) {
  Expr c = visitExpr(op.condition), t = visitExpr(op.trueValue), f = visitExpr(op.falseValue);
  if (c == op.condition && t == op.trueValue && f == op.falseValue) return Expr(&op);
  Select *copy = copyNode(op);
  copy->condition = std::move(c);
  copy->trueValue = std::move(t);
  copy->falseValue = std::move(f);
  return Expr(copy);
}

Expr StmtExprMutator::visitBufferLoad(const BufferLoad &op) {
  std::vector<Expr> indices = op.indices;
  if (!mutateExprs(indices)) return Expr(&op);
  BufferLoad *copy = copyNode(op);
  copy->indices = std::move(indices);
  return Expr(copy);
}

Expr StmtExprMutator::visitCall(const Call &op) {
  std::vector<Expr> args = op.args;
  if (!mutateExprs(args)) return Expr(&op);
  Call *copy = copyNode(op);
  copy->args = std::move(args);
  return Expr(copy);
}

Expr StmtExprMutator::visitLet(const Let &op) {
  Expr value = visitExpr(op.value), body = visitExpr(op.body);
  if (value == op.value && body == op.body) return Expr(&op);
  Let *copy = copyNode(op);
  copy->value = std::move(value);
  copy->body = std::move(body);
  copy->dtype = copy->body->dtype;
  return Expr(copy);
}

Expr StmtExprMutator::visitRamp(const Ramp &op) {
  Expr base = visitExpr(op.base), stride = visitExpr(op.stride);
  if (base == op.base && stride == op.stride) return Expr(&op);
  Ramp *copy = copyNode(op);
  copy->base = std::move(base);
  copy->stride = std::move(stride);
  return Expr(copy);
}

Expr StmtExprMutator::visitBroadcast(const Broadcast &op) {
  Expr value = visitExpr(op.value);
  if (value == op.value) return Expr(&op);
  Broadcast *copy = copyNode(op);
  copy->value = std::move(value);
  return Expr(copy);
}

Stmt StmtExprMutator::visitBufferStore(const BufferStore &op) {
  Expr value = visitExpr(op.value);
  std::vector<Expr> indices = op.indices;
  bool changed = mutateExprs(indices);
  if (!changed && value == op.value) return Stmt(&op);
  BufferStore *copy = copyNode(op);
  copy->value = std::move(value);
  copy->indices = std::move(indices);
  return Stmt(copy);
}

Stmt StmtExprMutator::visitLetStmt(const LetStmt &op) {
  Expr value = visitExpr(op.value);
  Stmt body = visitStmt(op.body);
  if (value == op.value && body == op.body) return Stmt(&op);
  LetStmt *copy = copyNode(op);
  copy->value = std::move(value);
  copy->body = std::move(body);
  return Stmt(copy);
}

Stmt StmtExprMutator::visitAttrStmt(const AttrStmt &op) {
  Expr value = visitExpr(op.value);
  Stmt body = visitStmt(op.body);
  if (value == op.value && body == op.body) return Stmt(&op);
  AttrStmt *copy = copyNode(op);
  copy->value = std::move(value);
  copy->body = std::move(body);
  return Stmt(copy);
}

Stmt StmtExprMutator::visitAssertStmt(const AssertStmt &op) {
  Expr condition = visitExpr(op.condition), message = visitExpr(op.message);
  Stmt body = visitStmt(op.body);
  if (condition == op.condition && message == op.message && body == op.body) return Stmt(&op);
  AssertStmt *copy = copyNode(op);
  copy->condition = std::move(condition);
  copy->message = std::move(message);
  copy->body = std::move(body);
  return Stmt(copy);
}

Stmt StmtExprMutator::visitFor(const For &op) {
  Expr min = visitExpr(op.min), extent = visitExpr(op.extent);
  return updateFor(op, std::move(min), std::move(extent), visitStmt(op.body));
}

Stmt StmtExprMutator::updateFor(const For &op, Expr min, Expr extent, Stmt body) {
  if (min == op.min && extent == op.extent && body == op.body) return Stmt(&op);
  For *copy = copyNode(op);
  copy->min = std::move(min);
  copy->extent = std::move(extent);
  copy->body = std::move(body);
  return Stmt(copy);
}

Stmt StmtExprMutator::visitWhile(const While &op) {
  Expr condition = visitExpr(op.condition);
  Stmt body = visitStmt(op.body);
  if (condition == op.condition && body == op.body) return Stmt(&op);
  While *copy = copyNode(op);
  copy->condition = std::move(condition);
  copy->body = std::move(body);
  return Stmt(copy);
}

Stmt StmtExprMutator::visitIfThenElse(const IfThenElse &op) {
  Expr condition = visitExpr(op.condition);
  Stmt thenCase = visitStmt(op.thenCase);
  Stmt elseCase = visitOptionalStmt(op.elseCase);
  if (condition == op.condition && thenCase == op.thenCase && elseCase == op.elseCase)
    return Stmt(&op);
  IfThenElse *copy = copyNode(op);
  copy->condition = std::move(condition);
  copy->thenCase = std::move(thenCase);
  copy->elseCase = std::move(elseCase);
  return Stmt(copy);
}

Stmt StmtExprMutator::visitSeqStmt(const SeqStmt &op) {
  std::vector<Stmt> stmts = op.stmts;
  bool changed = false;
  for (Stmt &s : stmts) changed |= update(s, visitStmt(s));
  if (!changed) return Stmt(&op);
  // A mutated child may itself be a sequence (or several statements became one): re-flatten.
  return seq(std::move(stmts), op.loc());
}

Stmt StmtExprMutator::visitEvaluate(const Evaluate &op) {
  Expr value = visitExpr(op.value);
  if (value == op.value) return Stmt(&op);
  Evaluate *copy = copyNode(op);
  copy->value = std::move(value);
  return Stmt(copy);
}

Stmt StmtExprMutator::visitAllocate(const Allocate &op) {
  std::vector<Expr> extents = op.extents;
  bool changed = mutateExprs(extents);
  Expr condition = visitOptionalExpr(op.condition);
  Stmt body = visitStmt(op.body);
  if (!changed && condition == op.condition && body == op.body) return Stmt(&op);
  Allocate *copy = copyNode(op);
  copy->extents = std::move(extents);
  copy->condition = std::move(condition);
  copy->body = std::move(body);
  return Stmt(copy);
}

Stmt StmtExprMutator::visitDeclBuffer(const DeclBuffer &op) {
  Stmt body = visitStmt(op.body);
  if (body == op.body) return Stmt(&op);
  DeclBuffer *copy = copyNode(op);
  copy->body = std::move(body);
  return Stmt(copy);
}

Stmt StmtExprMutator::visitBlock(const Block &op) {
  bool changed = false;
  std::vector<IterVarRef> iterVars = op.iterVars;
  for (IterVarRef &iv : iterVars) {
    Range dom = iv->dom;
    if (!mutateRange(dom)) continue;
    IterVar *ivCopy = copyNode(*iv);
    ivCopy->dom = std::move(dom);
    iv = IterVarRef(ivCopy);
    changed = true;
  }
  std::vector<BufferRegion> reads = op.reads, writes = op.writes;
  changed |= mutateRegions(reads);
  changed |= mutateRegions(writes);
  std::vector<MatchBufferRegion> matchBuffers = op.matchBuffers;
  for (MatchBufferRegion &m : matchBuffers)
    for (Range &r : m.source.region) changed |= mutateRange(r);
  Stmt init = visitOptionalStmt(op.init);
  Stmt body = visitStmt(op.body);
  if (!changed && init == op.init && body == op.body) return Stmt(&op);
  Block *copy = copyNode(op);
  copy->iterVars = std::move(iterVars);
  copy->reads = std::move(reads);
  copy->writes = std::move(writes);
  copy->matchBuffers = std::move(matchBuffers);
  copy->init = std::move(init);
  copy->body = std::move(body);
  return Stmt(copy);
}

Stmt StmtExprMutator::visitBlockRealize(const BlockRealize &op) {
  std::vector<Expr> iterValues = op.iterValues;
  bool changed = mutateExprs(iterValues);
  Expr predicate = visitOptionalExpr(op.predicate);
  Stmt block = visitStmt(op.block);
  if (!changed && predicate == op.predicate && block == op.block) return Stmt(&op);
  BlockRealize *copy = copyNode(op);
  copy->iterValues = std::move(iterValues);
  copy->predicate = std::move(predicate);
  // A mutator may replace the block by something else only if it also handles the realize.
  copy->block = cast<Block>(block);
  return Stmt(copy);
}

}  // namespace vtac::ir
