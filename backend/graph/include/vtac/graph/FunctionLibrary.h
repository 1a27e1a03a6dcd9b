// --load-library: loads a user's shared library whose functions register themselves in the C
// function registry (func_registry.h), from a constructor or from an exported
// `int vtac_library_init(void)` that is called here (non-zero: failure, message in
// vtac_get_last_error). The library stays loaded for the life of the process.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

namespace vtac::graph {

llvm::Error loadFunctionLibrary(llvm::StringRef path);

}  // namespace vtac::graph
