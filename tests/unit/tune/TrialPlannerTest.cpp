#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include <llvm/ADT/STLExtras.h>

#include "vtac/tune/TrialPlanner.h"

using vtac::passes::autoschedule::FunctionSpace;
using vtac::passes::autoschedule::ScheduleChoice;
using namespace vtac::tune;

namespace {

// A space of two knobs: a in {1, 2, 4, 8} x b in {1, 3, 9}, without (8, 9): 11 choices.
FunctionSpace gridSpace() {
  FunctionSpace space;
  space.function = "main";
  for (int64_t a : {1, 2, 4, 8})
    for (int64_t b : {1, 3, 9})
      if (!(a == 8 && b == 9)) space.choices.push_back(ScheduleChoice{"", nullptr, {a, b}});
  return space;
}

size_t indexOf(const FunctionSpace &space, std::vector<int64_t> knobs) {
  for (size_t i = 0; i < space.choices.size(); ++i)
    if (space.choices[i].knobs == knobs) return i;
  FAIL("no such choice");
  return 0;
}

}  // namespace

TEST_CASE("neighbours differ in one knob by the nearest value either side", "[tune]") {
  FunctionSpace space = gridSpace();
  TrialPlanner planner(space, 64, 0, Objective{});
  auto knobsOf = [&](std::vector<size_t> choices) {
    std::set<std::vector<int64_t>> knobs;
    for (size_t c : choices) knobs.insert(space.choices[c].knobs);
    return knobs;
  };
  CHECK(knobsOf(planner.neighbours(indexOf(space, {2, 3}))) ==
        std::set<std::vector<int64_t>>{{1, 3}, {4, 3}, {2, 1}, {2, 9}});
  // (8, 9) is not in the space: (4, 9)'s neighbour above in a is none, (8, 3)'s above in b none
  CHECK(knobsOf(planner.neighbours(indexOf(space, {4, 9}))) == std::set<std::vector<int64_t>>{{2, 9}, {4, 3}});
  CHECK(knobsOf(planner.neighbours(indexOf(space, {8, 3}))) == std::set<std::vector<int64_t>>{{4, 3}, {8, 1}});
}

TEST_CASE("the planner measures the rule's own first, never a choice twice, within the budget", "[tune]") {
  FunctionSpace space = gridSpace();
  for (size_t budget : {1, 5, 11, 100}) {
    TrialPlanner planner(space, budget, 7, Objective{8});
    std::vector<size_t> trials;
    std::vector<std::optional<Cost>> costs;
    for (std::vector<size_t> batch = planner.nextBatch(trials, costs); !batch.empty();
         batch = planner.nextBatch(trials, costs)) {
      CHECK(batch.size() <= std::max<size_t>(TrialPlanner::kBatch, 1 + budget / 4));
      for (size_t choice : batch) {
        trials.push_back(choice);
        const std::vector<int64_t> &k = space.choices[choice].knobs;
        costs.push_back(Cost{uint64_t(100 * (k[0] - 4) * (k[0] - 4) + k[1]), 0});
      }
    }
    CHECK(trials.size() == std::min<size_t>(budget, space.choices.size()));
    CHECK(trials.front() == 0);
    CHECK(std::set<size_t>(trials.begin(), trials.end()).size() == trials.size());
  }
}

TEST_CASE("after the first draw a batch starts with the best trial's unmeasured neighbours; a seed repeats its plan",
          "[tune]") {
  FunctionSpace space = gridSpace();
  auto cost = [&](size_t choice) {
    const std::vector<int64_t> &k = space.choices[choice].knobs;
    return Cost{uint64_t(1000 + 100 * std::abs(k[0] - 4) + 10 * std::abs(k[1] - 3)), 0};
  };
  auto plan = [&](uint64_t seed) {
    TrialPlanner planner(space, 11, seed, Objective{});
    std::vector<size_t> trials;
    std::vector<std::optional<Cost>> costs;
    std::vector<std::vector<size_t>> batches;
    for (std::vector<size_t> batch = planner.nextBatch(trials, costs); !batch.empty();
         batch = planner.nextBatch(trials, costs)) {
      if (!trials.empty()) {
        std::vector<size_t> open = planner.neighbours(trials[rankTrials(costs, Objective{}).front()]);
        llvm::erase_if(open, [&](size_t choice) { return llvm::is_contained(trials, choice); });
        REQUIRE(open.size() <= batch.size());  // at most 4 in this space, a batch 4 or more
        CHECK(std::set<size_t>(batch.begin(), batch.begin() + open.size()) == std::set<size_t>(open.begin(), open.end()));
      }
      batches.push_back(batch);
      for (size_t choice : batch) {
        trials.push_back(choice);
        costs.push_back(cost(choice));
      }
    }
    CHECK(batches.front().size() == 1 + 11 / 4);
    return batches;
  };
  for (uint64_t seed = 0; seed < 10; ++seed) CHECK(plan(seed) == plan(seed));
}

TEST_CASE("cycles+dram weighs DRAM bytes as bus cycles; ties go to fewer cycles, then the earlier", "[tune]") {
  std::vector<std::optional<Cost>> costs{Cost{1000, 800}, std::nullopt, Cost{1050, 0}, Cost{1100, 0}, Cost{1000, 400}};
  CHECK(rankTrials(costs, Objective{8}) == std::vector<size_t>{4, 2, 0, 3});  // 1050, 1050, 1100, 1100
}

TEST_CASE("the cycles objective: within 0.2% of the fewest cycles, the fewest bytes", "[tune]") {
  // 100000 cycles the fewest: 100200 is tied with it (0.2%), 100201 is not.
  std::vector<std::optional<Cost>> costs{Cost{100000, 900}, Cost{100201, 10}, std::nullopt, Cost{100200, 500},
                                         Cost{100100, 500}, Cost{100300, 5}};
  CHECK(rankTrials(costs, Objective{}) == std::vector<size_t>{4, 3, 0, 1, 5});
  // exact ties: the fewer bytes, then the earlier
  std::vector<std::optional<Cost>> equal{Cost{1000, 800}, Cost{1000, 400}, Cost{1000, 400}};
  CHECK(rankTrials(equal, Objective{}) == std::vector<size_t>{1, 2, 0});
  CHECK(rankTrials({}, Objective{}).empty());
}
