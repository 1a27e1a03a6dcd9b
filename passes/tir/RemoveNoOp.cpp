#include "tir/RemoveNoOp.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/SideEffect.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {
namespace {

bool isNoOp(const ir::Stmt &s) {
  if (const auto *e = s.as<ir::Evaluate>()) return e->value.isa<ir::IntImm>();
  if (const auto *seq = s.as<ir::SeqStmt>()) return seq->stmts.empty();
  return false;
}

ir::Stmt nothing(ir::SourceLoc loc) { return ir::Stmt(new ir::Evaluate(ir::intImm(0), loc)); }

// What must still run of expressions whose values are dropped: their opaque calls.
ir::Stmt keepSideEffects(const std::vector<ir::Expr> &values, ir::SourceLoc loc) {
  std::vector<ir::Stmt> kept;
  for (const ir::Expr &e : values)
    if (ir::sideEffect(e) == ir::SideEffect::Opaque) kept.push_back(ir::Stmt(new ir::Evaluate(e, loc)));
  if (kept.empty()) return nothing(loc);
  return ir::seq(std::move(kept), loc);
}

bool uses(const ir::Stmt &s, const ir::Node *target) {
  bool found = false;
  ir::preOrderVisit(s, [&](const ir::Node &n) { found |= &n == target; });
  return found;
}

class NoOpRemover : public ir::StmtExprMutator {
public:
  ir::Stmt visitSeqStmt(const ir::SeqStmt &op) override {
    std::vector<ir::Stmt> kept;
    bool changed = false;
    for (const ir::Stmt &s : op.stmts) {
      ir::Stmt visited = visitStmt(s);
      changed |= visited != s;
      if (isNoOp(visited)) {
        changed = true;
        continue;
      }
      kept.push_back(visited);
    }
    if (!changed) return ir::Stmt(&op);
    if (kept.empty()) return nothing(op.loc());
    return ir::seq(std::move(kept), op.loc());
  }

  ir::Stmt visitEvaluate(const ir::Evaluate &op) override {
    if (ir::sideEffect(op.value) == ir::SideEffect::Opaque || isNoOp(ir::Stmt(&op))) return ir::Stmt(&op);
    return nothing(op.loc());
  }

  ir::Stmt visitLetStmt(const ir::LetStmt &op) override {
    analyzer_.bind(op.var, op.value);
    ir::Stmt visited = ir::StmtExprMutator::visitLetStmt(op);
    const auto *let = visited.as<ir::LetStmt>();
    if (isNoOp(let->body)) return keepSideEffects({let->value}, op.loc());
    if (uses(let->body, let->var.get())) return visited;
    if (ir::sideEffect(let->value) == ir::SideEffect::Opaque)
      return ir::seq({ir::Stmt(new ir::Evaluate(let->value, op.loc())), let->body}, op.loc());
    return let->body;
  }

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    if (op.key == "pragma_debug_skip_region") return nothing(op.loc());
    if (op.key == "thread_extent" || op.key == "virtual_thread")
      if (const auto *iv = op.node.as<ir::IterVar>()) analyzer_.bind(iv->var, ir::Range{ir::intImm(0, op.value->dtype), op.value});
    ir::Stmt visited = ir::StmtExprMutator::visitAttrStmt(op);
    const auto *attr = visited.as<ir::AttrStmt>();
    return isNoOp(attr->body) ? keepSideEffects({attr->value}, op.loc()) : visited;
  }

  ir::Stmt visitIfThenElse(const ir::IfThenElse &op) override {
    ir::Stmt thenCase, elseCase;
    {
      ir::arith::Analyzer::ConstraintScope scope(analyzer_, op.condition);
      thenCase = visitStmt(op.thenCase);
    }
    if (op.elseCase) {
      ir::arith::Analyzer::ConstraintScope scope(analyzer_, ir::notExpr(op.condition));
      elseCase = visitStmt(op.elseCase);
    }
    bool noThen = isNoOp(thenCase), noElse = !elseCase || isNoOp(elseCase);
    if (noThen && noElse) return keepSideEffects({op.condition}, op.loc());
    if (noThen) return ir::Stmt(new ir::IfThenElse(ir::notExpr(op.condition), elseCase, nullptr, op.loc()));
    if (elseCase && noElse) return ir::Stmt(new ir::IfThenElse(op.condition, thenCase, nullptr, op.loc()));
    if (thenCase == op.thenCase && elseCase == op.elseCase) return ir::Stmt(&op);
    return ir::Stmt(new ir::IfThenElse(op.condition, thenCase, elseCase, op.loc()));
  }

  ir::Stmt visitFor(const ir::For &op) override {
    if (analyzer_.constIntBound(op.extent).max <= 0) return nothing(op.loc());
    analyzer_.bind(op.loopVar, ir::Range{op.min, op.extent});
    ir::Stmt visited = ir::StmtExprMutator::visitFor(op);
    const auto *loop = visited.as<ir::For>();
    return isNoOp(loop->body) ? keepSideEffects({loop->min, loop->extent}, op.loc()) : visited;
  }

  ir::Stmt visitAllocate(const ir::Allocate &op) override {
    ir::Stmt visited = ir::StmtExprMutator::visitAllocate(op);
    const auto *alloc = visited.as<ir::Allocate>();
    return isNoOp(alloc->body) ? keepSideEffects(alloc->extents, op.loc()) : visited;
  }

  ir::Stmt visitDeclBuffer(const ir::DeclBuffer &op) override {
    ir::Stmt visited = ir::StmtExprMutator::visitDeclBuffer(op);
    const auto *decl = visited.as<ir::DeclBuffer>();
    return usesBuffer(decl->body, decl->buffer.get()) ? visited : decl->body;
  }

  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    const auto *load = op.value.as<ir::BufferLoad>();
    if (load && storesOwnValue(op, *load)) {
      std::vector<ir::Expr> parts{op.value};
      parts.insert(parts.end(), op.indices.begin(), op.indices.end());
      return keepSideEffects(parts, op.loc());
    }
    return ir::Stmt(&op);
  }

private:
  bool equalAll(const std::vector<ir::Expr> &a, const std::vector<ir::Expr> &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!analyzer_.canProveEqual(a[i], b[i])) return false;
    return true;
  }
  bool storesOwnValue(const ir::BufferStore &store, const ir::BufferLoad &load) {
    const ir::Buffer &s = *store.buffer, &l = *load.buffer;
    ir::Expr zero = ir::intImm(0);
    return s.data == l.data && analyzer_.canProveEqual(s.elemOffset ? s.elemOffset : zero, l.elemOffset ? l.elemOffset : zero) &&
           equalAll(s.shape, l.shape) && equalAll(s.strides, l.strides) && equalAll(store.indices, load.indices);
  }
  static bool usesBuffer(const ir::Stmt &s, const ir::Buffer *buffer) {
    bool found = false;
    ir::preOrderVisit(s, [&](const ir::Node &n) {
      if (const auto *load = n.as<ir::BufferLoad>()) found |= load->buffer.get() == buffer;
      if (const auto *store = n.as<ir::BufferStore>()) found |= store->buffer.get() == buffer;
      if (const auto *decl = n.as<ir::DeclBuffer>()) found |= decl->buffer.get() == buffer;
    });
    return found;
  }

  ir::arith::Analyzer analyzer_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> removeNoOp(const ir::PrimFuncRef &func, PassContext &) {
  return withBody(func, NoOpRemover().visitStmt(func->body));
}

}  // namespace vtac::passes
