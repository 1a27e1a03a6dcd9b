#include "vtac/driver/ScheduleOptions.h"

#include <CLI/CLI.hpp>

namespace vtac::driver {

void addScheduleOptions(CLI::App &command, prepare::Recipe &recipe) {
  command.add_option("--schedule", recipe.schedule,
                     "Apply the schedule def (TVM's trace text, a `def` taking `sch`) of FILE before the "
                     "passes; without it, the input's own schedule def, if any");
  command.add_option("--intrinsics", recipe.intrinsics,
                     "Read tensor intrinsics (desc/impl prim_funcs and tir.TensorIntrin.register lines) from "
                     "FILE for tensorize; vta_gemm and vta_gemm_reset are built in (vtac intrinsics)");
  command.add_flag("--auto-schedule", recipe.autoSchedule,
                   "Schedule for VTA every prim_func the schedule leaves (all without --schedule) by the "
                   "built-in rules (packed conv2d), tiles chosen for the VTA config; a remark names the "
                   "rule and tiles of each function, or why it stays on the CPU. --print-trace shows the "
                   "schedule, which --schedule replays");
  command.add_option("--tuning-db", recipe.tuningDb,
                     "With --auto-schedule: a function whose workload FILE holds (`vtac tune --tuning-db FILE` "
                     "writes it) gets the recorded schedule instead of the rule's own")
      ->needs("--auto-schedule");
}

void addPassOptions(CLI::App &command, prepare::Recipe &recipe) {
  command.add_option_function<std::vector<std::string>>(
      "--pass-option",
      [&recipe](const std::vector<std::string> &assignments) {
        for (const std::string &assignment : assignments) {
          size_t equals = assignment.find('=');
          if (equals == std::string::npos || equals == 0)
            throw CLI::ValidationError("--pass-option", "expected NAME=VALUE, got '" + assignment + "'");
          recipe.passOptions.emplace_back(assignment.substr(0, equals), assignment.substr(equals + 1));
        }
      },
      "NAME=VALUE: an option for the passes, e.g. unroll-loop.auto-max-step=16 or "
      "graph-pack-stop=nn.max_pool2d (repeatable)");
}

}  // namespace vtac::driver
