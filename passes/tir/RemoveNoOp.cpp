#include "tir/RemoveNoOp.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/SideEffect.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/PassOptions.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {

std::vector<std::string> removeNoOpOptions() {
  return {"remove-no-op.use-dataflow-analysis", "remove-no-op.max-simplification-steps"};
}

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

// Loops and else-less `if`s around one store: what the dataflow rules reason about.
struct StoreNest {
  std::vector<const ir::For *> loops;
  std::vector<ir::Expr> conditions;
  const ir::BufferStore *store = nullptr;
  bool plain() const { return loops.empty() && conditions.empty(); }
};

std::optional<StoreNest> storeNest(const ir::Stmt &stmt) {
  StoreNest nest;
  for (const ir::Node *node = stmt.get();;) {
    const auto *branch = node->as<ir::IfThenElse>();
    if (const auto *loop = node->as<ir::For>()) {
      nest.loops.push_back(loop);
      node = loop->body.get();
    } else if (branch && !branch->elseCase) {
      nest.conditions.push_back(branch->condition);
      node = branch->thenCase.get();
    } else if ((nest.store = node->as<ir::BufferStore>())) {
      return nest;
    } else {
      return std::nullopt;
    }
  }
}

// Whether `stmt` may read (`writes` false) or write the memory behind `data`: an access of a
// buffer over it, the pointer itself, or an opaque call.
bool mayTouch(const ir::Stmt &stmt, const ir::Var *data, bool writes) {
  bool found = false;
  ir::preOrderVisit(stmt, [&](const ir::Node &n) {
    const auto *load = n.as<ir::BufferLoad>();
    const auto *store = n.as<ir::BufferStore>();
    const auto *call = n.as<ir::Call>();
    found |= &n == data || (!writes && load && load->buffer->data.get() == data) ||
             (writes && store && store->buffer->data.get() == data) ||
             (call && ir::sideEffect(ir::Expr(call)) == ir::SideEffect::Opaque);
  });
  return found;
}

class NoOpRemover : public ir::StmtExprMutator {
public:
  explicit NoOpRemover(bool dataflow) : dataflow_(dataflow) {}

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
    if (dataflow_) changed |= removeDeadStores(kept);
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

