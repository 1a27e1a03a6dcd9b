// sample_perfect_tile(loop, n, max_innermost_factor=16, decision=None): n factors whose product
// is the loop's constant extent, the innermost at most max_innermost_factor (no bound when it is
// not positive), as sampled values (ExprRVs) for a later split. With `decision=[f0, ...]` those
// factors are checked and replayed exactly; without, one of all such tilings is drawn uniformly
// from the schedule's seeded random source. The recorded step holds the decision. A loop without
// a constant extent is tiled trivially as TVM does, whatever the decision: [-1, 1, ..., 1], the
// first factor None (for split to infer).
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// Every way to write `extent` as an ordered product of `n` factors.
void perfectTilings(int64_t extent, int64_t n, std::vector<int64_t> &prefix, std::vector<std::vector<int64_t>> &out) {
  if (n == 1) {
    prefix.push_back(extent);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  for (int64_t factor = 1; factor <= extent; ++factor) {
    if (extent % factor) continue;
    prefix.push_back(factor);
    perfectTilings(extent / factor, n - 1, prefix, out);
    prefix.pop_back();
  }
}

}  // namespace

llvm::Expected<std::vector<SplitFactor>> samplePerfectTile(Schedule &sch, const Located<LoopRV> &loop,
                                                           const Located<int64_t> &n, int64_t maxInnermost,
                                                           Located<std::optional<std::vector<int64_t>>> &decision) {
  if (n.value < 1 || n.value > 8) return diagnosticError(n.at, "sample_perfect_tile: n must be between 1 and 8");
  llvm::Expected<StmtPath> path = sch.findLoop(loop.value, loop.at);
  if (!path) return path.takeError();
  std::optional<int64_t> extent = asConstInt(path->back().as<For>()->extent);
  if (extent && *extent < 1)
    return diagnosticError(loop.at, "sample_perfect_tile: the loop '" + loop.value.loopVar->name + "' has extent " +
                                        std::to_string(*extent));

  std::vector<int64_t> factors;
  if (!extent) {
    factors.assign(size_t(n.value), 1);
    factors[0] = -1;
  } else if (!decision.value) {
    std::vector<std::vector<int64_t>> tilings, allowed;
    std::vector<int64_t> prefix;
    perfectTilings(*extent, n.value, prefix, tilings);
    for (std::vector<int64_t> &tiling : tilings)
      if (maxInnermost <= 0 || tiling.back() <= maxInnermost) allowed.push_back(std::move(tiling));
    std::uniform_int_distribution<size_t> pick(0, allowed.size() - 1);
    factors = allowed[pick(sch.random())];  // never empty: the innermost factor 1 is always allowed
  } else {
    auto bad = [&](const std::string &why) {
      return diagnosticError(decision.at, "sample_perfect_tile: decision " + why);
    };
    if (int64_t(decision.value->size()) != n.value) return bad("must be a list of " + std::to_string(n.value) + " factors");
    int64_t product = 1;
    for (int64_t factor : *decision.value) {
      if (factor < 1) return bad("must hold positive integers");
      factors.push_back(factor);
      // A product past the extent (or past int64) cannot come back down to it.
      std::optional<int64_t> next = exactIntArith(NodeKind::Mul, product, factor);
      if (!next || *next > *extent) {
        product = -1;
        break;
      }
      product = *next;
    }
    if (product != *extent)
      return bad("does not multiply to the extent " + std::to_string(*extent) + " of the loop '" +
                 loop.value.loopVar->name + "'");
    if (maxInnermost > 0 && factors.back() > maxInnermost)
      return bad("has the innermost factor " + std::to_string(factors.back()) + ", more than max_innermost_factor " +
                 std::to_string(maxInnermost));
  }
  decision.value = factors;
  std::vector<SplitFactor> results;
  for (int64_t factor : factors) results.push_back(factor == -1 ? std::nullopt : SplitFactor(factor));
  return results;
}

}  // namespace vtac::passes::schedule
