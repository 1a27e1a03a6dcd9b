#include "vtac/driver/ScheduleOptions.h"

#include <CLI/CLI.hpp>

namespace vtac::driver {

void addScheduleOptions(CLI::App &command, std::string &schedule, std::string &intrinsics) {
  command.add_option("--schedule", schedule,
                     "Apply the schedule def (TVM's trace text, a `def` taking `sch`) of FILE before the "
                     "passes; without it, the input's own schedule def, if any");
  command.add_option("--intrinsics", intrinsics,
                     "Read tensor intrinsics (desc/impl prim_funcs and tir.TensorIntrin.register lines) from "
                     "FILE for tensorize; vta_gemm and vta_gemm_reset are built in (vtac intrinsics)");
}

}  // namespace vtac::driver
