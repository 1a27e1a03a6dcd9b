// `vtac tune`: searches the automatic VTA schedules' space of each prim_func by measuring
// candidates on the VTA simulator's timing model.
//
//   vtac tune FILE [--entry NAME] [--trials N | --choices I,J,...] [-j N] [--seed S] [--objective O]
//             [--vta-config PATH] [--tuning-db DB] [--log LOG] -o OUT.py
//   vtac tune FILE [--entry NAME] --space
//
// For each prim_func an auto-schedule rule recognises (passes/autoschedule: packed conv2d,
// dense, elementwise), the rule's space is every tiling it considers legal. The N trials are the
// rule's own choice (what --auto-schedule applies), a quarter of N drawn by the seed, then the
// neighbours (one knob changed) of the best trials measured so far. Each trial is scheduled,
// lowered with vta-lower, JIT-compiled and run on the simulator on seeded random inputs; its
// result must equal the unscheduled program's, run by the JIT on the CPU (a difference is a bug
// in vtac, reported as an error, never a score). The best trial has the least objective: the
// fewest modelled cycles, the fewest DRAM bytes among trials within 0.2% of them (default), or
// the cycles plus the DRAM bus's cycles for the trial's traffic. OUT.py is a schedule def of the best trials, which `--schedule OUT.py` replays; with
// --tuning-db DB each is also recorded in DB (passes/autoschedule/TuningDatabase.h), which
// `--auto-schedule --tuning-db DB` applies; --log LOG gets every trial's cost. Deterministic for
// a seed, whatever -j (tune/SpaceSearch.h, TrialPlanner.h, ForkedJobs.h). --space lists each space (index: remark); --choices measures given indices instead of
// a search (to compare a known tiling, such as TVM's tuned one).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "vtac/support/Command.h"
#include "vtac/tune/SpaceSearch.h"

namespace CLI {
class App;
}

namespace vtac::driver {

struct TuneOptions {
  std::string file;
  std::string entry;  // empty: every prim_func a rule recognises
  std::string output;
  std::string tuningDb;  // --tuning-db: the database each best schedule is added to
  std::string log;       // --log: every trial's cost
  std::string objective = "cycles";
  size_t jobs = 1;  // -j: trials measured at once
  bool printSpace = false;  // --space
  tune::SearchOptions search;  // --vta-config, --trials, --seed, --choices, --progress
};

// Runs the command; the exit status (0 success, 1 an error in the input or a failed trial).
int tuneCommand(const TuneOptions &options, std::ostream &out, std::ostream &errors);

void registerTuneCommand(CLI::App &app, support::CommandAction &action);

}  // namespace vtac::driver
