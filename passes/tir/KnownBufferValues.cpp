#include "tir/KnownBufferValues.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/SideEffect.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes {

namespace {

// More facts than this and the oldest are forgotten (each query tries them all).
constexpr size_t kMaxKnowns = 128;

bool mentions(const ir::Expr &e, const std::unordered_set<const ir::Var *> &vars) {
  bool found = false;
  if (e) ir::preOrderVisit(e, [&](const ir::Node &n) {
    if (const auto *v = n.as<ir::Var>(); v && vars.count(v)) found = true;
  });
  return found;
}

// Element types whose values the analyzer reasons about exactly.
bool trackedType(const ir::DataType &t) { return (t.isIntOrUInt() || t.isBool()) && t.isScalar(); }

// What a loop body may do to memory, read from the statement before it is simplified
// (simplifying only removes stores).
struct Effects {
  bool writesAnything = false;  // a call that may write memory, or a block or while loop
  std::unordered_map<const ir::Var *, std::vector<const ir::BufferStore *>> stores;  // by data variable
  std::unordered_set<const ir::Var *> bound;  // variables bound inside (loops, lets, allocations)
};

Effects effectsOf(const ir::Stmt &body) {
  Effects effects;
  ir::preOrderVisit(body, [&](const ir::Node &n) {
    if (const auto *store = n.as<ir::BufferStore>()) effects.stores[store->buffer->data.get()].push_back(store);
    else if (const auto *call = n.as<ir::Call>()) {
      if (call->op != "tir.assume" && ir::sideEffect(ir::Expr(call)) == ir::SideEffect::Opaque) effects.writesAnything = true;
    } else if (n.isa<ir::While>()) effects.writesAnything = true;
    else if (const auto *loop = n.as<ir::For>()) effects.bound.insert(loop->loopVar.get());
    else if (const auto *let = n.as<ir::LetStmt>()) effects.bound.insert(let->var.get());
    else if (const auto *let = n.as<ir::Let>()) effects.bound.insert(let->var.get());
    else if (const auto *alloc = n.as<ir::Allocate>()) effects.bound.insert(alloc->bufferVar.get());
    else if (const auto *decl = n.as<ir::DeclBuffer>()) effects.bound.insert(decl->buffer->data.get());
  });
  return effects;
}

}  // namespace

bool structurallyEqualExprs(const std::vector<ir::Expr> &a, const std::vector<ir::Expr> &b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](const ir::Expr &x, const ir::Expr &y) { return ir::structuralEqual(x, y); });
}

bool sameBufferLayout(const ir::Buffer &a, const ir::Buffer &b) {
  bool sameOffset = (!a.elemOffset && !b.elemOffset) ||
                    (a.elemOffset && b.elemOffset && ir::structuralEqual(a.elemOffset, b.elemOffset));
  return a.dtype == b.dtype && sameOffset && structurallyEqualExprs(a.shape, b.shape) && structurallyEqualExprs(a.strides, b.strides);
}

// A fact: for every location `indices` of `buffer` whose index in dimension d is at[d] (when
// set) and where every `where` conjunct holds, the element's value satisfies `fact` (with
// `value` standing for it). Without a buffer, `fact` is about scalars and holds where `where`
// does.
struct KnownBufferValues::Known {
  ir::BufferRef buffer;
  std::vector<ir::VarRef> indices;
  std::vector<ir::Expr> at;
  std::vector<ir::Expr> where;
  ir::VarRef value;
  ir::Expr fact;
};

struct KnownBufferValues::LoopFrame {
  ir::VarRef var;
  ir::Expr min, extent;
  Effects effects;
  State before;
  // The buffers the body writes at one index tuple injective in `var` (data variable -> tuple).
  std::unordered_map<const ir::Var *, std::vector<ir::Expr>> elementwise;
};

KnownBufferValues::KnownBufferValues(ir::arith::Analyzer &analyzer) : analyzer_(analyzer) {}
KnownBufferValues::~KnownBufferValues() = default;

