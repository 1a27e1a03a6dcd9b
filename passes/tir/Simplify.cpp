#include "tir/Simplify.h"

#include <unordered_set>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/SideEffect.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {
namespace {

// Variables a buffer definition (data, shape, strides, offset) refers to: a let binding one
// of them must stay, since buffers are not rewritten.
class BufferDefinitionVars : public ir::StmtExprVisitor {
public:
  std::unordered_set<const ir::Var *> vars;

  void visitBufferLoad(const ir::BufferLoad &op) override {
    note(*op.buffer);
    ir::StmtExprVisitor::visitBufferLoad(op);
  }
  void visitBufferStore(const ir::BufferStore &op) override {
    note(*op.buffer);
    ir::StmtExprVisitor::visitBufferStore(op);
  }
  void visitDeclBuffer(const ir::DeclBuffer &op) override {
    note(*op.buffer);
    ir::StmtExprVisitor::visitDeclBuffer(op);
  }

private:
  void note(const ir::Buffer &buffer) {
    auto noteExpr = [&](const ir::Expr &e) {
      if (e) ir::preOrderVisit(e, [&](const ir::Node &n) {
        if (const auto *v = n.as<ir::Var>()) vars.insert(v);
      });
    };
    noteExpr(buffer.data);
    for (const ir::Expr &e : buffer.shape) noteExpr(e);
    for (const ir::Expr &e : buffer.strides) noteExpr(e);
    noteExpr(buffer.elemOffset);
  }
};

class StmtSimplifier : public ir::StmtExprMutator {
public:
  explicit StmtSimplifier(std::unordered_set<const ir::Var *> bufferDefinitionVars)
      : bufferDefinitionVars_(std::move(bufferDefinitionVars)) {}

  using ir::StmtExprMutator::visitStmt;

  // Every expression goes to the analyzer whole; an unchanged one keeps its node.
  ir::Expr visitExpr(const ir::Expr &e) override {
    ir::Expr simplified = analyzer_.simplify(e);
    return ir::structuralEqual(simplified, e) ? e : simplified;
  }

  ir::Stmt visitFor(const ir::For &op) override {
    ir::Expr min = visitExpr(op.min), extent = visitExpr(op.extent);
    analyzer_.bind(op.loopVar, ir::Range{min, extent});
    ir::Expr inRange = ir::makeBinary(ir::NodeKind::And, ir::makeBinary(ir::NodeKind::GE, op.loopVar, min),
                                      ir::makeBinary(ir::NodeKind::LT, op.loopVar, ir::addExpr(min, extent)));
    ir::arith::Analyzer::ConstraintScope scope(analyzer_, inRange);
    ir::Stmt body = visitStmt(op.body);
    return updateFor(op, min, extent, body);
  }

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    if (op.key == "thread_extent" || op.key == "virtual_thread") {
      if (const auto *iv = op.node.as<ir::IterVar>())
        analyzer_.bind(iv->var, ir::Range{ir::intImm(0, op.value->dtype), visitExpr(op.value)});
    }
    return ir::StmtExprMutator::visitAttrStmt(op);
  }

  ir::Stmt visitBlock(const ir::Block &op) override {
    for (const ir::IterVarRef &iv : op.iterVars)
      if (iv->dom.defined()) analyzer_.bind(iv->var, iv->dom);
    return ir::StmtExprMutator::visitBlock(op);
  }

  ir::Stmt visitLetStmt(const ir::LetStmt &op) override {
    ir::Expr value = visitExpr(op.value);
    bool inline_ = value.isa<ir::IntImm>() || value.isa<ir::FloatImm>() || value.isa<ir::Var>() ||
                   (value->dtype.isInt() && ir::sideEffect(value) == ir::SideEffect::Pure);
    if (inline_) analyzer_.bind(op.var, value);
    else if (ir::sideEffect(value) == ir::SideEffect::Pure) nonInlined_[op.var.get()] = value;
    ir::Stmt body = visitStmt(op.body);
    if (inline_ && !bufferDefinitionVars_.count(op.var.get())) return body;
    if (value == op.value && body == op.body) return ir::Stmt(&op);
    return ir::Stmt(new ir::LetStmt(op.var, value, body, op.loc()));
  }

  ir::Stmt visitIfThenElse(const ir::IfThenElse &op) override {
    if (auto decided = proveCondition(op.condition)) {
      if (*decided) return visitStmt(op.thenCase);
      if (op.elseCase) return visitStmt(op.elseCase);
      return ir::Stmt(new ir::Evaluate(ir::intImm(0), op.loc()));
    }
    ir::Expr condition = visitExpr(op.condition);
    ir::Stmt thenCase, elseCase;
    {
      ir::arith::Analyzer::ConstraintScope scope(analyzer_, condition);
      thenCase = visitStmt(op.thenCase);
    }
    if (op.elseCase) {
      ir::arith::Analyzer::ConstraintScope scope(analyzer_, analyzer_.rewriteSimplify(ir::notExpr(condition)));
      elseCase = visitStmt(op.elseCase);
    }
    if (condition == op.condition && thenCase == op.thenCase && elseCase == op.elseCase) return ir::Stmt(&op);
    return ir::Stmt(new ir::IfThenElse(condition, thenCase, elseCase, op.loc()));
  }

  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    ir::Stmt visited = ir::StmtExprMutator::visitBufferStore(op);
    const auto *store = visited.as<ir::BufferStore>();
    const auto *load = store->value.as<ir::BufferLoad>();
    if (load && storesOwnValue(*store, *load)) return ir::Stmt(new ir::Evaluate(ir::intImm(0), op.loc()));
    return visited;
  }

private:
  static bool sameExprs(const std::vector<ir::Expr> &a, const std::vector<ir::Expr> &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!ir::structuralEqual(a[i], b[i])) return false;
    return true;
  }
  static bool sameOptional(const ir::Expr &a, const ir::Expr &b) {
    return (!a && !b) || (a && b && ir::structuralEqual(a, b));
  }
  static bool storesOwnValue(const ir::BufferStore &store, const ir::BufferLoad &load) {
    const ir::Buffer &s = *store.buffer, &l = *load.buffer;
    return s.data == l.data && sameExprs(store.indices, load.indices) && sameOptional(s.elemOffset, l.elemOffset) &&
           sameExprs(s.shape, l.shape) && sameExprs(s.strides, l.strides);
  }

  // The condition decided with the non-inlined pure lets substituted (TVM's ProveCondition).
  std::optional<bool> proveCondition(const ir::Expr &condition) {
    ir::Expr simplified = analyzer_.simplify(ir::substitute(condition, nonInlined_));
    if (auto c = ir::asConstInt(simplified)) return *c != 0;
    return std::nullopt;
  }

  ir::arith::Analyzer analyzer_;
  std::unordered_set<const ir::Var *> bufferDefinitionVars_;
  ir::VarMap nonInlined_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> simplify(const ir::PrimFuncRef &func, PassContext &) {
  BufferDefinitionVars collector;
  collector.visitStmt(func->body);
  return withBody(func, StmtSimplifier(std::move(collector.vars)).visitStmt(func->body));
}

}  // namespace vtac::passes
