// UseScopes: one walk over a function recording, per variable and buffer, the lowest common
// enclosing statement of its uses (a tree of scopes with parent links; the LCA is found by
// walking up by depth).
#include "UseScopes.h"

namespace vtac::ir::detail {

void UseScopes::analyze(const PrimFunc &func) {
  enter(&func);
  for (const VarRef &p : func.params) use(p.get());
  for (const auto &[param, buffer] : func.bufferMap) {
    use(param.get());
    visitBuffer(buffer);
  }
  visitAttrs(func.attrs);
  visitStmt(func.body);
  leave();
}

void UseScopes::analyze(const Stmt &stmt) {
  enter(nullptr);
  visitStmt(stmt);
  leave();
}

int UseScopes::commonScope(const Node *obj) const {
  auto it = uses_.find(obj);
  return it == uses_.end() ? -1 : it->second.scope;
}

int UseScopes::occurrences(const Node *obj) const {
  auto it = uses_.find(obj);
  return it == uses_.end() ? 0 : it->second.count;
}

void UseScopes::enter(const Node *node) {
  int depth = current_ < 0 ? 0 : scopes_[current_].depth + 1;
  scopes_.push_back({node, current_, depth});
  current_ = int(scopes_.size()) - 1;
}

int UseScopes::lowestCommonAncestor(int a, int b) const {
  while (scopes_[a].depth > scopes_[b].depth) a = scopes_[a].parent;
  while (scopes_[b].depth > scopes_[a].depth) b = scopes_[b].parent;
  while (a != b) {
    a = scopes_[a].parent;
    b = scopes_[b].parent;
  }
  return a;
}

void UseScopes::use(const Node *obj) {
  auto [it, inserted] = uses_.try_emplace(obj, Use{current_, 1});
  if (inserted) return;
  ++it->second.count;
  if (it->second.scope != current_) it->second.scope = lowestCommonAncestor(it->second.scope, current_);
}

void UseScopes::visitExprs(const std::vector<Expr> &exprs) {
  for (const Expr &e : exprs) visitExpr(e);
}

void UseScopes::visitRange(const Range &range) {
  if (range.min) visitExpr(range.min);
  if (range.extent) visitExpr(range.extent);
}

void UseScopes::visitBuffer(const BufferRef &buffer) {
  use(buffer.get());
  use(buffer->data.get());
  visitExprs(buffer->shape);
  visitExprs(buffer->strides);
  if (buffer->elemOffset) visitExpr(buffer->elemOffset);
}

void UseScopes::visitRegion(const BufferRegion &region) {
  visitBuffer(region.buffer);
  for (const Range &r : region.region) visitRange(r);
}

void UseScopes::visitIterVar(const IterVarRef &iv) {
  visitRange(iv->dom);
  use(iv->var.get());
}

void UseScopes::visitAttrValue(const AttrValue &value) {
  if (value.isExpr()) visitExpr(value.asExpr());
  else if (value.isArray())
    for (const AttrValue &v : value.asArray()) visitAttrValue(v);
  else if (value.isMap())
    visitAttrs(value.asMap());
}

void UseScopes::visitAttrs(const AttrMap &attrs) {
  for (const auto &entry : attrs) visitAttrValue(entry.second);
}

void UseScopes::visitExpr(const Expr &expr) {
  if (!expr) return;
  const ExprNode &e = *expr;
  switch (e.kind()) {
  case NodeKind::Var: use(&e); return;
  case NodeKind::IntImm:
  case NodeKind::FloatImm:
  case NodeKind::StringImm: return;
  case NodeKind::Cast: visitExpr(static_cast<const Cast &>(e).value); return;
  case NodeKind::Not: visitExpr(static_cast<const Not &>(e).a); return;
  case NodeKind::Select: {
    const auto &s = static_cast<const Select &>(e);
    visitExpr(s.condition);
    visitExpr(s.trueValue);
    visitExpr(s.falseValue);
    return;
  }
  case NodeKind::BufferLoad: {
    const auto &load = static_cast<const BufferLoad &>(e);
    visitBuffer(load.buffer);
    visitExprs(load.indices);
    return;
  }
  case NodeKind::Call: visitExprs(static_cast<const Call &>(e).args); return;
  case NodeKind::Let: {
    const auto &let = static_cast<const Let &>(e);
    use(let.var.get());
    visitExpr(let.value);
    visitExpr(let.body);
    return;
  }
  case NodeKind::Ramp: {
    const auto &ramp = static_cast<const Ramp &>(e);
    visitExpr(ramp.base);
    visitExpr(ramp.stride);
    return;
  }
  case NodeKind::Broadcast: visitExpr(static_cast<const Broadcast &>(e).value); return;
  default: {
    const auto &bin = static_cast<const BinaryExpr &>(e);
    visitExpr(bin.a);
    visitExpr(bin.b);
    return;
  }
  }
}

void UseScopes::visitStmt(const Stmt &stmt) {
  if (!stmt) return;
  enter(stmt.get());
  const StmtNode &s = *stmt;
  switch (s.kind()) {
  case NodeKind::BufferStore: {
    const auto &op = static_cast<const BufferStore &>(s);
    visitBuffer(op.buffer);
    visitExpr(op.value);
    visitExprs(op.indices);
    break;
  }
  case NodeKind::LetStmt: {
    const auto &op = static_cast<const LetStmt &>(s);
    use(op.var.get());
    visitExpr(op.value);
    visitStmt(op.body);
    break;
  }
  case NodeKind::AttrStmt: {
    const auto &op = static_cast<const AttrStmt &>(s);
    if (const auto *iv = op.node.as<IterVar>()) visitIterVar(IterVarRef(iv));
    else if (const auto *buffer = op.node.as<Buffer>()) visitBuffer(BufferRef(buffer));
    else if (const auto *e = op.node.as<ExprNode>()) visitExpr(Expr(e));
    visitExpr(op.value);
    visitStmt(op.body);
    break;
  }
  case NodeKind::AssertStmt: {
    const auto &op = static_cast<const AssertStmt &>(s);
    visitExpr(op.condition);
    visitExpr(op.message);
    visitStmt(op.body);
    break;
  }
  case NodeKind::For: {
    const auto &op = static_cast<const For &>(s);
    use(op.loopVar.get());
    visitExpr(op.min);
    visitExpr(op.extent);
    visitStmt(op.body);
    if (op.threadBinding) visitIterVar(op.threadBinding);
    visitAttrs(op.annotations);
    break;
  }
  case NodeKind::While: {
    const auto &op = static_cast<const While &>(s);
    visitExpr(op.condition);
    visitStmt(op.body);
    break;
  }
  case NodeKind::IfThenElse: {
    const auto &op = static_cast<const IfThenElse &>(s);
    visitExpr(op.condition);
    visitStmt(op.thenCase);
    if (op.elseCase) visitStmt(op.elseCase);
    break;
  }
  case NodeKind::SeqStmt:
    for (const Stmt &child : static_cast<const SeqStmt &>(s).stmts) visitStmt(child);
    break;
  case NodeKind::Evaluate: visitExpr(static_cast<const Evaluate &>(s).value); break;
  case NodeKind::Allocate: {
    const auto &op = static_cast<const Allocate &>(s);
    use(op.bufferVar.get());
    visitExprs(op.extents);
    if (op.condition) visitExpr(op.condition);
    visitStmt(op.body);
    visitAttrs(op.annotations);
    break;
  }
  case NodeKind::DeclBuffer: {
    const auto &op = static_cast<const DeclBuffer &>(s);
    visitBuffer(op.buffer);
    visitStmt(op.body);
    break;
  }
  case NodeKind::Block: {
    const auto &op = static_cast<const Block &>(s);
    for (const IterVarRef &iv : op.iterVars) visitIterVar(iv);
    for (const BufferRegion &r : op.reads) visitRegion(r);
    for (const BufferRegion &r : op.writes) visitRegion(r);
    visitStmt(op.body);
    if (op.init) visitStmt(op.init);
    for (const BufferRef &b : op.allocBuffers) visitBuffer(b);
    for (const MatchBufferRegion &m : op.matchBuffers) {
      visitBuffer(m.buffer);
      visitRegion(m.source);
    }
    visitAttrs(op.annotations);
    break;
  }
  case NodeKind::BlockRealize: {
    const auto &op = static_cast<const BlockRealize &>(s);
    visitExprs(op.iterValues);
    if (op.predicate) visitExpr(op.predicate);
    visitStmt(op.block);
    break;
  }
  default:
    break;
  }
  leave();
}

}  // namespace vtac::ir::detail
