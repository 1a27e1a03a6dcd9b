// What the run-time checks of one host function (RuntimeChecks.h) know statically: the size
// of the allocation behind each buffer data variable, and the ranges of the loop and let
// variables in scope, through which the arithmetic analyzer (ir/arith) proves checks away.
//
// Allocations: a tensor parameter's data holds the product of its buffer's shape; a
// T.allocate its extents; a let of another known data variable, or of
// `VTABufferCPUPtr(cmd, data)`, the same allocation. A vector index (T.Ramp, T.Broadcast and
// sums or constant multiples of them) is in range when its first and last lanes are, as it is
// affine in the lane. Bindings are not scoped: every variable is a distinct object, bound once
// where it is defined (a parallel task's loop variable to the whole parallel loop's range).
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "vtac/codegen/HostLowering.h"
#include "vtac/ir/arith/Analyzer.h"

namespace vtac::codegen {

class AccessBounds {
public:
  explicit AccessBounds(const HostFunction &function);

  void bindLoop(const ir::Var &var, const ir::Expr &min, const ir::Expr &extent);
  void bindLet(const ir::Var &var, const ir::Expr &value);

  // The size in bytes (int64) of the allocation behind `data`; null when unknown.
  ir::Expr allocationBytes(const ir::Var &data) const;

  // The flat element an access reaches (int64, vector when an index is): the element offset
  // plus each index times its dimension's stride (compact row-major without explicit strides).
  ir::Expr flatIndex(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices) const;

  // Whether every lane of `index` provably lies in [0, limit) (`limit` scalar).
  bool provesInRange(const ir::Expr &index, const ir::Expr &limit);
  // Whether `e` (a scalar, or a broadcast one) provably never equals `value`.
  bool excludes(const ir::Expr &e, int64_t value);

private:
  ir::arith::Analyzer analyzer_;
  std::unordered_map<const ir::Var *, ir::Expr> allocationBytes_;
  std::unordered_set<const ir::Var *> taskLoopVars_;  // bound to the whole parallel loop's range
};

}  // namespace vtac::codegen
