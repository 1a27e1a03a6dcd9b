// `vtac print FILE... [-o OUT] [--params FILE.npz]`: read, parse and verify each input (a path,
// or "-" for standard input) and print it in canonical TVMScript, in order, to standard output
// or to -o: a file, or with several inputs a directory that gets DIR/NAME.tvm for each NAME.tvm,
// replaced atomically and only when every input was free of errors.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "vtac/frontend/Frontend.h"
#include "vtac/support/Command.h"

namespace CLI {
class App;
}

namespace vtac::driver {

// A change made to each parsed input before it is printed (`--params` binds parameters); false
// after writing its diagnostics to `errors`.
using ModuleRewrite = std::function<bool(frontend::ParsedModule &parsed, std::ostream &errors)>;

// Prints `inputs` to `out`, or when `outputPath` is not empty to that file or directory; false
// when any input had an error (exit status 1), after writing the diagnostics to `errors`.
bool runPrint(const std::vector<std::string> &inputs, const std::string &outputPath, std::ostream &out,
              std::ostream &errors, const ModuleRewrite &rewrite = nullptr);

void registerPrintCommand(CLI::App &app, support::CommandAction &action);

}  // namespace vtac::driver
