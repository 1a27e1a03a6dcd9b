// Applying the schedule that goes with a module: the def of a `--schedule` file, else the module
// file's own schedule def (ParsedModule::schedule), else none.
#pragma once

#include <ostream>
#include <string>

#include "vtac/frontend/Frontend.h"

namespace vtac::driver {

// Applies the schedule to parsed.module; `printedTrace` (when not null) receives TVM's text of
// the applied trace ("" without a schedule). False after writing the error to `errors`.
bool applyModuleSchedule(frontend::ParsedModule &parsed, const std::string &schedulePath,
                         std::string *printedTrace, std::ostream &errors);

}  // namespace vtac::driver
