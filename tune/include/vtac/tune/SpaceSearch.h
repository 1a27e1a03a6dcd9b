// The search of one function's schedule space (`vtac tune`): each trial is scheduled by one
// choice of the space, lowered with vta-lower, JIT-compiled and run on the VTA simulator on
// seeded random inputs; its result must equal the unscheduled program's, run by the JIT on the
// CPU (a difference is a bug in vtac, reported as an error, never a score). Which choices are
// measured is TrialPlanner's plan, or the given ones; with more than one job slot, trials run in
// forked workers (ForkedJobs.h). Deterministic for a seed, whatever the number of slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "vtac/frontend/Frontend.h"
#include "vtac/passes/autoschedule/AutoSchedule.h"
#include "vtac/tune/ForkedJobs.h"
#include "vtac/tune/TrialPlanner.h"

namespace vtac::tune {

struct SearchOptions {
  std::string vtaConfig;  // the VTA configuration trials are lowered for; empty: VTA_CONFIG, else TVM's
  int64_t trials = 64;    // per function
  uint64_t seed = 0;      // of the plan and of the random inputs
  std::vector<size_t> choices;  // these indices of each space instead of a plan
  bool progress = false;        // a progress line even when stderr is no terminal
};

class SpaceSearch {
public:
  // Searches the spaces of functions of `parsed`, which must outlive the search; a summary of
  // each search goes to `out`, remarks, the progress line and errors to `errors`.
  SpaceSearch(const SearchOptions &options, Objective objective, JobSlots &slots, const frontend::ParsedModule &parsed,
              std::ostream &out, std::ostream &errors);
  ~SpaceSearch();

  // The best trial's choice and cost, or nullopt after the error.
  std::optional<std::pair<size_t, Cost>> search(const passes::autoschedule::FunctionSpace &space);

  // One JSON line per trial so far (--log): the function, the choice's index and remark, and
  // its cost or the first line of vta-lower's refusal.
  const std::string &logText() const;

private:
  class Searcher;
  std::unique_ptr<Searcher> searcher_;
};

}  // namespace vtac::tune
