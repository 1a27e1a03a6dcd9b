// The header emitter (`vtac compile --emit=header`): the declarations of the functions the C
// or LLVM emitters define, each with a comment giving every parameter's dtype, shape
// (symbolic sizes by name) and memory (a VTABufferAlloc buffer or host memory), and the
// meaning of the status it returns. Needs <dlpack/dlpack.h>; C and C++ (extern "C").
#pragma once

#include <string>
#include <vector>

#include "vtac/codegen/HostLowering.h"

namespace vtac::codegen {

// `guard` is the include guard's macro name.
std::string emitHeader(const std::vector<HostFunction> &functions, const std::string &sourceName,
                       const std::string &guard);

}  // namespace vtac::codegen
