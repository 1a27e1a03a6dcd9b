#include "vta/InjectVirtualThread.h"

#include <map>
#include <set>

#include "vta/VtaTarget.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes {
namespace {

using VarSet = std::set<const ir::Var *>;

// The variables whose value depends on the thread variable: lets, loop variables and stored
// buffers computed from it, transitively (TVM's VarTouchedAnalysis).
class ThreadDependence : public ir::StmtExprVisitor {
public:
  VarSet touched(const ir::Stmt &body, const ir::Var *thread) {
    VarSet result{thread};
    visitStmt(body);
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto &[var, uses] : dependsOn_)
        if (!result.count(var) && std::any_of(uses.begin(), uses.end(),
                                              [&](const ir::Var *u) { return result.count(u); }))
          grew = result.insert(var).second;
    }
    return result;
  }

  void visitLetStmt(const ir::LetStmt &op) override {
    record(op.var.get(), {op.value});
    StmtExprVisitor::visitLetStmt(op);
  }
  void visitFor(const ir::For &op) override {
    record(op.loopVar.get(), {op.min, op.extent});
    StmtExprVisitor::visitFor(op);
  }
  void visitBufferStore(const ir::BufferStore &op) override {
    std::vector<ir::Expr> exprs = op.indices;
    exprs.push_back(op.value);
    record(op.buffer->data.get(), exprs);
    StmtExprVisitor::visitBufferStore(op);
  }

private:
  void record(const ir::Var *var, const std::vector<ir::Expr> &exprs) {
    auto &uses = dependsOn_[var];
    for (const ir::Expr &e : exprs)
      ir::preOrderVisit(e, [&](const ir::Node &n) {
        if (const auto *v = n.as<ir::Var>()) uses.insert(v);
        if (const auto *load = n.as<ir::BufferLoad>()) uses.insert(load->buffer->data.get());
      });
  }
  std::map<const ir::Var *, VarSet> dependsOn_;
};

// Folds the integer arithmetic left by substituting a thread index (`2304 * 0 + x`).
class IndexFolder : public ir::StmtExprMutator {
public:
  ir::Expr visitBinary(const ir::BinaryExpr &op) override {
    ir::Expr visited = StmtExprMutator::visitBinary(op);
    return ir::simplify(visited);
  }
};

class VirtualThreadInjector : public FirstErrorMutator {
public:
  VirtualThreadInjector(ir::VarRef thread, int64_t count, VarSet touched, bool allowShare)
      : thread_(std::move(thread)), count_(count), touched_(std::move(touched)),
        allowShare_(allowShare) {}

  ir::Stmt visitStmt(const ir::Stmt &stmt) override {
    ir::Stmt result = StmtExprMutator::visitStmt(stmt);
    if (usesThread_ || perThread_) {
      if (!injected_) return injectThreads(result, false);
      usesThread_ = perThread_ = false;
    }
    return result;
  }

  ir::Expr visitVar(const ir::Var &op) override {
    if (remapped_.count(&op)) fail(op, "the address of on-chip buffer '" + op.name +
                                           "' is used where its per-thread copy cannot follow");
    if (touched_.count(&op)) usesThread_ = true;
    return ir::Expr(&op);
  }

  ir::Expr visitBufferLoad(const ir::BufferLoad &op) override {
    ir::Expr visited = StmtExprMutator::visitBufferLoad(op);
    const auto *load = visited.as<ir::BufferLoad>();
    if (touched_.count(load->buffer->data.get())) usesThread_ = true;
    auto it = remapped_.find(load->buffer->data.get());
    if (it == remapped_.end()) return visited;
    return ir::bufferLoad(load->buffer, {shift(load->indices[0], it->second)}, load->loc());
  }

