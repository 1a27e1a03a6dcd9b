#include "gemm_plan.h"

#include <cstdint>
#include <map>
#include <unordered_map>

namespace vta::sim {

namespace {
// The (input, weight) operands of one accumulator tile, in execution order.
struct AccProducts {
  uint32_t acc;
  std::vector<uint32_t> inps, wgts;
};
using Group = std::vector<const AccProducts*>;
constexpr size_t kNoPartner = SIZE_MAX;

// The group's size, its step count and every input index, accumulator by accumulator: groups
// with equal sequences read the same input at every (accumulator, step).
std::vector<uint32_t> inputSequence(const Group& group) {
  std::vector<uint32_t> sequence{static_cast<uint32_t>(group.size()),
                                 static_cast<uint32_t>(group.front()->inps.size())};
  for (const AccProducts* p : group) sequence.insert(sequence.end(), p->inps.begin(), p->inps.end());
  return sequence;
}

// Appends the group's accumulators [begin, end) as one block.
void appendBlock(const Group& group, size_t begin, size_t end, bool pairedWithNext,
                 GemmPlan& plan) {
  const uint32_t steps = static_cast<uint32_t>(group.front()->wgts.size());
  bool consecutiveInputs = true;
  const size_t firstTile = plan.tiles.size();
  for (uint32_t s = 0; s < steps; ++s)
    for (size_t a = begin; a < end; ++a) {
      plan.tiles.push_back({group[a]->acc, group[a]->inps[s], group[a]->wgts[s]});
      consecutiveInputs &= group[a]->inps[s] == group[begin]->inps[s] + (a - begin);
    }
  plan.blocks.push_back(
      {static_cast<uint32_t>(end - begin), steps, firstTile, consecutiveInputs, pairedWithNext});
}

// Splits a group into blocks of at most maxAccs, as even as possible (98 -> 7 x 14, not
// 6 x 16 + 2). With a partner (same inputs, see inputSequence), each block of the group is
// followed by the partner's block of the same accumulator positions.
void appendBlocks(const Group& group, uint32_t maxAccs, const Group* partner, GemmPlan& plan) {
  const size_t blockCount = (group.size() + maxAccs - 1) / maxAccs;
  size_t begin = 0;
  for (size_t b = 0; b < blockCount; ++b) {
    const size_t end = begin + (group.size() - begin) / (blockCount - b);
    appendBlock(group, begin, end, partner != nullptr, plan);
    if (partner) appendBlock(*partner, begin, end, false, plan);
    begin = end;
  }
}
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
  std::vector<Group> groups;
  for (const AccProducts& p : products) {
    const auto [slot, added] = groupOfWeights.try_emplace(p.wgts, groups.size());
    if (added) groups.emplace_back();
    groups[slot->second].push_back(&p);
  }
  // Groups reading the same inputs (a convolution's output channel blocks) in pairs, in order.
  std::map<std::vector<uint32_t>, std::vector<size_t>> groupsOfInputs;
  for (size_t g = 0; g < groups.size(); ++g) groupsOfInputs[inputSequence(groups[g])].push_back(g);
  std::vector<size_t> partner(groups.size(), kNoPartner);
  for (const auto& [inputs, members] : groupsOfInputs)
    for (size_t k = 0; k + 1 < members.size(); k += 2) {
      partner[members[k]] = members[k + 1];
      partner[members[k + 1]] = members[k];
    }
  GemmPlan plan;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (partner[g] == kNoPartner) {
      appendBlocks(groups[g], kMaxBlockAccs, nullptr, plan);
    } else if (partner[g] > g) {
      appendBlocks(groups[g], kMaxPairedBlockAccs, &groups[partner[g]], plan);
    }
  }
  return plan;
}

}  // namespace vta::sim
