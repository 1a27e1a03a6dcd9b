#include "vta/CoprocSync.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "vta/VtaTarget.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes {
namespace {

using Token = std::pair<int, int>;  // (from queue, to queue)
using Insertions = std::unordered_map<const ir::Node *, std::vector<ir::Stmt>>;

ir::Stmt token(const char *op, Token t) {
  return vta::evaluate(vta::intrinsic(op, {ir::intImm(t.first), ir::intImm(t.second)}));
}
// VTA has token queues between neighbouring stages only (load 1, compute 2, store 3). A token
// between load and store (a loop body that starts with a load and ends with a store, or the
// reverse) is relayed through compute: the sender pushes to compute, compute pops it and pushes
// on, so compute's in-order stream carries the wait (TVM's runtime refuses such tokens).
constexpr int kComputeQueue = 2;
bool relayed(Token t) { return t.first != kComputeQueue && t.second != kComputeQueue; }
ir::Stmt push(Token t) {
  if (!relayed(t)) return token("tir.vta.coproc_dep_push", t);
  return ir::seq({token("tir.vta.coproc_dep_push", {t.first, kComputeQueue}),
                  token("tir.vta.coproc_dep_pop", {t.first, kComputeQueue}),
                  token("tir.vta.coproc_dep_push", {kComputeQueue, t.second})});
}
ir::Stmt pop(Token t) {
  return token("tir.vta.coproc_dep_pop", relayed(t) ? Token{kComputeQueue, t.second} : t);
}
bool contains(const std::vector<Token> &v, Token t) { return std::find(v.begin(), v.end(), t) != v.end(); }

// Buffers used inside and outside coproc scopes, the coprocessor axes and the first problem.
class TouchedBuffers : public ir::StmtExprVisitor {
public:
  std::set<const ir::Var *> inside, outside;
  std::set<const ir::Node *> axes;
  bool synchronised = false;  // tokens or a coproc_sync are already there
  std::optional<ir::DiagnosticError> failure;

  void visitAttrStmt(const ir::AttrStmt &op) override {
    if (op.key != "coproc_scope" || inScope_) return StmtExprVisitor::visitAttrStmt(op);
    axes.insert(op.node.get());
    if (!ir::asConstInt(op.value) && !failure)
      failure.emplace(op.loc(), "coproc_scope needs a constant queue id");
    inScope_ = true;
    StmtExprVisitor::visitAttrStmt(op);
    inScope_ = false;
  }
  void visitBufferLoad(const ir::BufferLoad &op) override {
    touch(op.buffer->data.get());
    StmtExprVisitor::visitBufferLoad(op);
  }
  void visitBufferStore(const ir::BufferStore &op) override {
    touch(op.buffer->data.get());
    StmtExprVisitor::visitBufferStore(op);
  }
  void visitCall(const ir::Call &op) override {
    synchronised |= llvm::StringRef(op.op).starts_with("tir.vta.coproc_");
    if (op.op == "tir.tvm_access_ptr" && op.args.size() == 5)
      if (const auto *var = op.args[1].as<ir::Var>()) touch(var);
    StmtExprVisitor::visitCall(op);
  }
  void visitWhile(const ir::While &op) override {
    if (!failure) failure.emplace(op.loc(), "while loops are not supported");
    StmtExprVisitor::visitWhile(op);
  }

private:
  void touch(const ir::Var *var) { (inScope_ ? inside : outside).insert(var); }
  bool inScope_ = false;
};

// TVM's CoProcInstDepDetector: plans where the dependence tokens go.
class DependencePlanner : public ir::StmtExprVisitor {
public:
  Insertions before, after;

  void plan(const ir::Stmt &body) {
    visitStmt(body);
    if (last_.node) {
      balanceEnterPop(first_);
      balanceExitPush(last_);
    }
  }

  void visitExpr(const ir::Expr &) override {}

  void visitAttrStmt(const ir::AttrStmt &op) override {
    if (op.key == "virtual_thread") return visitVirtualThread(op);
    if (op.key != "coproc_scope") return StmtExprVisitor::visitAttrStmt(op);
    current_ = {};
    current_.node = op.body.get();
    int queue = int(*ir::asConstInt(op.value));
    current_.enter = {queue};
    current_.exit = {queue};
    update();
  }

  void visitFor(const ir::For &op) override {
    visitScope(op.body, [&] {
      current_.node = &op;
      injectSync(last_, first_, &current_.exitPush, &current_.enterPop);  // loop-carried
    });
  }

  void visitIfThenElse(const ir::IfThenElse &op) override {
    State outerFirst, outerLast, branches;
    std::swap(first_, outerFirst);
    std::swap(last_, outerLast);
    for (const ir::Stmt &branch : {op.thenCase, op.elseCase}) {
      if (!branch) continue;
      visitStmt(branch);
      if (last_.node) {
        branches.node = &op;
        balanceEnterPop(first_);
        balanceExitPush(last_);
        branches.enter.insert(first_.enter.begin(), first_.enter.end());
        branches.exit.insert(last_.exit.begin(), last_.exit.end());
      }
      first_ = {};
      last_ = {};
    }
    std::swap(first_, outerFirst);
    std::swap(last_, outerLast);
    current_ = branches;
    if (current_.node) update();
  }

private:
  // inject-virtual-thread later copies every statement inside a virtual thread once per thread,
  // tokens included. A token between a state inside and one outside would then be pushed once
  // and popped once per thread (or the reverse): the scope is planned on its own, balanced inside
  // as a function body is, and is one state to the statements around it, its tokens outside it.
  // With the thread axis outermost (TVM's schedules) this is TVM's placement; under a loop, an
  // iteration's threads wait for the whole previous iteration.
  void visitVirtualThread(const ir::AttrStmt &op) {
    visitScope(op.body, [&] {
      balanceEnterPop(first_);
      balanceExitPush(last_);
      current_.node = &op;
    });
  }