  ir::Expr visitCall(const ir::Call &op) override {
    if (op.op != "tir.tvm_access_ptr" || op.args.size() != 5) return StmtExprMutator::visitCall(op);
    const auto *data = op.args[1].as<ir::Var>();
    auto it = data ? remapped_.find(data) : remapped_.end();
    if (it == remapped_.end()) return StmtExprMutator::visitCall(op);
    usesThread_ = true;
    ir::Expr offset = visitExpr(op.args[2]), extent = visitExpr(op.args[3]);
    offset = ir::Expr(thread_) * it->second + offset;
    return ir::make<ir::Call>(op.dtype, op.op,
                              std::vector<ir::Expr>{op.args[0], op.args[1], offset, extent, op.args[4]},
                              op.loc());
  }

  ir::Stmt visitEvaluate(const ir::Evaluate &op) override {
    perThread_ = !allowShare_;
    return StmtExprMutator::visitEvaluate(op);
  }

  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    ir::Stmt visited = StmtExprMutator::visitBufferStore(op);
    const auto *store = visited.as<ir::BufferStore>();
    if (touched_.count(store->buffer->data.get())) usesThread_ = true;
    perThread_ = !allowShare_;
    auto it = remapped_.find(store->buffer->data.get());
    if (it == remapped_.end()) return visited;
    return ir::make<ir::BufferStore>(store->buffer, store->value,
                                     std::vector<ir::Expr>{shift(store->indices[0], it->second)},
                                     store->loc());
  }

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    ir::Expr value = visitExpr(op.value);
    bool coproc = op.key == "coproc_scope" || op.key == "coproc_uop_scope";
    if (!injected_ && (usesThread_ || (!allowShare_ && coproc)))
      return injectThreads(ir::Stmt(&op), true);
    ir::Stmt body = visitStmt(op.body);
    if (value == op.value && body == op.body) return ir::Stmt(&op);
    return ir::make<ir::AttrStmt>(op.node, op.key, value, body, op.loc());
  }

  ir::Stmt visitLetStmt(const ir::LetStmt &op) override {
    ir::Expr value = visitExpr(op.value);
    if (usesThread_ && !injected_) return injectThreads(ir::Stmt(&op), true);
    usesThread_ = false;
    ir::Stmt body = visitStmt(op.body);
    if (value == op.value && body == op.body) return ir::Stmt(&op);
    return ir::make<ir::LetStmt>(op.var, value, body, op.loc());
  }

  ir::Stmt visitFor(const ir::For &op) override {
    ir::Expr extent = visitExpr(op.extent);
    if (usesThread_ && !injected_) {
      ir::Stmt stmt = injectThreads(ir::Stmt(&op), true);
      ++loopDepth_;
      return stmt;
    }
    usesThread_ = false;
    ir::Stmt body = visitStmt(op.body);
    ++loopDepth_;
    if (extent == op.extent && body == op.body) return ir::Stmt(&op);
    return ir::make<ir::For>(op.loopVar, op.min, extent, op.forKind, body, op.threadBinding,
                             op.annotations, op.loc());
  }

  ir::Stmt visitIfThenElse(const ir::IfThenElse &op) override {
    ir::Expr condition = visitExpr(op.condition);
    if (usesThread_ && !injected_) return injectThreads(ir::Stmt(&op), true);
    usesThread_ = false;
    ir::Stmt thenCase = visitStmt(op.thenCase), elseCase;
    if (op.elseCase) {
      int outer = loopDepth_;
      loopDepth_ = 0;
      elseCase = visitStmt(op.elseCase);
      loopDepth_ = std::max(outer, loopDepth_);
    }
    if (condition == op.condition && thenCase == op.thenCase && elseCase == op.elseCase)
      return ir::Stmt(&op);
    return ir::make<ir::IfThenElse>(condition, thenCase, elseCase, op.loc());
  }

  ir::Stmt visitWhile(const ir::While &op) override {
    fail(op, "while loops inside a virtual thread are not supported");
    return ir::Stmt(&op);
  }

  ir::Stmt visitSeqStmt(const ir::SeqStmt &op) override {
    std::vector<ir::Stmt> stmts;
    bool changed = false;
    for (const ir::Stmt &s : op.stmts) {
      int outer = loopDepth_;
      loopDepth_ = 0;
      stmts.push_back(visitStmt(s));
      loopDepth_ = std::max(loopDepth_, outer);
      changed |= stmts.back() != s;
    }
    return changed ? ir::seq(stmts, op.loc()) : ir::Stmt(&op);
  }

  ir::Stmt visitAllocate(const ir::Allocate &op) override {
    std::vector<ir::Expr> extents;
    for (const ir::Expr &e : op.extents) extents.push_back(visitExpr(e));
    if (usesThread_ && !injected_) return injectThreads(ir::Stmt(&op), true);
    usesThread_ = false;
    if (!touched_.count(op.bufferVar.get()) && allowShare_)
      return StmtExprMutator::visitAllocate(op);
    if (op.constantData) {
      fail(op, "constant allocation '" + op.bufferVar->name + "' cannot be replicated per virtual thread");
      return ir::Stmt(&op);
    }
    if (extents.size() != 1) {
      fail(op, "allocation '" + op.bufferVar->name + "' is not flat (run tir-lower first)");
      return ir::Stmt(&op);
    }
    ir::Expr stride = extents[0];
    remapped_[op.bufferVar.get()] = stride;
    ir::Stmt body = visitStmt(op.body);
    ir::Allocate *replicated = ir::copyNode(op);
    replicated->extents = {ir::simplify(stride * count_)};
    replicated->body = body;
    return ir::Stmt(replicated);
  }

