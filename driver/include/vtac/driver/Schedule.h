// Applying the schedule that goes with a module: the def of a `--schedule` file, else the module
// file's own schedule def (ParsedModule::schedule), else none. Tensor intrinsics come from the
// `tir.TensorIntrin.register(...)` lines of the module file (their desc/impl prim_funcs then leave
// the module: they describe hardware, they are not part of the program) and of an
// `--intrinsics` file.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "vtac/frontend/Frontend.h"

namespace vtac::driver {

// Applies the schedule to parsed.module; `printedTrace` (when not null) receives TVM's text of
// the applied trace ("" without a schedule); `seed` seeds its sample_* steps that have no
// decision. False after writing the error to `errors`.
bool applyModuleSchedule(frontend::ParsedModule &parsed, const std::string &schedulePath,
                         const std::string &intrinsicsPath, std::string *printedTrace, std::ostream &errors,
                         uint64_t seed = 0);

}  // namespace vtac::driver
