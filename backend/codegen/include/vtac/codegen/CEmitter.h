// The C emitter (`vtac compile --emit=c`): host-lowered functions -> one C99 translation unit.
//
// The output includes <dlpack/dlpack.h> and <vta/runtime.h> and compiles with
// `cc -std=c99 -c -Wall -Werror`. Each HostFunction becomes `int32_t SYMBOL(DLTensor *, ...)`,
// returning 0, or -1 when an argument fails its checks and -2 when the VTA runtime reported an
// error during the call; the message is then VTARuntimeLastError(). (The runtime's error
// functions are weak references, so the code also links against TVM's runtime, which has
// none: the status is returned all the same.) Each micro-kernel becomes a static function
// `int SYMBOL_uop_kernelN(void *)`, a closure struct of its captured variables and a static
// handle, pushed with `VTAPushGEMMOp/VTAPushALUOp(&handle, kernel, &closure, sizeof closure)`.
// `parallel` loops (outlined by the host lowering) become static task functions with a closure
// struct, run by `vtac_parallel_for` (<vtac/parallel.h>, included when needed); other loops run
// serially (vectorized and unroll are left to the C compiler). A buffer store of vector
// expressions is written lane by lane (VectorLanes.h), every lane's value before any store.
// Unsupported constructs (a vector anywhere but in a buffer store, float16, expression lets,
// scoped on-chip allocations) are located errors.
#pragma once

#include <string>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/codegen/HostLowering.h"

namespace vtac::codegen {

// `sourceName` is named in the file's first comment.
llvm::Expected<std::string> emitC(const std::vector<HostFunction> &functions, const std::string &sourceName);

}  // namespace vtac::codegen
