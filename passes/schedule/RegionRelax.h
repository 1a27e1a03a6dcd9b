// Block regions after a primitive moved blocks: re-inferring T.reads/T.writes, and relaxing a
// region over loops (TVM's EvalSet on affine indices).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/schedule/Schedule.h"

namespace vtac::passes::schedule {

// Function parameters' buffers and every buffer a block allocates (what region inference
// recognises in `B.data`).
std::vector<ir::BufferRef> functionBuffers(const ir::PrimFunc &func);

// Re-infers T.reads/T.writes of the blocks named in `names` (with inferAccessRegions).
ir::Stmt reinferRegions(const ir::Stmt &root, const std::set<std::string> &names,
                        const std::vector<ir::BufferRef> &knownBuffers);

// An interval [min, min + extent) of a buffer dimension; extent null: unknown (whole dimension).
struct Interval {
  ir::Expr min;
  std::optional<int64_t> extent;
};

// The range that `range` (in terms of outer variables) covers while the variables in `relaxed`
// run over their ranges; only affine indices with constant relaxed ranges are bounded, anything
// else gives an unknown extent. The extent is simplified under what `outer` knows of the
// variables that are not relaxed, as TVM's compute_at simplifies the relaxed bounds under the
// loops around: `(c_o * 360 + 359) // 16 - c_o * 360 // 16` is 22 only for c_o in [0, 2).
Interval relaxRange(const ir::Range &range, const std::map<const ir::Var *, ir::Range> &relaxed, ir::arith::Analyzer &outer);
// The same, knowing nothing of the variables that are not relaxed.
Interval relaxRange(const ir::Range &range, const std::map<const ir::Var *, ir::Range> &relaxed);
// The union of two intervals when their mins differ by a constant; unknown otherwise.
Interval uniteIntervals(const Interval &a, const Interval &b);

}  // namespace vtac::passes::schedule
