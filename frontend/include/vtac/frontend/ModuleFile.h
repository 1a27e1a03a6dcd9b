// A module file as every command reads it: read (a path, or "-" for standard
// input), parsed, and every prim_func verified; and a parsed module printed
// back in canonical TVMScript.
#pragma once

#include "vtac/frontend/Frontend.h"

#include <optional>
#include <ostream>
#include <string>

namespace vtac::frontend {

/// Reads, parses and verifies one input; diagnostics are written to `errors`.
std::optional<ParsedModule> loadModule(const std::string &path, std::ostream &errors);

/// The canonical TVMScript of a parsed module: a bare function prints as one
/// `@T.prim_func`, anything else as an `@I.ir_module` class.
std::string printParsedModule(const ParsedModule &parsed);

} // namespace vtac::frontend
