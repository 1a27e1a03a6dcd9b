#include "vtac/graph/FunctionLibrary.h"

#include <dlfcn.h>

#include "vtac/backend/Diagnostic.h"
#include "vtac/func_registry.h"

namespace vtac::graph {

llvm::Error loadFunctionLibrary(llvm::StringRef path) {
  // dlopen searches the library path for a bare name; a user naming a file means that file.
  std::string file = path.contains('/') ? path.str() : "./" + path.str();
  void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    return backend::diagnosticError("cannot load library '" + path + "': " +
                                    (reason ? reason : "unknown error"));
  }
  using InitFunction = int (*)();
  if (auto init = reinterpret_cast<InitFunction>(dlsym(handle, "vtac_library_init"))) {
    vtac_set_last_error("");
    if (init() != 0)
      return backend::diagnosticError("library '" + path + "' failed to initialise: " +
                                      vtac_get_last_error());
  }
  return llvm::Error::success();
}

}  // namespace vtac::graph
