// A user's shared library, loaded with `vtac run --load-library PATH` for the life of the process.
//
// Its exported C functions can be called from prim_funcs with `T.call_extern` (LibraryExterns.h),
// and a library may register packed functions for graphs in the function registry
// (vtac/graph/FunctionLibrary.h). It is opened with RTLD_GLOBAL, so that code compiled in the
// process (the JIT of `--engine=jit`) resolves the same symbols as the interpreter does.
#pragma once

#include <string>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

namespace vtac::backend {

class SharedLibrary {
public:
  // A path without '/' names a file in the working directory, not one on the library path.
  static llvm::Expected<SharedLibrary> open(llvm::StringRef path);

  // The address of the exported symbol `name`, or null.
  void *symbol(llvm::StringRef name) const;
  // The path as the user gave it.
  const std::string &path() const { return path_; }

private:
  SharedLibrary(std::string path, void *handle) : path_(std::move(path)), handle_(handle) {}

  std::string path_;
  void *handle_;
};

}  // namespace vtac::backend
