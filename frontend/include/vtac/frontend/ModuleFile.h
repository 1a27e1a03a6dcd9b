// A module file as every command reads it: read (a path, or "-" for standard
// input), parsed, and every prim_func verified; and a parsed module printed
// back in canonical TVMScript.
#pragma once

#include "vtac/frontend/Frontend.h"

#include <llvm/Support/Error.h>

#include <string>

namespace vtac::frontend {

/// Reads, parses and verifies one input; its diagnostics (every error, located, up to the
/// frontend's limit) come back as the error, rendered by ir::renderError.
llvm::Expected<ParsedModule> loadModule(const std::string &path);

/// The canonical TVMScript of a parsed module: a bare function prints as one
/// `@T.prim_func`, anything else as an `@I.ir_module` class.
std::string printParsedModule(const ParsedModule &parsed);

} // namespace vtac::frontend
