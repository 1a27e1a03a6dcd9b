#include "tir/Simplify.h"

#include <unordered_set>

#include "tir/AndOfOrs.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/SideEffect.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {

std::vector<std::string> simplifyOptions() {
  return {"simplify.apply-constraints-to-boolean-branches", "simplify.convert-boolean-to-and-of-ors"};
}

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

struct SimplifyConfig {
  bool applyConstraintsToBooleanBranches = false;
  bool convertBooleanToAndOfOrs = false;
};

llvm::Expected<SimplifyConfig> readConfig(const PassContext &context) {
  SimplifyConfig config;
  const std::vector<std::string> names = simplifyOptions();
  bool *fields[] = {&config.applyConstraintsToBooleanBranches, &config.convertBooleanToAndOfOrs};
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = context.options.find(names[i]);
    if (it == context.options.end()) continue;
    if (it->second != "0" && it->second != "1")
      return ir::diagnosticError(llvm::Twine("option ") + names[i] + " wants 0 or 1, not '" + it->second + "'");
    *fields[i] = it->second == "1";
  }
  return config;
}

// apply-constraints-to-boolean-branches (TVM's RewriteSimplifier extension): in `a and b` each
// side only matters where the other holds, in `a or b` where the other fails, so each side is
// simplified under that constraint, alternating until neither changes (at most twice each, as
// TVM does). Walks the and/or/not tree; its leaves go to the analyzer whole.
ir::Expr simplifyBooleanBranches(ir::arith::Analyzer &analyzer, const ir::Expr &e) {
  if (const auto *n = e.as<ir::Not>()) return ir::notExpr(simplifyBooleanBranches(analyzer, n->a));
  const auto *op = e.as<ir::BinaryExpr>();
  if (!op || !ir::BinaryExpr::isLogical(op->kind())) return analyzer.simplify(e);
  bool isAnd = op->kind() == ir::NodeKind::And;
  ir::Expr sides[2] = {op->a, op->b};
  for (int i = 0, unchanged = 0; i < 4 && unchanged < 2; ++i) {
    ir::Expr &side = sides[i % 2];
    const ir::Expr &other = sides[1 - i % 2];
    ir::arith::Analyzer::ConstraintScope scope(analyzer, isAnd ? other : analyzer.rewriteSimplify(ir::notExpr(other)));
    ir::Expr updated = simplifyBooleanBranches(analyzer, side);
    unchanged = ir::structuralEqual(updated, side) ? unchanged + 1 : 0;
    side = updated;
  }
  return ir::makeBinary(op->kind(), sides[0], sides[1], op->loc());
}

class StmtSimplifier : public ir::StmtExprMutator {
public:
  StmtSimplifier(std::unordered_set<const ir::Var *> bufferDefinitionVars, SimplifyConfig config)
      : bufferDefinitionVars_(std::move(bufferDefinitionVars)), config_(config) {}

  using ir::StmtExprMutator::visitStmt;

  // Every expression goes to the analyzer whole; an unchanged one keeps its node.
  ir::Expr visitExpr(const ir::Expr &e) override {
    ir::Expr simplified = analyzer_.simplify(config_.applyConstraintsToBooleanBranches
                                                 ? simplifyBooleanBranches(analyzer_, e) : e);
    // TVM applies the and-of-ors form to an outermost and/or, after its other rules.
    const auto *root = simplified.as<ir::BinaryExpr>();
    if (config_.convertBooleanToAndOfOrs && root && ir::BinaryExpr::isLogical(root->kind()))
      simplified = simplifyAsAndOfOrs(analyzer_, simplified);
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
    // Decided with the lets substituted, or once simplified (a let-bound condition is known
    // only as itself, under an enclosing `if` on the same variable).
    std::optional<bool> decided = proveCondition(op.condition);
    ir::Expr condition = visitExpr(op.condition);
    if (auto c = ir::asConstInt(condition); !decided && c) decided = *c != 0;
    if (decided) {
      if (*decided) return visitStmt(op.thenCase);
      if (op.elseCase) return visitStmt(op.elseCase);
      return ir::Stmt(new ir::Evaluate(ir::intImm(0), op.loc()));
    }
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
  SimplifyConfig config_;
  ir::VarMap nonInlined_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> simplify(const ir::PrimFuncRef &func, PassContext &context) {
  llvm::Expected<SimplifyConfig> config = readConfig(context);
  if (!config) return config.takeError();
  BufferDefinitionVars collector;
  collector.visitStmt(func->body);
  return withBody(func, StmtSimplifier(std::move(collector.vars), *config).visitStmt(func->body));
}

}  // namespace vtac::passes