private:
  ir::Expr shift(const ir::Expr &index, const ir::Expr &stride) const {
    return index + ir::Expr(thread_) * stride;
  }

  // One copy of stmt per thread: unrolled when it has no loop, else a loop over the threads.
  ir::Stmt injectThreads(ir::Stmt stmt, bool beforeMutation) {
    usesThread_ = perThread_ = false;
    injected_ = true;
    if (beforeMutation) stmt = visitStmt(stmt);
    injected_ = false;
    usesThread_ = false;
    if (loopDepth_ == 0 && count_ < 16) {
      std::vector<ir::Stmt> copies;
      for (int64_t i = 0; i < count_; ++i) {
        ir::VarMap index{{thread_.get(), ir::intImm(i, thread_->dtype)}};
        copies.push_back(IndexFolder().visitStmt(ir::substitute(stmt, index)));
      }
      return ir::seq(copies, stmt->loc());
    }
    ir::VarRef loopVar = ir::makeVar(thread_->name + "_s", thread_->dtype, stmt->loc());
    ir::Stmt body = ir::substitute(stmt, ir::VarMap{{thread_.get(), ir::Expr(loopVar)}});
    return ir::make<ir::For>(loopVar, ir::intImm(0, thread_->dtype), ir::intImm(count_, thread_->dtype),
                             ir::ForKind::Serial, body, nullptr, ir::AttrMap{}, stmt->loc());
  }

  ir::VarRef thread_;
  int64_t count_;
  VarSet touched_;
  bool allowShare_;
  bool injected_ = false, usesThread_ = false, perThread_ = false;
  int loopDepth_ = 0;
  std::map<const ir::Var *, ir::Expr> remapped_;
};

// One virtual-thread axis of the function: its variable, thread count and sharing mode.
struct ThreadAxis {
  ir::VarRef var;
  int64_t count;
  bool allowShare;  // vthread shares what does not depend on the thread; cthread never does
};

std::optional<ThreadAxis> threadAxisOf(const ir::AttrStmt &attr) {
  const auto *iv = attr.node.as<ir::IterVar>();
  auto count = ir::asConstInt(attr.value);
  if (!iv || !count || *count < 1) return std::nullopt;
  return ThreadAxis{iv->var, *count, llvm::StringRef(iv->threadTag).starts_with("vthread")};
}

// The virtual_thread attributes directly inside a statement (not inside one another).
std::vector<const ir::AttrStmt *> nestedThreadAttrs(const ir::Stmt &body) {
  class Finder : public ir::StmtExprVisitor {
  public:
    std::vector<const ir::AttrStmt *> found;
    void visitAttrStmt(const ir::AttrStmt &op) override {
      if (op.key == "virtual_thread") found.push_back(&op);
      else StmtExprVisitor::visitAttrStmt(op);
    }
    void visitExpr(const ir::Expr &) override {}
  } finder;
  finder.visitStmt(body);
  return finder.found;
}

