#include "tir/Simplify.h"

#include <algorithm>
#include <unordered_set>

#include "tir/AndOfOrs.h"
#include "tir/KnownBufferValues.h"
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
  return {"simplify.apply-constraints-to-boolean-branches", "simplify.convert-boolean-to-and-of-ors",
          "simplify.transitively-prove-inequalities", "simplify.propagate-knowns-to-prove-conditional",
          "simplify.propagate-knowns-to-simplify-expressions"};
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
  bool transitivelyProveInequalities = false;
  bool propagateKnownsToProveConditional = false;
  bool propagateKnownsToSimplifyExpressions = false;
};

llvm::Expected<SimplifyConfig> readConfig(const PassContext &context) {
  SimplifyConfig config;
  const std::vector<std::string> names = simplifyOptions();
  bool *fields[] = {&config.applyConstraintsToBooleanBranches, &config.convertBooleanToAndOfOrs,
                    &config.transitivelyProveInequalities, &config.propagateKnownsToProveConditional,
                    &config.propagateKnownsToSimplifyExpressions};
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = context.options.find(names[i]);
    if (it == context.options.end()) continue;
    if (it->second != "0" && it->second != "1")
      return ir::diagnosticError(llvm::Twine("option ") + names[i] + " wants 0 or 1, not '" + it->second + "'");
    *fields[i] = it->second == "1";
  }
  return config;
}

// transitively-prove-inequalities (TVM's TransitiveComparisonAnalyzer, in one step): an integer
// comparison is decided by a comparison known to hold when their differences differ by a
// constant: `n < m + 5` gives `n < m + 10` (m + 10 - n exceeds m + 5 - n by 5) and refutes
// `n >= m + 5`. Like TVM, it takes index arithmetic not to wrap.
std::optional<bool> proveByComparison(ir::arith::Analyzer &analyzer, const std::vector<ir::Expr> &known, const ir::Expr &goal) {
  // `a op b` as `d >= 0`.
  auto asNonNegative = [](const ir::Expr &e) -> ir::Expr {
    const auto *c = e.as<ir::BinaryExpr>();
    if (!c || !ir::BinaryExpr::isComparison(c->kind()) || !c->a->dtype.isInt() || !c->a->dtype.isScalar()) return nullptr;
    switch (c->kind()) {
    case ir::NodeKind::LT: return ir::subExpr(ir::subExpr(c->b, c->a), ir::intImm(1, c->a->dtype));
    case ir::NodeKind::LE: return ir::subExpr(c->b, c->a);
    case ir::NodeKind::GT: return ir::subExpr(ir::subExpr(c->a, c->b), ir::intImm(1, c->a->dtype));
    case ir::NodeKind::GE: return ir::subExpr(c->a, c->b);
    default: return nullptr;
    }
  };
  ir::Expr holds = asNonNegative(goal);
  if (!holds) return std::nullopt;
  ir::Expr fails = ir::subExpr(ir::subExpr(ir::intImm(0, holds->dtype), holds), ir::intImm(1, holds->dtype));
  for (const ir::Expr &fact : known) {
    ir::Expr given = asNonNegative(fact);
    if (!given || given->dtype != holds->dtype) continue;
    // d >= given >= 0 when d - given is a constant >= 0.
    auto margin = [&](const ir::Expr &d) { return ir::asConstInt(analyzer.simplify(ir::subExpr(d, given))); };
    if (auto m = margin(holds); m && *m >= 0) return true;
    if (auto m = margin(fails); m && *m >= 0) return false;
  }
  return std::nullopt;
}

// apply-constraints-to-boolean-branches (TVM's RewriteSimplifier extension): in `a and b` each
// side only matters where the other holds, in `a or b` where the other fails, so each side is
// simplified under that constraint, alternating until neither changes (at most twice each, as
// TVM does). Walks the and/or/not tree; its leaves go to the analyzer whole, and with
// `comparisons` (transitively-prove-inequalities: the comparisons in force) to
// proveByComparison.
ir::Expr simplifyBooleanBranches(ir::arith::Analyzer &analyzer, std::vector<ir::Expr> *comparisons, const ir::Expr &e) {
  if (const auto *n = e.as<ir::Not>()) return ir::notExpr(simplifyBooleanBranches(analyzer, comparisons, n->a));
  const auto *op = e.as<ir::BinaryExpr>();
  if (!op || !ir::BinaryExpr::isLogical(op->kind())) {
    ir::Expr simplified = analyzer.simplify(e);
    if (!comparisons) return simplified;
    std::optional<bool> decided = proveByComparison(analyzer, *comparisons, simplified);
    return decided ? ir::boolImm(*decided, e->loc()) : simplified;
  }
  bool isAnd = op->kind() == ir::NodeKind::And;
  ir::Expr sides[2] = {op->a, op->b};
  for (int i = 0, unchanged = 0; i < 4 && unchanged < 2; ++i) {
    ir::Expr &side = sides[i % 2];
    const ir::Expr &other = sides[1 - i % 2];
    ir::Expr constraint = isAnd ? other : analyzer.rewriteSimplify(ir::notExpr(other));
    ir::arith::Analyzer::ConstraintScope scope(analyzer, constraint);
    std::vector<ir::Expr> terms = ir::arith::conjuncts(constraint, ir::arith::LikelyConjunct::LookThrough);
    if (comparisons) comparisons->insert(comparisons->end(), terms.begin(), terms.end());
    ir::Expr updated = simplifyBooleanBranches(analyzer, comparisons, side);
    if (comparisons) comparisons->resize(comparisons->size() - terms.size());
    unchanged = ir::structuralEqual(updated, side) ? unchanged + 1 : 0;
    side = updated;
  }
  return ir::makeBinary(op->kind(), sides[0], sides[1], op->loc());
}

