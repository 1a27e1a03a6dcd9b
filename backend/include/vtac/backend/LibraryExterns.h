// C functions of user libraries (`vtac run --load-library`) as interpreter externs.
//
// Every `T.call_extern(dtype, "name", args...)` of the module's prim_funcs whose callee the
// registry does not know yet (the VTA runtime API stays built in) is looked up in the libraries,
// in the order given (the first that exports it wins, as a linker would pick), and registered as
// an extern that calls the C function through libffi. The C signature is the call's: its return
// dtype and its arguments' dtypes (integers and bools by value at their width, floats as
// float/double, handles such as `A.data`, `T.tvm_access_ptr(...)` and `T.address_of(A[i])` as
// pointers, string literals as `const char *`), as TVM's C code generator declares an extern.
//
// Errors, located at the call: a callee none of the libraries exports, an argument or return
// type C cannot take by value (float16, vectors), and two calls of one function that disagree on
// the number or types of their arguments (a C function has one signature). With no libraries
// nothing is registered, and the interpreter reports an unknown callee as before.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/Error.h>

#include "vtac/backend/ExternRegistry.h"
#include "vtac/backend/SharedLibrary.h"
#include "vtac/ir/Function.h"

namespace vtac::backend {

llvm::Error registerLibraryExterns(const ir::IRModule &module, llvm::ArrayRef<SharedLibrary> libraries,
                                   ExternRegistry &registry);

}  // namespace vtac::backend