  // Plans `body` on its own; if it holds states, `compound` makes current_ the state that
  // stands for the whole scope (entering as its first state, leaving as its last), which then
  // follows the states before it.
  template <typename Compound>
  void visitScope(const ir::Stmt &body, Compound compound) {
    State outerFirst, outerLast;
    std::swap(first_, outerFirst);
    std::swap(last_, outerLast);
    visitStmt(body);
    current_ = {};
    if (last_.node) {
      compound();
      current_.enter = first_.enter;
      current_.exit = last_.exit;
    }
    std::swap(first_, outerFirst);
    std::swap(last_, outerLast);
    if (current_.node) update();
  }

  struct State {
    const ir::Node *node = nullptr;
    std::set<int> enter, exit;                // queues the state may start / end in
    std::vector<Token> enterPop, exitPush;    // tokens already popped at entry / pushed at exit
  };

  // Tokens between prev and next (TVM's InjectSync): what prev pushes at exit and next pops at
  // entry, and the unmatched ones balanced locally.
  void injectSync(const State &prev, const State &next, std::vector<Token> *prevExitPush,
                  std::vector<Token> *nextEnterPop) {
    prevExitPush->clear();
    nextEnterPop->clear();
    if (prev.exitPush.empty() && next.enterPop.empty() && prev.exit.size() == 1 &&
        next.enter.size() == 1) {
      Token t{*prev.exit.begin(), *next.enter.begin()};
      if (t.first != t.second) {
        after[prev.node].push_back(push(t));
        before[next.node].push_back(pop(t));
        prevExitPush->push_back(t);
        nextEnterPop->push_back(t);
      }
      return;
    }
    std::vector<Token> pushes = prev.exitPush, pops = next.enterPop, pending;
    for (int from : prev.exit)
      for (int to : next.enter)
        if (from != to) pending.push_back({from, to});
    std::vector<ir::Stmt> prevAfter, nextBefore;
    for (Token t : pending) {
      if (!contains(prev.exitPush, t)) {
        pushes.push_back(t);
        prevAfter.push_back(push(t));
      }
      if (!contains(next.enterPop, t)) {
        pops.push_back(t);
        nextBefore.push_back(pop(t));
      }
    }
    for (Token t : pushes) {
      if (!contains(pops, t)) prevAfter.push_back(pop(t));
      else prevExitPush->push_back(t);
    }
    for (Token t : pops) {
      if (!contains(pushes, t)) nextBefore.push_back(push(t));
      else nextEnterPop->push_back(t);
    }
    auto &a = after[prev.node];
    a.insert(a.end(), prevAfter.begin(), prevAfter.end());
    auto &b = before[next.node];
    b.insert(b.end(), nextBefore.begin(), nextBefore.end());
  }

  void balanceEnterPop(const State &state) {
    for (Token t : state.enterPop) before[state.node].push_back(push(t));
  }
  void balanceExitPush(const State &state) {
    for (Token t : state.exitPush) after[state.node].push_back(pop(t));
  }

  void update() {
    if (last_.node) {
      std::vector<Token> ignoredPush, ignoredPop;
      injectSync(last_, current_, &ignoredPush, &ignoredPop);
      std::swap(last_, current_);
    } else {
      first_ = current_;
      last_ = current_;
    }
  }

  State first_, last_, current_;
};

class TokenInserter : public ir::StmtExprMutator {
public:
  TokenInserter(const Insertions &before, const Insertions &after) : before_(before), after_(after) {}

  ir::Stmt visitStmt(const ir::Stmt &stmt) override {
    ir::Stmt result = StmtExprMutator::visitStmt(stmt);
    auto b = before_.find(stmt.get()), a = after_.find(stmt.get());
    if (b == before_.end() && a == after_.end()) return result;
    std::vector<ir::Stmt> parts;
    if (b != before_.end()) parts = b->second;
    parts.push_back(result);
    if (a != after_.end()) parts.insert(parts.end(), a->second.begin(), a->second.end());
    return ir::seq(parts, stmt->loc());
  }

private:
  const Insertions &before_, &after_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> coprocSync(const ir::PrimFuncRef &func, PassContext &) {
  TouchedBuffers touched;
  touched.visitStmt(func->body);
  if (touched.failure) return ir::diagnosticError(touched.failure->loc(), touched.failure->text());
  if (touched.axes.empty() || touched.synchronised) return func;
  if (touched.axes.size() > 1)
    return ir::diagnosticError(func->loc(), "the coproc scopes use " + llvm::Twine(touched.axes.size()) +
                                                " different coprocessor axes (run unify-coproc-axis)");
  for (const ir::Var *var : touched.inside)
    if (touched.outside.count(var))
      return ir::diagnosticError(var->loc(), "buffer '" + var->name +
                                                 "' is used both by the CPU and inside coproc "
                                                 "scopes; synchronising CPU accesses is not supported");
  DependencePlanner planner;
  planner.plan(func->body);
  ir::Stmt body = TokenInserter(planner.before, planner.after).visitStmt(func->body);
  body = ir::seq({body, vta::evaluate(vta::intrinsic("tir.vta.coproc_sync", {}))});
  return withBody(func, body);
}

}  // namespace vtac::passes
