#include "vtac/backend/SharedLibrary.h"

#include <dlfcn.h>

#include "vtac/backend/Diagnostic.h"

namespace vtac::backend {

llvm::Expected<SharedLibrary> SharedLibrary::open(llvm::StringRef path) {
  // dlopen searches the library path for a bare name; a user naming a file means that file.
  std::string file = path.contains('/') ? path.str() : "./" + path.str();
  void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char *reason = dlerror();
    return diagnosticError("cannot load library '" + path + "': " + (reason ? reason : "unknown error"));
  }
  return SharedLibrary(path.str(), handle);
}

void *SharedLibrary::symbol(llvm::StringRef name) const {
  return dlsym(handle_, name.str().c_str());
}

}  // namespace vtac::backend
