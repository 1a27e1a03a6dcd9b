#include "gemm_plan.h"

#include <map>
#include <unordered_map>

namespace vta::sim {

namespace {
// The (input, weight) operands of one accumulator tile, in execution order.
struct AccProducts {
  uint32_t acc;
  std::vector<uint32_t> inps, wgts;
};
}  // namespace

GemmPlan buildGemmPlan(const std::vector<GemmTile>& uops, uint32_t iterOut, uint32_t iterIn,
                       const GemmTile& factorOut, const GemmTile& factorIn) {
  std::vector<AccProducts> products;
  std::unordered_map<uint32_t, size_t> productsOfAcc;
  for (uint32_t y = 0; y < iterOut; ++y)
    for (uint32_t x = 0; x < iterIn; ++x)
      for (const GemmTile& u : uops) {
        const uint32_t acc = u.acc + y * factorOut.acc + x * factorIn.acc;
        const auto [slot, added] = productsOfAcc.try_emplace(acc, products.size());
        if (added) products.push_back({acc, {}, {}});
        AccProducts& p = products[slot->second];
        p.inps.push_back(u.inp + y * factorOut.inp + x * factorIn.inp);
        p.wgts.push_back(u.wgt + y * factorOut.wgt + x * factorIn.wgt);
      }
  // Accumulators with the same weight sequence, in order of first appearance.
  std::map<std::vector<uint32_t>, size_t> groupOfWeights;
  std::vector<std::vector<const AccProducts*>> groups;
  for (const AccProducts& p : products) {
    const auto [slot, added] = groupOfWeights.try_emplace(p.wgts, groups.size());
    if (added) groups.emplace_back();
    groups[slot->second].push_back(&p);
  }
  GemmPlan plan;
  for (const auto& group : groups) {
    // Blocks of at most kMaxBlockAccs, as even as possible (98 -> 7 x 14, not 6 x 16 + 2).
    const size_t blockCount = (group.size() + kMaxBlockAccs - 1) / kMaxBlockAccs;
    const uint32_t steps = static_cast<uint32_t>(group.front()->wgts.size());
    size_t begin = 0;
    for (size_t b = 0; b < blockCount; ++b) {
      const size_t end = begin + (group.size() - begin) / (blockCount - b);
      const uint32_t accs = static_cast<uint32_t>(end - begin);
      plan.blocks.push_back({accs, steps, plan.tiles.size()});
      for (uint32_t s = 0; s < steps; ++s)
        for (size_t a = begin; a < end; ++a)
          plan.tiles.push_back({group[a]->acc, group[a]->inps[s], group[a]->wgts[s]});
      begin = end;
    }
  }
  return plan;
}

}  // namespace vta::sim
