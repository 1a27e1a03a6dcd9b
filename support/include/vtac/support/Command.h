// What a subcommand's flag callback leaves for the driver to run: the work, returning the exit
// status (0 success, 1 error in the input, 2 usage error).
#pragma once

#include <functional>

namespace vtac::support {

using CommandAction = std::function<int()>;

constexpr int kExitSuccess = 0;
constexpr int kExitInputError = 1;
constexpr int kExitUsageError = 2;

}  // namespace vtac::support
