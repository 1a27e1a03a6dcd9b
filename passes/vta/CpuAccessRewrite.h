// cpu-access-rewrite (TVM's VTA CPUAccessRewrite): VTA's DRAM buffers are runtime handles, not
// CPU addresses, so every load and store left on the CPU goes through `<name>_ptr =
// VTABufferCPUPtr(cmd, <name>)`, bound just inside the buffer's allocation, or at the top of the
// function for parameters. A function without CPU accesses is returned unchanged.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> cpuAccessRewrite(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
