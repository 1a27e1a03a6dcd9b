// A tuning database: what `vtac tune --tuning-db DB` found, which `--auto-schedule --tuning-db DB`
// applies before the rules' own choices (TVM's tophub, as a text file). One JSON object a line:
//
//   {"workload": "conv2d-packed images 1 ic 4 56x56 oc 4 56x56 kernel 3x3 stride 1x1 pad 1x1 added 0",
//    "vta": "1x16_i8w8a32_15_15_18_17", "schedule": "conv2d-packed: 3x3 stride 1; tiles ...",
//    "cycles": 925284, "dram_bytes": 957048}
//
// keyed by the workload as its rule recognises it (shapes, kernel, stride, padding, added
// tensors) and the VTA configuration (TVM's model name of it: BATCHxBLOCK, widths, log2 of the
// micro-op, input, weight and accumulator SRAM sizes); the schedule is the rule's description of
// its choice, and the measured cost is for the reader.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <llvm/Support/Error.h>

#include "vta/config.h"

namespace vtac::passes::autoschedule {

struct TuningRecord {
  std::string workload, vta, schedule;
  uint64_t cycles = 0, dramBytes = 0;
};

class TuningDatabase {
public:
  // Reads `path`; a file that does not exist is an empty database when `missingIsEmpty` (what
  // `vtac tune` starts), an error otherwise. A malformed line is a located error.
  static llvm::Expected<TuningDatabase> read(const std::string &path, bool missingIsEmpty);

  const TuningRecord *find(const std::string &workload, const std::string &vta) const;
  // Adds `record`, replacing the one of the same workload and configuration.
  void put(TuningRecord record);
  std::string text() const;

private:
  std::vector<TuningRecord> records_;
};

// TVM's name of a configuration's shape: "1x16_i8w8a32_15_15_18_17".
std::string vtaModelName(const vta::Config &config);

}  // namespace vtac::passes::autoschedule
