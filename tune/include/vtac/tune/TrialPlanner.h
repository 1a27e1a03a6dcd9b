// What `vtac tune` measures: the cost of a trial, the objective that orders trials, and the plan
// of which schedules of a function's space to measure next.
//
// The plan: the rule's own schedule and a quarter of the budget drawn uniformly (to land in every
// region of the space), then the neighbours of the best trials measured so far (choices that
// differ in one knob: the cost is smooth in each knob, so the best tilings sit next to good
// ones), a draw again when every measured trial's neighbours are measured. Trials are planned in
// batches that do not depend on how many run at once (-j), so the search is deterministic for a
// seed.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "vtac/passes/autoschedule/AutoSchedule.h"

namespace vtac::tune {

// What a trial costs on the simulator.
struct Cost {
  uint64_t cycles = 0;
  uint64_t dramBytes = 0;  // every load and store of the run
};

// What the search minimises (--objective). By default (`busBytes` 0) the fewest modelled cycles,
// the fewest DRAM bytes breaking ties, where cycles within 1/kCycleTolerance of the fewest count
// as tied: many tilings differ by a few hundred cycles in a million, which the model does not
// resolve, and by twice the DRAM traffic. With `busBytes`, the cycles plus the cycles the DRAM
// bus is busy with the trial's loads and stores at `busBytes` a cycle (the bus is shared with
// the CPU on the board): that trades up to a few percent of cycles for the bytes.
struct Objective {
  uint64_t busBytes = 0;  // 0: cycles, bytes breaking near-ties
  static constexpr uint64_t kCycleTolerance = 500;  // 0.2%
};

// The measured trials (costs[i] set) best first by the objective, then the fewer cycles, then the
// earlier (with busBytes 0: the trials tied with the fewest cycles by bytes, then the others by
// cycles and bytes).
std::vector<size_t> rankTrials(const std::vector<std::optional<Cost>> &costs, const Objective &objective);

class TrialPlanner {
public:
  // At most `budget` trials; the seed is mixed with the function's name, so a function is tuned
  // alike alone (--entry) or with others.
  TrialPlanner(const passes::autoschedule::FunctionSpace &space, size_t budget, uint64_t seed, Objective objective);

  // The next choices to measure, given the choices measured so far and their costs (nullopt: the
  // lowering refused it); empty when the budget is spent.
  std::vector<size_t> nextBatch(const std::vector<size_t> &trials, const std::vector<std::optional<Cost>> &costs);

  // The choices that differ from `choice` in one knob, by the nearest value below or above among
  // the choices equal in every other knob.
  std::vector<size_t> neighbours(size_t choice) const;

  static constexpr size_t kBatch = 8;  // trials planned at once after the first draw

private:
  size_t draw();

  const passes::autoschedule::FunctionSpace &space_;
  Objective objective_;
  size_t budget_;
  std::mt19937_64 random_;
  std::vector<bool> planned_;  // per choice
};

}  // namespace vtac::tune
