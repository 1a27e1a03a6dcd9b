// The timing model's schedule of the VTA instructions a run executes (`vtac run --timeline`):
// collected from the simulator (VTASimSetTimeline) while a VtaTimelineScope lives, written as
// JSON that scripts/plot_timeline.py draws as a Gantt chart of the load, compute and store
// modules (docs/timing-model.md).
#pragma once

#include <string>
#include <vector>

#include <vta/sim.h>

namespace vtac::backend {

class VtaTimelineScope {
public:
  // Collects nothing unless `enabled`.
  explicit VtaTimelineScope(bool enabled);
  ~VtaTimelineScope();
  VtaTimelineScope(const VtaTimelineScope &) = delete;
  VtaTimelineScope &operator=(const VtaTimelineScope &) = delete;

  // {"clock_mhz": 100, "instructions": [{"index": 3, "module": "load", "opcode": "LOAD",
  // "start": 0, "end": 34}, ...]}: the clock the cycles count, then one instruction a line, in
  // the order the runs reported them.
  std::string json() const;

private:
  static void append(const VTASimTimelineEntry *entry, void *scope);
  bool enabled_;
  std::vector<VTASimTimelineEntry> entries_;  // module and opcode: the simulator's static names
};

}  // namespace vtac::backend