// Whether the buffer facts of the propagate-knowns options can follow `body`: its statements run
// in one order, none concurrently (threads, parallel loops) or only sometimes (a block's init
// runs on a reduction's first step only).
bool knownsApply(const ir::Stmt &body) {
  bool sequential = true;
  ir::preOrderVisit(body, [&](const ir::Node &n) {
    if (n.isa<ir::Block>()) sequential = false;
    if (const auto *attr = n.as<ir::AttrStmt>(); attr && (attr->key == "thread_extent" || attr->key == "virtual_thread"))
      sequential = false;
    if (const auto *loop = n.as<ir::For>(); loop && (loop->forKind == ir::ForKind::Parallel || loop->forKind == ir::ForKind::ThreadBinding))
      sequential = false;
  });
  return sequential;
}

ir::Expr conjunctionOf(const std::vector<ir::Expr> &terms) {
  ir::Expr all = terms.front();
  for (size_t i = 1; i < terms.size(); ++i) all = ir::makeBinary(ir::NodeKind::And, all, terms[i]);
  return all;
}

class StmtSimplifier : public ir::StmtExprMutator {
public:
  StmtSimplifier(std::unordered_set<const ir::Var *> bufferDefinitionVars, SimplifyConfig config, bool sequential)
      : bufferDefinitionVars_(std::move(bufferDefinitionVars)), config_(config),
        tracksKnowns_(sequential && (config.propagateKnownsToProveConditional || config.propagateKnownsToSimplifyExpressions)) {}

  // The parameter buffers' size variables, by the buffers fitting in memory (as TVM's Simplify
  // marks the buffer_map's dimensions non-negative).
  void boundShapeVariables(const ir::PrimFunc &func) { ir::arith::boundShapeVariables(analyzer_, func); }

  // With the propagate-knowns options, what may write memory where the buffer facts do not
  // follow it forgets them all.
  ir::Stmt visitStmt(const ir::Stmt &s) override {
    if (!tracksKnowns_) return ir::StmtExprMutator::visitStmt(s);
    bool unmodeled = s.isa<ir::While>();
    const auto *attr = s.as<ir::AttrStmt>();
    const auto *assertion = s.as<ir::AssertStmt>();
    if (unmodeled || (attr && writesMemory(attr->value)) ||
        (assertion && (writesMemory(assertion->condition) || writesMemory(assertion->message))))
      knowns_.forgetBuffers();
    ir::Stmt visited = ir::StmtExprMutator::visitStmt(s);
    if (unmodeled) knowns_.forgetBuffers();
    if (const auto *evaluate = visited.as<ir::Evaluate>()) {
      const auto *call = evaluate->value.as<ir::Call>();
      if (call && call->op == "tir.assume" && call->args.size() == 1) knowns_.assume(call->args[0], true);
      else if (writesMemory(evaluate->value)) knowns_.forgetBuffers();
    }
    return visited;
  }

