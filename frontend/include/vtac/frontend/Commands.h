// The substance of the driver's `print` and `check` subcommands, kept out of
// bin/vtac.cpp so that the driver only parses flags and so that tests can run
// the commands in-process.
//
// Both read each input (a path, or "-" for standard input), parse it, run the
// IR verifier on every prim_func and write diagnostics to `errors`. They return
// false when any input had an error (the driver's exit status 1).
#pragma once

#include "vtac/frontend/Frontend.h"

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace vtac::frontend {

/// Reads, parses and verifies one input; diagnostics are written to `errors`.
std::optional<ParsedModule> loadModule(const std::string &path, std::ostream &errors);

/// The canonical TVMScript of a parsed module: a bare function prints as one
/// `@T.prim_func`, anything else as an `@I.ir_module` class.
std::string printParsedModule(const ParsedModule &parsed);

/// `vtac check FILE...`: silent on success.
bool runCheck(const std::vector<std::string> &inputs, std::ostream &errors);

/// A change made to each parsed input before it is printed (`vtac print --params`
/// binds parameters); false after writing its diagnostics to `errors`.
using ModuleRewrite = std::function<bool(ParsedModule &parsed, std::ostream &errors)>;

/// `vtac print FILE... [-o OUT]`: canonical TVMScript of every input, in order,
/// to `out` or, when `outputPath` is not empty, to that file — replaced
/// atomically and only when every input was free of errors.
bool runPrint(const std::vector<std::string> &inputs, const std::string &outputPath,
              std::ostream &out, std::ostream &errors, const ModuleRewrite &rewrite = nullptr);

} // namespace vtac::frontend