void KnownBufferValues::add(std::shared_ptr<const Known> known) {
  state_.push_back(std::move(known));
  if (state_.size() > kMaxKnowns) state_.erase(state_.begin());
}

void KnownBufferValues::forgetBuffers() {
  state_.erase(std::remove_if(state_.begin(), state_.end(), [](const auto &k) { return bool(k->buffer); }), state_.end());
}

// The fact `known` gives about the element `load` reads (its placeholder value still free), or
// null when the analyzer cannot show that `known` covers that element.
ir::Expr KnownBufferValues::instantiate(const Known &known, const ir::BufferLoad &load) {
  if (!known.buffer || known.buffer->data != load.buffer->data || !sameBufferLayout(*known.buffer, *load.buffer)) return nullptr;
  ir::VarMap at;
  for (size_t d = 0; d < load.indices.size(); ++d) at[known.indices[d].get()] = load.indices[d];
  for (size_t d = 0; d < load.indices.size(); ++d)
    if (known.at[d] && !analyzer_.canProve(ir::makeBinary(ir::NodeKind::EQ, ir::substitute(known.at[d], at), load.indices[d])))
      return nullptr;
  for (const ir::Expr &w : known.where)
    if (!analyzer_.canProve(ir::substitute(w, at))) return nullptr;
  return ir::substitute(known.fact, at);
}

ir::Expr KnownBufferValues::resolve(const ir::Expr &e, std::vector<ir::Expr> *constraints) {
  class Resolver : public ir::StmtExprMutator {
  public:
    Resolver(KnownBufferValues &self, std::vector<ir::Expr> *constraints) : self_(self), constraints_(constraints) {}
    using ir::StmtExprMutator::visitExpr;

    ir::Expr visitBufferLoad(const ir::BufferLoad &op) override {
      ir::Expr visited = ir::StmtExprMutator::visitBufferLoad(op);
      const auto &load = *visited.as<ir::BufferLoad>();
      if (!trackedType(load.dtype) || self_.aliases_.count(load.buffer->data.get())) return visited;
      for (const auto &[seen, var] : standIns_)
        if (ir::structuralEqual(seen, visited)) return var;
      std::vector<std::pair<ir::Expr, const ir::Var *>> facts;  // each with its placeholder
      for (auto it = self_.state_.rbegin(); it != self_.state_.rend(); ++it) {
        ir::Expr fact = self_.instantiate(**it, load);
        if (!fact) continue;
        fact = self_.analyzer_.simplify(fact);
        const ir::Var *value = (*it)->value.get();
        if (const auto *eq = fact.as<ir::BinaryExpr>(); eq && eq->kind() == ir::NodeKind::EQ) {
          if (eq->a.get() == value && !mentions(eq->b, {value})) return eq->b;
          if (eq->b.get() == value && !mentions(eq->a, {value})) return eq->a;
        }
        facts.emplace_back(fact, value);
      }
      if (!constraints_ || facts.empty()) return visited;
      ir::Expr standIn(new ir::Var("value", load.dtype));
      standIns_.emplace_back(visited, standIn);
      for (const auto &[fact, value] : facts) constraints_->push_back(ir::substitute(fact, {{value, standIn}}));
      return standIn;
    }

  private:
    KnownBufferValues &self_;
    std::vector<ir::Expr> *constraints_;
    std::vector<std::pair<ir::Expr, ir::Expr>> standIns_;  // a load with constraints -> its variable
  };
  ir::Expr resolved = Resolver(*this, constraints).visitExpr(e);
  if (constraints)
    for (const auto &known : state_)
      if (!known->buffer && std::all_of(known->where.begin(), known->where.end(), [&](const ir::Expr &w) { return analyzer_.canProve(w); }))
        constraints->push_back(known->fact);
  return resolved;
}

