#include "vtac/tune/TrialPlanner.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>

#include <llvm/ADT/STLExtras.h>
#include <llvm/Support/xxhash.h>

namespace vtac::tune {

std::vector<size_t> rankTrials(const std::vector<std::optional<Cost>> &costs, const Objective &objective) {
  std::vector<size_t> ranked;
  for (size_t i = 0; i < costs.size(); ++i)
    if (costs[i]) ranked.push_back(i);
  if (ranked.empty()) return ranked;
  uint64_t fewest = costs[ranked.front()]->cycles;
  for (size_t i : ranked) fewest = std::min(fewest, costs[i]->cycles);
  auto key = [&](size_t i) {
    const Cost &cost = *costs[i];
    if (objective.busBytes)  // in units of 1 / busBytes cycles, to stay exact
      return std::tuple(cost.cycles * objective.busBytes + cost.dramBytes, cost.cycles, uint64_t(0), i);
    bool tied = (cost.cycles - fewest) * Objective::kCycleTolerance <= fewest;
    return tied ? std::tuple(uint64_t(0), cost.dramBytes, cost.cycles, i)
                : std::tuple(uint64_t(1), cost.cycles, cost.dramBytes, i);
  };
  llvm::sort(ranked, [&](size_t a, size_t b) { return key(a) < key(b); });
  return ranked;
}

TrialPlanner::TrialPlanner(const passes::autoschedule::FunctionSpace &space, size_t budget, uint64_t seed,
                           Objective objective)
    : space_(space), objective_(objective), budget_(std::min(budget, space.choices.size())),
      random_(seed ^ llvm::xxh3_64bits(space.function)), planned_(space.choices.size(), false) {}

std::vector<size_t> TrialPlanner::nextBatch(const std::vector<size_t> &trials,
                                            const std::vector<std::optional<Cost>> &costs) {
  size_t planned = size_t(llvm::count(planned_, true));
  std::vector<size_t> batch;
  auto add = [&](size_t choice) {
    planned_[choice] = true;
    batch.push_back(choice);
  };
  if (planned == 0) {
    add(0);
    while (batch.size() < std::min(budget_, 1 + budget_ / 4)) add(draw());
    return batch;
  }
  size_t size = std::min(kBatch, budget_ - planned);
  for (size_t t : rankTrials(costs, objective_)) {
    std::vector<size_t> open = neighbours(trials[t]);
    llvm::erase_if(open, [&](size_t choice) { return planned_[choice]; });
    std::shuffle(open.begin(), open.end(), random_);
    for (size_t choice : open)
      if (batch.size() < size) add(choice);
  }
  while (batch.size() < size) add(draw());
  return batch;
}

size_t TrialPlanner::draw() {
  std::vector<size_t> left;
  for (size_t i = 0; i < planned_.size(); ++i)
    if (!planned_[i]) left.push_back(i);
  return left[std::uniform_int_distribution<size_t>(0, left.size() - 1)(random_)];
}

std::vector<size_t> TrialPlanner::neighbours(size_t choice) const {
  const std::vector<int64_t> &at = space_.choices[choice].knobs;
  std::vector<size_t> found;
  for (size_t knob = 0; knob < at.size(); ++knob) {
    std::optional<size_t> below, above;
    for (size_t i = 0; i < space_.choices.size(); ++i) {
      const std::vector<int64_t> &other = space_.choices[i].knobs;
      bool othersEqual = true;
      for (size_t k = 0; k < at.size(); ++k) othersEqual &= k == knob || other[k] == at[k];
      if (!othersEqual || other[knob] == at[knob]) continue;
      std::optional<size_t> &side = other[knob] < at[knob] ? below : above;
      if (!side || std::abs(other[knob] - at[knob]) < std::abs(space_.choices[*side].knobs[knob] - at[knob])) side = i;
    }
    for (std::optional<size_t> side : {below, above})
      if (side) found.push_back(*side);
  }
  return found;
}

}  // namespace vtac::tune
