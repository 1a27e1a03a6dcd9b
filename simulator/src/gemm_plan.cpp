#include "gemm_plan.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace vta::sim {

namespace {
// Every execution's (input, weight) operands, accumulator by accumulator in order of first
// appearance, each accumulator's in execution order: one flat array per operand, as a
// first-instruction plan is built on the simulator's critical path (a ResNet-18 inference
// builds hundreds).
struct Products {
  std::vector<uint32_t> accs;        // accumulator of each slot
  std::vector<uint32_t> begins;      // slot s's operands are [begins[s], begins[s + 1])
  std::vector<uint32_t> inps, wgts;  // by slot, then step

  uint32_t steps(uint32_t slot) const { return begins[slot + 1] - begins[slot]; }
  const uint32_t* inp(uint32_t slot) const { return inps.data() + begins[slot]; }
  const uint32_t* wgt(uint32_t slot) const { return wgts.data() + begins[slot]; }
};
using Group = std::vector<uint32_t>;  // slots
constexpr size_t kNoPartner = SIZE_MAX;
constexpr uint64_t kHashSeed = 0xcbf29ce484222325ull;  // FNV-1a's offset basis

Products gatherProducts(const std::vector<GemmTile>& uops, uint32_t iterOut, uint32_t iterIn,
                        const GemmTile& factorOut, const GemmTile& factorIn) {
  Products products;
  std::unordered_map<uint32_t, uint32_t> slotOfAcc;
  std::vector<uint32_t> slotOfExecution, counts;
  slotOfExecution.reserve(size_t{iterOut} * iterIn * uops.size());
  for (uint32_t y = 0; y < iterOut; ++y)
    for (uint32_t x = 0; x < iterIn; ++x)
      for (const GemmTile& u : uops) {
        const uint32_t acc = u.acc + y * factorOut.acc + x * factorIn.acc;
        const auto [slot, added] = slotOfAcc.try_emplace(acc, static_cast<uint32_t>(counts.size()));
        if (added) {
          products.accs.push_back(acc);
          counts.push_back(0);
        }
        ++counts[slot->second];
        slotOfExecution.push_back(slot->second);
      }
  products.begins.assign(counts.size() + 1, 0);
  for (size_t s = 0; s < counts.size(); ++s) products.begins[s + 1] = products.begins[s] + counts[s];
  products.inps.resize(slotOfExecution.size());
  products.wgts.resize(slotOfExecution.size());
  std::vector<uint32_t> filled(products.begins.begin(), products.begins.end() - 1);
  size_t execution = 0;
  for (uint32_t y = 0; y < iterOut; ++y)
    for (uint32_t x = 0; x < iterIn; ++x)
      for (const GemmTile& u : uops) {
        const uint32_t at = filled[slotOfExecution[execution++]]++;
        products.inps[at] = u.inp + y * factorOut.inp + x * factorIn.inp;
        products.wgts[at] = u.wgt + y * factorOut.wgt + x * factorIn.wgt;
      }
  return products;
}

uint64_t hashSequence(uint64_t hash, const uint32_t* values, uint32_t count) {
  for (uint32_t k = 0; k < count; ++k) hash = (hash ^ values[k]) * 0x100000001b3ull;  // FNV-1a
  return hash;
}

bool sameSequence(const uint32_t* a, uint32_t aCount, const uint32_t* b, uint32_t bCount) {
  return aCount == bCount && std::equal(a, a + aCount, b);
}

// Groups of equal keys, in order of first appearance: `hash(i)` and `equal(i, j)` describe the
// key of item i; returns each item's group. Buckets by hash, so equal keys cost one comparison.
template <typename Hash, typename Equal>
std::vector<size_t> groupEqual(size_t items, Hash hash, Equal equal, size_t& groupCount) {
  std::unordered_multimap<uint64_t, size_t> firstOfGroup;  // hash -> first item of a group
  std::vector<size_t> groupOf(items);
  groupCount = 0;
  for (size_t i = 0; i < items; ++i) {
    const uint64_t h = hash(i);
    size_t group = SIZE_MAX;
    for (auto [it, end] = firstOfGroup.equal_range(h); it != end && group == SIZE_MAX; ++it)
      if (equal(it->second, i)) group = groupOf[it->second];
    if (group == SIZE_MAX) {
      group = groupCount++;
      firstOfGroup.emplace(h, i);
    }
    groupOf[i] = group;
  }
  return groupOf;
}

// Appends the group's accumulators [begin, end) as one block.
void appendBlock(const Products& products, const Group& group, size_t begin, size_t end,
                 bool pairedWithNext, GemmPlan& plan) {
  const uint32_t steps = products.steps(group.front());
  bool consecutiveInputs = true;
  const size_t firstTile = plan.tiles.size();
  for (uint32_t s = 0; s < steps; ++s) {
    const uint32_t firstInput = products.inp(group[begin])[s];
    for (size_t a = begin; a < end; ++a) {
      const uint32_t input = products.inp(group[a])[s];
      plan.tiles.push_back({products.accs[group[a]], input, products.wgt(group[a])[s]});
      consecutiveInputs &= input == firstInput + (a - begin);
    }
  }
  plan.blocks.push_back(
      {static_cast<uint32_t>(end - begin), steps, firstTile, consecutiveInputs, pairedWithNext});
}

// Splits a group into blocks of at most maxAccs, as even as possible (98 -> 7 x 14, not
// 6 x 16 + 2). With a partner (same inputs, see gatherGroups), each block of the group is
// followed by the partner's block of the same accumulator positions.
void appendBlocks(const Products& products, const Group& group, uint32_t maxAccs, const Group* partner,
                  GemmPlan& plan) {
  const size_t blockCount = (group.size() + maxAccs - 1) / maxAccs;
  size_t begin = 0;
  for (size_t b = 0; b < blockCount; ++b) {
    const size_t end = begin + (group.size() - begin) / (blockCount - b);
    appendBlock(products, group, begin, end, partner != nullptr, plan);
    if (partner) appendBlock(products, *partner, begin, end, false, plan);
    begin = end;
  }
}
}  // namespace