  // Every expression goes to the analyzer whole; an unchanged one keeps its node.
  ir::Expr visitExpr(const ir::Expr &e) override {
    std::vector<ir::Expr> *comparisons = config_.transitivelyProveInequalities ? &comparisons_ : nullptr;
    ir::Expr resolved = tracksKnowns_ && config_.propagateKnownsToSimplifyExpressions ? knowns_.resolve(e, nullptr) : e;
    ir::Expr simplified = analyzer_.simplify(config_.applyConstraintsToBooleanBranches
                                                 ? simplifyBooleanBranches(analyzer_, comparisons, resolved) : resolved);
    if (comparisons)
      if (std::optional<bool> decided = proveByComparison(analyzer_, *comparisons, simplified))
        simplified = ir::boolImm(*decided, e->loc());
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
    if (tracksKnowns_) knowns_.enterLoop(op.loopVar, min, extent, op.body);
    ir::Stmt body = visitStmt(op.body);
    if (tracksKnowns_) knowns_.exitLoop();
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
    if (tracksKnowns_ && writesMemory(value)) knowns_.forgetBuffers();
    if (tracksKnowns_ && value->dtype.isHandle()) knowns_.noteAlias(*op.var);
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
    if (!decided && tracksKnowns_ && config_.propagateKnownsToProveConditional) decided = proveWithKnowns(condition);
    if (decided) {
      if (*decided) return visitStmt(op.thenCase);
      if (op.elseCase) return visitStmt(op.elseCase);
      return ir::Stmt(new ir::Evaluate(ir::intImm(0), op.loc()));
    }
    KnownBufferValues::State before = knowns_.state();
    ir::Expr negated = analyzer_.rewriteSimplify(ir::notExpr(condition));
    ir::Stmt thenCase = visitBranch(condition, op.thenCase);
    KnownBufferValues::State thenState = knowns_.state();
    knowns_.setState(before);
    ir::Stmt elseCase = op.elseCase ? visitBranch(negated, op.elseCase) : nullptr;
    if (tracksKnowns_) knowns_.mergeBranches(condition, thenState, knowns_.state());
    if (condition == op.condition && thenCase == op.thenCase && elseCase == op.elseCase) return ir::Stmt(&op);
    return ir::Stmt(new ir::IfThenElse(condition, thenCase, elseCase, op.loc()));
  }

  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    ir::Stmt visited = ir::StmtExprMutator::visitBufferStore(op);
    const auto *store = visited.as<ir::BufferStore>();
    const auto *load = store->value.as<ir::BufferLoad>();
    if (load && storesOwnValue(*store, *load)) return ir::Stmt(new ir::Evaluate(ir::intImm(0), op.loc()));
    if (tracksKnowns_) {
      if (writesMemory(store->value) || std::any_of(store->indices.begin(), store->indices.end(), writesMemory))
        knowns_.forgetBuffers();
      knowns_.store(*store);
    }
    return visited;
  }

private:
  static bool writesMemory(const ir::Expr &e) { return e && ir::sideEffect(e) == ir::SideEffect::Opaque; }

  static bool storesOwnValue(const ir::BufferStore &store, const ir::BufferLoad &load) {
    return store.buffer->data == load.buffer->data && sameBufferLayout(*store.buffer, *load.buffer) &&
           structurallyEqualExprs(store.indices, load.indices);
  }

  // A branch of an `if`, visited where `condition` holds.
  ir::Stmt visitBranch(const ir::Expr &condition, const ir::Stmt &branch) {
    ir::arith::Analyzer::ConstraintScope scope(analyzer_, condition);
    // A conjunct that reads memory may stop holding in the branch.
    std::vector<ir::Expr> terms = ir::arith::conjuncts(condition, ir::arith::LikelyConjunct::LookThrough);
    terms.erase(std::remove_if(terms.begin(), terms.end(), [](const ir::Expr &t) { return ir::sideEffect(t) != ir::SideEffect::Pure; }),
                terms.end());
    comparisons_.insert(comparisons_.end(), terms.begin(), terms.end());
    if (tracksKnowns_) knowns_.assume(condition, false);
    ir::Stmt visited = visitStmt(branch);
    comparisons_.resize(comparisons_.size() - terms.size());
    return visited;
  }

  // propagate-knowns-to-prove-conditional: the condition decided with what is known of the
  // buffer elements it reads and the assumptions in force.
  std::optional<bool> proveWithKnowns(const ir::Expr &condition) {
    std::vector<ir::Expr> constraints;
    ir::Expr resolved = knowns_.resolve(condition, &constraints);
    std::optional<ir::arith::Analyzer::ConstraintScope> scope;
    if (!constraints.empty()) scope.emplace(analyzer_, conjunctionOf(constraints));
    if (auto c = ir::asConstInt(analyzer_.simplify(resolved))) return *c != 0;
    return std::nullopt;
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
  bool tracksKnowns_;
  KnownBufferValues knowns_{analyzer_};
  std::vector<ir::Expr> comparisons_;  // the conditions of the enclosing ifs, for proveByComparison
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> simplify(const ir::PrimFuncRef &func, PassContext &context) {
  llvm::Expected<SimplifyConfig> config = readConfig(context);
  if (!config) return config.takeError();
  BufferDefinitionVars collector;
  collector.visitStmt(func->body);
  StmtSimplifier simplifier(std::move(collector.vars), *config, knownsApply(func->body));
  simplifier.boundShapeVariables(*func);
  return withBody(func, simplifier.visitStmt(func->body));
}

}  // namespace vtac::passes