// Several thread axes (a cthread binding inside another, possibly under loops) become one axis of
// the product of their counts: outer = t / inner_count, inner = t % inner_count. Virtual threads
// are data-parallel, so lifting the inner axis over the loops between them keeps the program's
// meaning; one axis gives every thread its own copy of every on-chip buffer allocated under any
// of them, one set of dependence tokens per thread, and micro-kernels that depend on one thread
// index (all the runtime can cache them by).
class InnerAxisRemover : public ir::StmtExprMutator {
public:
  InnerAxisRemover(const ir::AttrStmt *inner, ir::Stmt mergedBody)
      : inner_(inner), mergedBody_(std::move(mergedBody)) {}
  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    return &op == inner_ ? mergedBody_ : StmtExprMutator::visitAttrStmt(op);
  }

private:
  const ir::AttrStmt *inner_;
  ir::Stmt mergedBody_;
};

llvm::Expected<std::pair<ThreadAxis, ir::Stmt>> mergeThreadAxes(const ir::AttrStmt &attr) {
  auto axis = threadAxisOf(attr);
  if (!axis)
    return ir::diagnosticError(attr.loc(), "virtual_thread needs an iteration variable and a "
                                           "constant positive thread count");
  std::vector<const ir::AttrStmt *> inner = nestedThreadAttrs(attr.body);
  if (inner.empty()) return std::make_pair(*axis, attr.body);
  if (inner.size() > 1)
    return ir::diagnosticError(inner[1]->loc(), "a virtual-thread axis beside another inside the "
                                                "same virtual thread is not supported");
  auto innerMerged = mergeThreadAxes(*inner[0]);
  if (!innerMerged) return innerMerged.takeError();
  auto &[innerAxis, innerBody] = *innerMerged;
  if (innerAxis.allowShare != axis->allowShare)
    return ir::diagnosticError(inner[0]->loc(), "a vthread axis and a cthread axis cannot nest");
  int64_t count;
  if (__builtin_mul_overflow(axis->count, innerAxis.count, &count) || count > (int64_t(1) << 16))
    return ir::diagnosticError(inner[0]->loc(), "too many virtual threads (" +
                                                    llvm::Twine(axis->count) + " x " +
                                                    llvm::Twine(innerAxis.count) + ")");
  ir::VarRef merged = ir::makeVar(axis->var->name, axis->var->dtype, attr.loc());
  ir::Expr innerCount = ir::intImm(innerAxis.count, merged->dtype);
  ir::Stmt body = InnerAxisRemover(inner[0], innerBody).visitStmt(attr.body);
  body = ir::substitute(body, ir::VarMap{{axis->var.get(), ir::floorDivExpr(merged, innerCount)},
                                         {innerAxis.var.get(), ir::floorModExpr(merged, innerCount)}});
  return std::make_pair(ThreadAxis{merged, count, axis->allowShare}, body);
}

class VirtualThreadLowerer : public FirstErrorMutator {
public:
  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    if (op.key != "virtual_thread") return StmtExprMutator::visitAttrStmt(op);
    auto merged = mergeThreadAxes(op);
    if (!merged) {
      fail(merged.takeError());
      return ir::Stmt(&op);
    }
    auto &[axis, body] = *merged;
    VarSet touched = ThreadDependence().touched(body, axis.var.get());
    VirtualThreadInjector injector(axis.var, axis.count, std::move(touched), axis.allowShare);
    ir::Stmt injected = injector.visitStmt(body);
    fail(injector.takeError());
    return injected;
  }
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> injectVirtualThread(const ir::PrimFuncRef &func, PassContext &) {
  VirtualThreadLowerer lowerer;
  return mutateBody(func, lowerer, func->loc());
}

}  // namespace vtac::passes
