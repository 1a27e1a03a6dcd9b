// The `compile` subcommand's flags (CLI11); the command itself is compileCommand
// (CompileCommand.h).
#pragma once

#include <CLI/CLI.hpp>

#include "vtac/support/Command.h"

namespace vtac::codegen {

void registerCompileCommand(CLI::App &app, support::CommandAction &action);

// Rewrites gcc's dependency flags after a `compile` argument, `-MD` and `-MF`, to the `--MD`
// and `--MF` that CLI11 parses (it reads `-MD` as the two short flags -M and -D). Call before
// parsing.
void spellDependencyFlags(int argc, char **argv);

}  // namespace vtac::codegen
