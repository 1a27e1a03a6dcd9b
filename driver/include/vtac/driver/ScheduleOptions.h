// The command-line options of a schedule, spelled and explained the same way by every command
// that prepares a program (`vtac opt`, `vtac run`, `vtac compile`).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace vtac::driver {

// Adds --schedule FILE, --intrinsics FILE and --auto-schedule to `command` (Recipe::schedule,
// Recipe::intrinsics, Recipe::autoSchedule).
void addScheduleOptions(CLI::App &command, std::string &schedule, std::string &intrinsics, bool &autoSchedule,
                        std::string &tuningDb);

}  // namespace vtac::driver
