// `vtac check FILE...`: read, parse and verify each input (a path, or "-" for standard input);
// silent on success, otherwise one `file:line:col: error: message` diagnostic per problem.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "vtac/support/Command.h"

namespace CLI {
class App;
}

namespace vtac::driver {

// False when any input had an error (exit status 1), after writing its diagnostics to `errors`.
bool runCheck(const std::vector<std::string> &inputs, std::ostream &errors);

void registerCheckCommand(CLI::App &app, support::CommandAction &action);

}  // namespace vtac::driver
