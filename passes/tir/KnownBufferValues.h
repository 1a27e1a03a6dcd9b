// What simplify's propagate-knowns options know of buffer contents (TVM's ControlFlowGraph,
// done as a forward walk instead of a graph): the simplifier walks the function in execution
// order and this state says, at the current point, what holds of buffer elements and scalars.
// A fact comes from a store of a load-free value (`A[0] = 0`, `A[i] = i`, a stride-1 ramp),
// a `T.assume` conjunct with at most one load, or an `if` condition inside its branch; it is
// made invalid by a store that may hit its location, by any call that may write memory, and
// dropped around a while loop. At an `if` the branches' facts are
// kept under the condition (when it reads no memory) or only when both branches keep them. A
// loop's body starts from the facts its iterations cannot have changed: buffers it does not
// write, and for a buffer written only at one index `idx(i)` that is injective in the loop
// variable (`B[i]`), the value at that index; after the loop, a fact the body leaves at
// `idx(i)` holds for every i of the range. Anything it cannot prove it forgets: forgetting is
// always sound, a wrong fact is a wrong program. simplify uses it only in functions without
// threads, parallel loops or blocks (Simplify.cpp, knownsApply). Buffers are told apart by their data variable
// (distinct function parameters are taken not to alias, as TVM does); a store through a
// let-bound pointer forgets everything.
#pragma once

#include <memory>
#include <unordered_set>
#include <vector>

#include "vtac/ir/Stmt.h"
#include "vtac/ir/arith/Analyzer.h"

namespace vtac::passes {

bool structurallyEqualExprs(const std::vector<ir::Expr> &a, const std::vector<ir::Expr> &b);
// Two buffers that address their data alike: same element type, shape, strides and offset.
bool sameBufferLayout(const ir::Buffer &a, const ir::Buffer &b);

class KnownBufferValues {
public:
  struct Known;
  using State = std::vector<std::shared_ptr<const Known>>;

  explicit KnownBufferValues(ir::arith::Analyzer &analyzer);
  ~KnownBufferValues();

  // `e` with every load whose value is known as an expression replaced by it. With
  // `constraints`, a load about which less is known becomes a fresh variable and `constraints`
  // gets what is known of it, with the scalar assumptions in force.
  ir::Expr resolve(const ir::Expr &e, std::vector<ir::Expr> *constraints);

  // `condition` holds from here on (a T.assume, or a branch's condition when `scalars` is
  // false: the analyzer has its load-free part already).
  void assume(const ir::Expr &condition, bool scalars);
  // After `store` ran.
  void store(const ir::BufferStore &store);
  // Something may have written any memory.
  void forgetBuffers();
  // `var` is a pointer bound by a let: buffers over it may alias any other.
  void noteAlias(const ir::Var &var) { aliases_.insert(&var); }

  const State &state() const { return state_; }
  void setState(State state) { state_ = std::move(state); }
  // The state after `if condition` whose branches ended in `thenState` and `elseState`.
  void mergeBranches(const ir::Expr &condition, const State &thenState, const State &elseState);

  // Around the body of `for var in [min, min + extent): body`.
  void enterLoop(const ir::VarRef &var, const ir::Expr &min, const ir::Expr &extent, const ir::Stmt &body);
  void exitLoop();

private:
  struct LoopFrame;
  ir::Expr instantiate(const Known &known, const ir::BufferLoad &load);
  void add(std::shared_ptr<const Known> known);
  std::shared_ptr<const Known> generalize(const Known &known, const LoopFrame &frame);

  ir::arith::Analyzer &analyzer_;
  State state_;
  std::vector<LoopFrame> loops_;
  std::unordered_set<const ir::Var *> aliases_;
};

}  // namespace vtac::passes