void KnownBufferValues::assume(const ir::Expr &condition, bool scalars) {
  for (const ir::Expr &term : ir::arith::conjuncts(condition, ir::arith::LikelyConjunct::LookThrough)) {
    ir::SideEffect effect = ir::sideEffect(term);
    if (effect == ir::SideEffect::Opaque) continue;
    if (effect == ir::SideEffect::Pure) {
      if (scalars) add(std::make_shared<Known>(Known{nullptr, {}, {}, {}, nullptr, term}));
      continue;
    }
    std::vector<ir::Expr> loads;
    ir::preOrderVisit(term, [&](const ir::Node &n) {
      if (!n.isa<ir::BufferLoad>()) return;
      ir::Expr load(static_cast<const ir::ExprNode *>(&n));
      if (std::none_of(loads.begin(), loads.end(), [&](const ir::Expr &l) { return ir::structuralEqual(l, load); }))
        loads.push_back(load);
    });
    if (loads.size() != 1) continue;
    const auto &load = *loads[0].as<ir::BufferLoad>();
    if (!trackedType(load.dtype) || aliases_.count(load.buffer->data.get()) ||
        std::any_of(load.indices.begin(), load.indices.end(), [](const ir::Expr &i) { return ir::sideEffect(i) != ir::SideEffect::Pure; }))
      continue;
    Known known{load.buffer, {}, load.indices, {}, ir::VarRef(new ir::Var("value", load.dtype)), nullptr};
    for (const ir::Expr &index : load.indices) known.indices.emplace_back(new ir::Var("j", index->dtype));
    known.fact = ir::replaceSubexpression(term, loads[0], known.value);
    add(std::make_shared<Known>(std::move(known)));
  }
}

void KnownBufferValues::store(const ir::BufferStore &store) {
  const ir::Buffer &buffer = *store.buffer;
  if (aliases_.count(buffer.data.get())) return forgetBuffers();
  bool pureIndices = std::all_of(store.indices.begin(), store.indices.end(),
                                 [](const ir::Expr &i) { return ir::sideEffect(i) == ir::SideEffect::Pure; });
  // The written locations: one index per dimension, or a stride-1 ramp [base, base + lanes) in
  // the last; anything else forgets the buffer.
  std::vector<ir::Expr> indices = store.indices;
  const auto *ramp = indices.empty() ? nullptr : indices.back().as<ir::Ramp>();
  bool leadingScalar = std::all_of(indices.begin(), indices.empty() ? indices.end() : indices.end() - 1,
                                   [](const ir::Expr &i) { return i->dtype.isScalar(); });
  bool scalar = leadingScalar && (indices.empty() || indices.back()->dtype.isScalar());
  bool contiguous = leadingScalar && ramp && ir::isConstInt(ramp->stride, 1);
  // The value as the elements it reads held before the store.
  ir::Expr value = analyzer_.simplify(resolve(store.value, nullptr));
  State kept;
  for (const auto &known : state_) {
    if (!known->buffer || known->buffer->data != buffer.data) {
      kept.push_back(known);
      continue;
    }
    // An index that reads memory names no fixed element: the buffer's facts go.
    if ((!scalar && !contiguous) || !pureIndices || !sameBufferLayout(*known->buffer, buffer)) continue;
    ir::Expr differs;
    for (size_t d = 0; d < indices.size(); ++d) {
      ir::Expr location = known->at[d] ? known->at[d] : ir::Expr(known->indices[d]);
      ir::Expr outside;
      if (d + 1 == indices.size() && contiguous)
        outside = ir::makeBinary(ir::NodeKind::Or, ir::makeBinary(ir::NodeKind::LT, location, ramp->base),
                                 ir::makeBinary(ir::NodeKind::GE, location, ir::addExpr(ramp->base, ir::intImm(ramp->lanes, ramp->base->dtype))));
      else
        outside = ir::makeBinary(ir::NodeKind::NE, location, indices[d]);
      differs = differs ? ir::makeBinary(ir::NodeKind::Or, differs, outside) : outside;
    }
    differs = analyzer_.simplify(differs);
    if (auto c = ir::asConstInt(differs)) {
      if (*c) kept.push_back(known);
      continue;
    }
    auto narrowed = std::make_shared<Known>(*known);
    narrowed->where.push_back(differs);
    kept.push_back(std::move(narrowed));
  }
  state_ = std::move(kept);

  if (!trackedType(buffer.dtype) || (!scalar && !contiguous) || !pureIndices) return;
  if (ir::sideEffect(value) != ir::SideEffect::Pure) return;
  Known known{store.buffer, {}, indices, {}, ir::VarRef(new ir::Var("value", buffer.dtype)), nullptr};
  for (const ir::Expr &index : indices) known.indices.emplace_back(new ir::Var("j", index->dtype.withLanes(1)));
  if (contiguous) {
    const ir::Expr &j = known.indices.back();
    ir::Expr lane = ir::subExpr(j, ramp->base);
    if (const auto *b = value.as<ir::Broadcast>()) value = b->value;
    else if (const auto *r = value.as<ir::Ramp>()) value = ir::addExpr(r->base, ir::mulExpr(r->stride, lane));
    else return;
    known.at.back() = nullptr;
    known.where = {ir::makeBinary(ir::NodeKind::GE, j, ramp->base),
                   ir::makeBinary(ir::NodeKind::LT, j, ir::addExpr(ramp->base, ir::intImm(ramp->lanes, ramp->base->dtype)))};
  }
  known.fact = ir::makeBinary(ir::NodeKind::EQ, known.value, value);
  add(std::make_shared<Known>(std::move(known)));
}

