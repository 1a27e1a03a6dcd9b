// What the commands share in using prepare/: a refused recipe printed as
// `<command>: error: <message>` with its exit status, and one module prepared.
#pragma once

#include <ostream>
#include <string>

#include <llvm/Support/Error.h>

#include "vtac/frontend/Frontend.h"
#include "vtac/prepare/Prepare.h"

namespace vtac::driver {

// Writes `error` after "<command>: error: " and returns the exit status it calls for (a
// prepare::RecipeError's own, else 1).
int reportRecipeError(const std::string &command, llvm::Error error, std::ostream &errors);

// `pipeline` with legalize-ops where a module of high-level Relax operators needs it: at its
// head, after any vta-graph-pack (which packs operators); unchanged when it names legalize-ops.
std::string withLegalizeOps(const std::string &pipeline);

// Prepares `parsed` with a Preparer of its own, for commands that prepare one module (`vtac
// run`, each input of `vtac compile`); the exit status. A module with high-level Relax
// operators gets legalize-ops (withLegalizeOps).
int prepareModule(const std::string &command, const prepare::Recipe &recipe, frontend::ParsedModule &parsed,
                  std::ostream &errors, passes::Instrumentation instrumentation = {});

}  // namespace vtac::driver