  // Memory nothing reads after a write need not be written, and memory nothing uses need not
  // be allocated (TVM's tests of RemoveNoOp expect both; its pass does neither).
  ir::Stmt visitAllocate(const ir::Allocate &op) override {
    ir::Stmt visited = ir::StmtExprMutator::visitAllocate(op);
    const auto *alloc = visited.as<ir::Allocate>();
    const ir::Var *data = alloc->bufferVar.get();
    ir::Stmt body = withoutFinalWrites(alloc->body, *alloc);
    if (isNoOp(body)) return keepSideEffects(alloc->extents, op.loc());
    if (!usesData(body, data)) {
      ir::Stmt kept = keepSideEffects(alloc->extents, op.loc());
      return isNoOp(kept) ? body : ir::seq({kept, body}, op.loc());
    }
    if (body == alloc->body) return visited;
    ir::Allocate *copy = ir::copyNode(*alloc);
    copy->body = body;
    return ir::Stmt(copy);
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
  // use-dataflow-analysis: within a sequence, a store nest whose every element a later one
  // overwrites before anything may read the buffer, and a plain store of the value an earlier
  // nest left there with no write in between, are removed. Returns whether one was.
  bool removeDeadStores(std::vector<ir::Stmt> &stmts) {
    bool removed = false;
    auto remove = [&](size_t k, const StoreNest &nest) {
      std::vector<ir::Expr> parts{nest.store->value};
      parts.insert(parts.end(), nest.store->indices.begin(), nest.store->indices.end());
      ir::Stmt rest = keepSideEffects(parts, stmts[k]->loc());
      if (!nest.plain() && !isNoOp(rest)) return;  // side effects once per iteration
      stmts[k] = rest;
      removed = true;
    };
    for (size_t i = 0; i < stmts.size(); ++i) {
      auto first = storeNest(stmts[i]);
      if (!first) continue;
      const ir::Var *data = first->store->buffer->data.get();
      for (size_t j = i + 1; j < stmts.size(); ++j) {
        if (mayTouch(stmts[j], data, false)) break;
        auto later = storeNest(stmts[j]);
        if (later && writesAllOf(*later, *first)) {
          remove(i, *first);
          break;
        }
      }
    }
    for (size_t j = 0; j < stmts.size(); ++j) {
      auto later = storeNest(stmts[j]);
      if (!later || !later->plain()) continue;
      const ir::Var *data = later->store->buffer->data.get();
      for (size_t i = j; i-- > 0;) {
        auto earlier = storeNest(stmts[i]);
        if (earlier && leavesValue(*earlier, *later->store)) {
          remove(j, *later);
          break;
        }
        if (mayTouch(stmts[i], data, true)) break;
      }
    }
    stmts.erase(std::remove_if(stmts.begin(), stmts.end(), isNoOp), stmts.end());
    return removed;
  }

  // Binds `nest`'s loop variables to the indices `store` writes: loop variables standing alone
  // as `nest`'s indices take `indices`' values; the other indices must be provably equal.
  std::optional<ir::VarMap> bindLoops(const StoreNest &nest, const std::vector<ir::Expr> &indices) {
    const auto &own = nest.store->indices;
    if (own.size() != indices.size()) return std::nullopt;
    std::unordered_set<const ir::Var *> loopVars;
    for (const ir::For *loop : nest.loops) loopVars.insert(loop->loopVar.get());
    ir::VarMap at;
    for (size_t d = 0; d < own.size(); ++d) {
      const auto *v = own[d].as<ir::Var>();
      if (v && loopVars.count(v) && !at.count(v)) at[v] = indices[d];
    }
    if (at.size() != nest.loops.size()) return std::nullopt;
    for (size_t d = 0; d < own.size(); ++d)
      if (!analyzer_.canProveEqual(ir::substitute(own[d], at), indices[d])) return std::nullopt;
    for (const ir::For *loop : nest.loops) {
      ir::Expr value = at[loop->loopVar.get()], min = ir::substitute(loop->min, at);
      ir::Expr end = ir::addExpr(min, ir::substitute(loop->extent, at));
      if (!analyzer_.canProve(ir::makeBinary(ir::NodeKind::GE, value, min)) ||
          !analyzer_.canProve(ir::makeBinary(ir::NodeKind::LT, value, end)))
        return std::nullopt;
    }
    for (const ir::Expr &condition : nest.conditions)
      if (!analyzer_.canProve(ir::substitute(condition, at))) return std::nullopt;
    return at;
  }

  // Whether `later` writes every element `first` writes (through the same buffer view).
  bool writesAllOf(const StoreNest &later, const StoreNest &first) {
    if (!sameView(*later.store->buffer, *first.store->buffer)) return false;
    ir::Expr holds = ir::boolImm(true);
    for (const ir::Expr &condition : first.conditions) holds = ir::makeBinary(ir::NodeKind::And, holds, condition);
    ir::arith::Analyzer::ConstraintScope scope(analyzer_, holds);
    return bindLoops(later, first.store->indices).has_value();
  }

  // Whether `earlier` (a nest computing its values from its loop variables only) left the value
  // `store` writes at the element it writes.
  bool leavesValue(const StoreNest &earlier, const ir::BufferStore &store) {
    if (!sameView(*earlier.store->buffer, *store.buffer) || ir::sideEffect(earlier.store->value) != ir::SideEffect::Pure)
      return false;
    auto at = bindLoops(earlier, store.indices);
    return at && analyzer_.canProveEqual(ir::substitute(earlier.store->value, *at), store.value);
  }

  bool equalAll(const std::vector<ir::Expr> &a, const std::vector<ir::Expr> &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!analyzer_.canProveEqual(a[i], b[i])) return false;
    return true;
  }
  bool storesOwnValue(const ir::BufferStore &store, const ir::BufferLoad &load) {
    return sameView(*store.buffer, *load.buffer) && equalAll(store.indices, load.indices);
  }
  // Whether an index means the same element in both buffers.
  bool sameView(const ir::Buffer &s, const ir::Buffer &l) {
    ir::Expr zero = ir::intImm(0);
    return s.data == l.data && analyzer_.canProveEqual(s.elemOffset ? s.elemOffset : zero, l.elemOffset ? l.elemOffset : zero) &&
           equalAll(s.shape, l.shape) && equalAll(s.strides, l.strides);
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

  // `body` without the statements at its end that only write `alloc`'s memory (its scope ends
  // there, so nothing reads what they write) and cannot stop the run.
  ir::Stmt withoutFinalWrites(const ir::Stmt &body, const ir::Allocate &alloc) {
    if (const auto *decl = body.as<ir::DeclBuffer>()) {
      ir::Stmt inner = withoutFinalWrites(decl->body, alloc);
      if (inner == decl->body) return body;
      if (isNoOp(inner) || !usesBuffer(inner, decl->buffer.get())) return inner;
      return ir::Stmt(new ir::DeclBuffer(decl->buffer, inner, decl->loc()));
    }
    if (const auto *seq = body.as<ir::SeqStmt>()) {
      std::vector<ir::Stmt> kept = seq->stmts;
      while (!kept.empty() && onlyWrites(kept.back(), alloc)) kept.pop_back();
      if (kept.size() == seq->stmts.size()) return body;
      if (kept.empty()) return nothing(body->loc());
      return kept.size() == 1 ? kept[0] : ir::seq(std::move(kept), body->loc());
    }
    return onlyWrites(body, alloc) ? nothing(body->loc()) : body;
  }

  // Loops and `if`s around stores into `alloc`'s memory (through a view of its shape), at
  // indices within it, of values that cannot stop the run.
  bool onlyWrites(const ir::Stmt &stmt, const ir::Allocate &alloc) {
    if (const auto *seq = stmt.as<ir::SeqStmt>())
      return std::all_of(seq->stmts.begin(), seq->stmts.end(), [&](const ir::Stmt &s) { return onlyWrites(s, alloc); });
    if (const auto *loop = stmt.as<ir::For>())
      return cannotStop(loop->min) && cannotStop(loop->extent) && onlyWrites(loop->body, alloc);
    if (const auto *branch = stmt.as<ir::IfThenElse>())
      return cannotStop(branch->condition) && onlyWrites(branch->thenCase, alloc) &&
             (!branch->elseCase || onlyWrites(branch->elseCase, alloc));
    const auto *store = stmt.as<ir::BufferStore>();
    if (!store || store->buffer->data != alloc.bufferVar || !cannotStop(store->value)) return false;
    const ir::Buffer &buffer = *store->buffer;
    if (buffer.dtype != alloc.dtype || buffer.elemOffset || !buffer.strides.empty() ||
        store->indices.size() != buffer.rank() || !equalAll(buffer.shape, alloc.extents))
      return false;
    for (size_t d = 0; d < store->indices.size(); ++d) {
      const ir::Expr &i = store->indices[d];
      if (!i->dtype.isScalar() || !cannotStop(i) ||
          !analyzer_.canProve(ir::makeBinary(ir::NodeKind::GE, i, ir::intImm(0, i->dtype))) ||
          !analyzer_.canProve(ir::makeBinary(ir::NodeKind::LT, i, buffer.shape[d])))
        return false;
    }
    return true;
  }

  // Whether evaluating `e` cannot stop the run (nor touch memory): no loads, calls, integer
  // divisions, or float-to-integer casts, the engines' run-time checks.
  static bool cannotStop(const ir::Expr &e) {
    bool stops = false;
    ir::preOrderVisit(e, [&](const ir::Node &n) {
      const auto *bin = n.as<ir::BinaryExpr>();
      const auto *cast = n.as<ir::Cast>();
      bool divides = bin && (bin->kind() == ir::NodeKind::Div || bin->kind() == ir::NodeKind::Mod ||
                             bin->kind() == ir::NodeKind::FloorDiv || bin->kind() == ir::NodeKind::FloorMod);
      stops |= n.isa<ir::BufferLoad>() || n.isa<ir::Call>() || (divides && !bin->dtype.isFloat()) ||
               (cast && cast->value->dtype.isFloat() && !cast->dtype.isFloat());
    });
    return !stops;
  }

  // Whether anything in `s` refers to the memory behind `data`.
  static bool usesData(const ir::Stmt &s, const ir::Var *data) {
    bool found = false;
    ir::preOrderVisit(s, [&](const ir::Node &n) {
      const auto *load = n.as<ir::BufferLoad>();
      const auto *store = n.as<ir::BufferStore>();
      const auto *decl = n.as<ir::DeclBuffer>();
      found |= &n == data || (load && load->buffer->data.get() == data) || (store && store->buffer->data.get() == data) ||
               (decl && decl->buffer->data.get() == data);
    });
    return found;
  }

  ir::arith::Analyzer analyzer_;
  bool dataflow_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> removeNoOp(const ir::PrimFuncRef &func, PassContext &context) {
  bool dataflow = false;
  for (const std::string &name : removeNoOpOptions()) {
    llvm::Expected<int64_t> value = integerOption(context, name, 0);
    if (!value) return value.takeError();
    if (name == "remove-no-op.use-dataflow-analysis") dataflow = *value != 0;
  }
  return withBody(func, NoOpRemover(dataflow).visitStmt(func->body));
}

}  // namespace vtac::passes