void KnownBufferValues::mergeBranches(const ir::Expr &condition, const State &thenState, const State &elseState) {
  bool pure = ir::sideEffect(condition) == ir::SideEffect::Pure;
  auto in = [](const State &s, const std::shared_ptr<const Known> &k) { return std::find(s.begin(), s.end(), k) != s.end(); };
  auto qualified = [](const Known &k, const ir::Expr &c) {
    auto q = std::make_shared<Known>(k);
    q->where.push_back(c);
    return q;
  };
  State merged;
  for (const auto &k : thenState) {
    if (in(elseState, k)) merged.push_back(k);
    else if (pure) merged.push_back(qualified(*k, condition));
  }
  if (pure) {
    ir::Expr negated = analyzer_.rewriteSimplify(ir::notExpr(condition));
    for (const auto &k : elseState)
      if (!in(thenState, k)) merged.push_back(qualified(*k, negated));
  }
  state_ = std::move(merged);
  while (state_.size() > kMaxKnowns) state_.erase(state_.begin());
}

void KnownBufferValues::enterLoop(const ir::VarRef &var, const ir::Expr &min, const ir::Expr &extent, const ir::Stmt &body) {
  LoopFrame frame{var, min, extent, effectsOf(body), state_, {}};
  // A buffer written at one index tuple, the same in every store, that names no variable of the
  // body and has a dimension `var + offset`: iteration i writes only there.
  for (const auto &[data, stores] : frame.effects.stores) {
    const ir::BufferStore &first = *stores.front();
    bool uniform = std::all_of(stores.begin(), stores.end(), [&](const ir::BufferStore *s) {
      return sameBufferLayout(*s->buffer, *first.buffer) && structurallyEqualExprs(s->indices, first.indices);
    });
    bool plain = std::all_of(first.indices.begin(), first.indices.end(), [&](const ir::Expr &i) {
      return i->dtype.isScalar() && ir::sideEffect(i) == ir::SideEffect::Pure && !mentions(i, frame.effects.bound);
    });
    bool injective = std::any_of(first.indices.begin(), first.indices.end(), [&](const ir::Expr &i) {
      return !mentions(analyzer_.simplify(ir::subExpr(i, var)), {var.get()});
    });
    if (uniform && plain && injective) frame.elementwise[data] = first.indices;
  }
  State entry;
  for (const auto &known : state_) {
    if (!known->buffer) {
      entry.push_back(known);
      continue;
    }
    if (frame.effects.writesAnything) continue;
    const ir::Var *data = known->buffer->data.get();
    if (!frame.effects.stores.count(data)) {
      entry.push_back(known);
      continue;
    }
    auto it = frame.elementwise.find(data);
    if (it == frame.elementwise.end() || !sameBufferLayout(*known->buffer, *frame.effects.stores[data].front()->buffer)) continue;
    // Iteration i sees the value from before the loop only where it writes.
    auto restricted = std::make_shared<Known>(*known);
    for (size_t d = 0; d < it->second.size(); ++d)
      restricted->where.push_back(ir::makeBinary(ir::NodeKind::EQ, known->at[d] ? known->at[d] : ir::Expr(known->indices[d]), it->second[d]));
    entry.push_back(std::move(restricted));
  }
  state_ = std::move(entry);
  loops_.push_back(std::move(frame));
}

