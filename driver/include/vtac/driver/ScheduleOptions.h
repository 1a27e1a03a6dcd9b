// The command-line options of a schedule, spelled and explained the same way by every command
// that prepares a program (`vtac opt`, `vtac run`, `vtac compile`).
#pragma once

#include "vtac/prepare/Prepare.h"

namespace CLI {
class App;
}

namespace vtac::driver {

// Adds --schedule FILE, --intrinsics FILE, --auto-schedule and --tuning-db FILE to `command`,
// setting `recipe`'s fields of the same names.
void addScheduleOptions(CLI::App &command, prepare::Recipe &recipe);
// Adds --pass-option NAME=VALUE (repeatable), filling `recipe.passOptions`.
void addPassOptions(CLI::App &command, prepare::Recipe &recipe);

}  // namespace vtac::driver
