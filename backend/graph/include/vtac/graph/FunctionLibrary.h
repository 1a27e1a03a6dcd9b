// --load-library: loads a user's shared library (vtac/backend/SharedLibrary.h) whose functions
// may register themselves in the C function registry (func_registry.h), from a constructor or
// from an exported `int vtac_library_init(void)` that is called here (non-zero: failure, message
// in vtac_get_last_error). The library stays loaded for the life of the process; its plain C
// functions are what prim_funcs reach through T.call_extern (vtac/backend/LibraryExterns.h).
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

#include "vtac/backend/SharedLibrary.h"

namespace vtac::graph {

llvm::Expected<backend::SharedLibrary> loadFunctionLibrary(llvm::StringRef path);

}  // namespace vtac::graph