// `known`, left by the body at the location `at` of iteration `var`, as a fact of every
// iteration: `var` solved from a dimension `at[d] = var + offset`. Null when it cannot be.
std::shared_ptr<const KnownBufferValues::Known> KnownBufferValues::generalize(const Known &known, const LoopFrame &frame) {
  if (!known.buffer || frame.effects.writesAnything) return nullptr;
  const ir::Var *data = known.buffer->data.get();
  if (frame.effects.stores.count(data)) {
    // Later iterations must not write the location: it has to be the one index tuple written.
    auto it = frame.elementwise.find(data);
    if (it == frame.elementwise.end() || !sameBufferLayout(*known.buffer, *frame.effects.stores.at(data).front()->buffer))
      return nullptr;
    for (size_t d = 0; d < it->second.size(); ++d)
      if (!known.at[d] || !ir::structuralEqual(analyzer_.simplify(known.at[d]), analyzer_.simplify(it->second[d]))) return nullptr;
  }
  for (size_t d = 0; d < known.at.size(); ++d) {
    if (!known.at[d]) continue;
    ir::Expr offset = analyzer_.simplify(ir::subExpr(known.at[d], frame.var));
    if (mentions(offset, {frame.var.get()})) continue;
    ir::Expr iteration = ir::subExpr(known.indices[d], offset);
    ir::VarMap solved{{frame.var.get(), iteration}};
    auto general = std::make_shared<Known>(known);
    general->at[d] = nullptr;
    for (ir::Expr &a : general->at)
      if (a) a = ir::substitute(a, solved);
    for (ir::Expr &w : general->where) w = ir::substitute(w, solved);
    general->fact = ir::substitute(known.fact, solved);
    general->where.push_back(ir::makeBinary(ir::NodeKind::GE, iteration, frame.min));
    general->where.push_back(ir::makeBinary(ir::NodeKind::LT, iteration, ir::addExpr(frame.min, frame.extent)));
    std::unordered_set<const ir::Var *> local = frame.effects.bound;
    local.insert(frame.var.get());
    bool escapes = mentions(general->fact, local) ||
                   std::any_of(general->at.begin(), general->at.end(), [&](const ir::Expr &a) { return mentions(a, local); }) ||
                   std::any_of(general->where.begin(), general->where.end(), [&](const ir::Expr &w) { return mentions(w, local); });
    return escapes ? nullptr : general;
  }
  return nullptr;
}

void KnownBufferValues::exitLoop() {
  LoopFrame frame = std::move(loops_.back());
  loops_.pop_back();
  State after;
  for (const auto &known : state_) {
    if (std::find(frame.before.begin(), frame.before.end(), known) != frame.before.end()) after.push_back(known);
    else if (auto general = generalize(*known, frame)) after.push_back(std::move(general));
  }
  state_ = std::move(after);
}

}  // namespace vtac::passes
