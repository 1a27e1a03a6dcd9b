// relax.transform.BindParams from an .npz file (`vtac print --params`, `vtac run --params`):
// the parameters of a Relax function bound to the arrays that share their names.
#pragma once

#include <ostream>
#include <string>

#include <llvm/Support/Error.h>

#include "vtac/ir/Function.h"

namespace vtac::graph {

// The module with the parameters of its Relax function `function` bound to the arrays of
// `npzPath` that share their names; each other array is a warning on `warnings` and is never
// inflated.
llvm::Expected<ir::IRModule> bindParamsFromFile(const ir::IRModule &module, const std::string &function,
                                                const std::string &npzPath, std::ostream &warnings);

}  // namespace vtac::graph
