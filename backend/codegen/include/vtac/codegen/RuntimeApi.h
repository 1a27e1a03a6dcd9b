// What the emitters know of the VTA runtime's C API (vta/runtime.h): each function's signature
// and how it reports failure. A call of a function returning a status fails when the status is
// non-zero; a call of a `void` function fails when it raised the runtime's error count (both
// checked after every call, so compiled code stops at the first failing call, as the
// interpreter does, and VTARuntimeLastError is that call's message).
#pragma once

#include <llvm/ADT/StringRef.h>

#include "vtac/ir/Builtins.h"
#include "vtac/ir/Expr.h"

namespace vtac::codegen {

// The statuses of compiled functions: 0 success, else one of these (the message is then
// VTARuntimeLastError()).
inline constexpr int kStatusArgumentError = -1;  // an argument failed its entry checks
inline constexpr int kStatusRuntimeError = -2;   // a runtime call failed
inline constexpr int kStatusCheckFailed = -3;    // a run-time check failed (RuntimeChecks.h)

// 'v' void, 'p' pointer, 'i' 32-bit integer, 'z' size_t: the result, then each parameter
// ("vpi" is `void f(void *, uint32_t)`); null for a function that is not part of the runtime API.
const char *runtimeSignature(llvm::StringRef name);

// A runtime function whose int result is a status (0 = success).
bool returnsStatus(llvm::StringRef name);

// A storage scope compiled code allocates in host memory: every scope but VTA's on-chip
// buffers (local.inp_buffer, local.wgt_buffer, local.acc_buffer, local.uop), which only
// vta-lower can turn into DMA and micro-ops. ("shared", "local", "global"... are plain
// memory on the host, as the interpreter treats them.)
bool isHostScope(llvm::StringRef scope);

// The scope of a compiled graph's tensors that VTA code touches (RelaxHostLowering.h): their
// allocation is a VTABufferAlloc buffer, its variable the buffer handle.
inline constexpr const char *kVtaBufferScope = "vtac.vta_buffer";

// A runtime function that returns nothing and records its failures in the error count.
bool reportsThroughErrorCount(llvm::StringRef name);

}  // namespace vtac::codegen