GemmPlan buildGemmPlan(const std::vector<GemmTile>& uops, uint32_t iterOut, uint32_t iterIn,
                       const GemmTile& factorOut, const GemmTile& factorIn) {
  const Products products = gatherProducts(uops, iterOut, iterIn, factorOut, factorIn);
  const size_t slots = products.accs.size();
  // Accumulators with the same weight sequence, in order of first appearance.
  size_t groupCount = 0;
  const std::vector<size_t> groupOfSlot = groupEqual(
      slots, [&](size_t s) { return hashSequence(kHashSeed, products.wgt(s), products.steps(s)); },
      [&](size_t a, size_t b) {
        return sameSequence(products.wgt(a), products.steps(a), products.wgt(b), products.steps(b));
      },
      groupCount);
  std::vector<Group> groups(groupCount);
  for (size_t s = 0; s < slots; ++s) groups[groupOfSlot[s]].push_back(static_cast<uint32_t>(s));
  // Groups reading the same inputs (a convolution's output channel blocks: the same size, and
  // the same input at every (accumulator, step)) in pairs, in order.
  size_t inputClasses = 0;
  const std::vector<size_t> inputClassOf = groupEqual(
      groups.size(),
      [&](size_t g) {
        uint64_t hash = kHashSeed ^ groups[g].size();
        for (uint32_t slot : groups[g]) hash = hashSequence(hash, products.inp(slot), products.steps(slot));
        return hash;
      },
      [&](size_t a, size_t b) {
        if (groups[a].size() != groups[b].size()) return false;
        for (size_t k = 0; k < groups[a].size(); ++k) {
          const uint32_t sa = groups[a][k], sb = groups[b][k];
          if (!sameSequence(products.inp(sa), products.steps(sa), products.inp(sb), products.steps(sb))) return false;
        }
        return true;
      },
      inputClasses);
  std::vector<size_t> partner(groups.size(), kNoPartner), unpaired(inputClasses, kNoPartner);
  for (size_t g = 0; g < groups.size(); ++g) {
    size_t& waiting = unpaired[inputClassOf[g]];
    if (waiting == kNoPartner) {
      waiting = g;
    } else {
      partner[waiting] = g;
      partner[g] = waiting;
      waiting = kNoPartner;
    }
  }
  GemmPlan plan;
  plan.tiles.reserve(products.inps.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    if (partner[g] == kNoPartner) {
      appendBlocks(products, groups[g], kMaxBlockAccs, nullptr, plan);
    } else if (partner[g] > g) {
      appendBlocks(products, groups[g], kMaxPairedBlockAccs, &groups[partner[g]], plan);
    }
  }
  return plan;
}

}  // namespace vta::sim
