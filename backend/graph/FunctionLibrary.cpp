#include "vtac/graph/FunctionLibrary.h"

#include "vtac/backend/Diagnostic.h"
#include "vtac/func_registry.h"

namespace vtac::graph {

llvm::Expected<backend::SharedLibrary> loadFunctionLibrary(llvm::StringRef path) {
  llvm::Expected<backend::SharedLibrary> library = backend::SharedLibrary::open(path);
  if (!library) return library.takeError();
  using InitFunction = int (*)();
  if (auto init = reinterpret_cast<InitFunction>(library->symbol("vtac_library_init"))) {
    vtac_set_last_error("");
    if (init() != 0)
      return backend::diagnosticError("library '" + path + "' failed to initialise: " +
                                      vtac_get_last_error());
  }
  return library;
}

}  // namespace vtac::graph
