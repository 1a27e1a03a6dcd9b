// lower-vta-intrinsics (TVM's host LowerIntrin rules for VTA, registered in environment.py):
// the VTA intrinsics become calls of the runtime's C API, as the host code calls them:
// `tir.vta.coproc_sync()` -> `VTASynchronize(cmd, T.uint32(1 << 31))`, `coproc_dep_push(a, b)`
// -> `VTADepPush(cmd, a, b)`, `coproc_dep_pop(a, b)` -> `VTADepPop(cmd, a, b)` and
// `tir.vta.uop_push(...)` -> `VTAUopPush(...)`, where `cmd` is
// `T.tvm_thread_context(T.tir.vta.command_handle())` until combine-context-call binds it. A step
// of host-lower, not of vta-lower, whose output is what `vta.lower` prints (the intrinsics
// kept). Any input: a block is left for code generation to report.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> lowerVtaIntrinsics(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
