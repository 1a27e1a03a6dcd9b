// The state a schedule works on (TVM's tir.Schedule): the module, the random variables (RVs)
// the steps have bound, and the trace of the steps applied so far.
//
// RVs name blocks and loops of the module's prim_funcs. A block RV is the block's name in its
// function (block names must be unique there, as TVM's get_block requires; primitives that
// rename a block update the RVs that name it); a loop RV is the loop's variable, which every
// transformation that keeps the loop keeps, so RVs survive the rebuilding of the immutable tree
// around them. An RV whose block or loop a step removed (a split loop, an inlined block) is
// reported as such when used. Every primitive resolves its RVs against the current tree, checks
// its preconditions and replaces the function body; errors are located at the step.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/ir/Function.h"
#include "vtac/ir/Trace.h"

namespace vtac::passes::schedule {

struct BlockRV {
  std::string func;
  std::string name;
};
struct LoopRV {
  std::string func;
  ir::VarRef loopVar;
};
// What sample_compute_location gives when it picks no loop (TVM's StmtSRef::RootMark and
// InlineMark): compute_at there leaves the block where it is (Root) or inlines it (Inline).
// Primitives that need a real loop reject it.
struct LocationMarkRV {
  enum class Kind { Root, Inline } kind;
};
// sample_perfect_tile's first factor of a loop without a constant extent: TVM's None ExprRV,
// printed `_` as a result and `None` as an argument (split infers that factor).
struct NoneRV {};
using RV = std::variant<BlockRV, LoopRV, LocationMarkRV, int64_t, NoneRV>;  // int64_t: a sampled value (ExprRV)

// A registered tensor intrinsic: what the computation looks like (desc) and what replaces it.
struct TensorIntrin {
  ir::PrimFuncRef desc, impl;
};
using TensorIntrinTable = std::map<std::string, TensorIntrin>;

// Root-to-node chain of statements: path.front() is the function body, path.back() the node.
using StmtPath = std::vector<ir::Stmt>;

class Schedule {
public:
  explicit Schedule(ir::IRModule module, const TensorIntrinTable *intrinsics = nullptr, uint64_t seed = 0)
      : module_(std::move(module)), intrinsics_(intrinsics), random_(seed) {}

  const ir::IRModule &module() const { return module_; }
  // The applied steps with TVM's RV names (b0, l1, v2, ...) and every argument spelled out.
  const ir::Trace &trace() const { return trace_; }

  // The registered intrinsic `name`, or null.
  const TensorIntrin *intrinsic(const std::string &name) const;

  llvm::Expected<ir::PrimFuncRef> function(const std::string &name, ir::SourceLoc at) const;
  // The function get_block looks in without func_name: "main", else the module's only prim_func.
  llvm::Expected<std::string> defaultFunction(ir::SourceLoc at) const;
  void setBody(const std::string &func, ir::Stmt body);
  void setFunction(const std::string &name, ir::PrimFuncRef func);

  // The BlockRealize of rv (path.back()), or an error at `at` when it is gone.
  llvm::Expected<StmtPath> findBlock(const BlockRV &rv, ir::SourceLoc at) const;
  // The For of rv (path.back()).
  llvm::Expected<StmtPath> findLoop(const LoopRV &rv, ir::SourceLoc at) const;
  // Replaces the node path.back() (of function func) by `replacement`, rebuilding its ancestors.
  void replace(const std::string &func, const StmtPath &path, ir::Stmt replacement);
  // Replaces several nodes of one function at once (keys are the nodes to replace).
  void replaceAll(const std::string &func, const std::map<const ir::StmtNode *, ir::Stmt> &replacements);
  // A block name not yet used in func: `base`, else `base_1`, `base_2`, ...
  std::string freshBlockName(const std::string &func, const std::string &base) const;
  // Keeps block RVs pointing at a block the step renamed.
  void renameBlock(const std::string &func, const std::string &from, const std::string &to);

  // The random source of the sample_* steps given no decision (seeded by the schedule's seed).
  std::mt19937_64 &random() { return random_; }

  // RV bookkeeping for the trace applier.
  struct Binding {
    RV rv;
    std::string traceName;  // b0, l1, ...
  };
  Binding bindNew(RV rv);
  void recordStep(ir::TraceStep step) { trace_.steps.push_back(std::move(step)); }
  // A step the trace records after the one being applied, as TVM's Python API adds one (a
  // transform_layout with axis separators is followed by set_axis_separator).
  void recordAfterCurrentStep(ir::TraceStep step) { followingSteps_.push_back(std::move(step)); }
  std::vector<ir::TraceStep> takeFollowingSteps() { return std::exchange(followingSteps_, {}); }
  std::vector<Binding> &bindings() { return bindings_; }

private:
  ir::IRModule module_;
  const TensorIntrinTable *intrinsics_;
  std::mt19937_64 random_;
  ir::Trace trace_;
  std::vector<Binding> bindings_;
  std::vector<ir::TraceStep> followingSteps_;
  int nextRV_ = 0;
};

}  // namespace vtac::passes::schedule
