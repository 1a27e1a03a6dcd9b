// fold-uop-loop (TVM's VTA FoldUopLoop): in each GEMM micro-kernel (`coproc_uop_scope` of
// "VTAPushGEMMOp"), up to two outermost loops become micro-op loops, `VTAUopLoopBegin(extent,
// dst_factor, src_factor, wgt_factor)` ... `VTAUopLoopEnd()`, when every micro-op's dst, src and
// wgt indices are linear in the loop variable with the same factors in all micro-ops; the loops
// left inside are unrolled into micro-ops by the runtime. Where TVM silently gives up (and the
// micro-op counts drift), this pass says so with a remark. An inner loop whose micro-ops write
// the same accumulator tile one after the other (the runtime rejects that) is an error, and so
// are any call other than micro-op pushes in a GEMM micro-kernel, a GEMM micro-kernel that mixes
// reset and accumulating micro-ops, and a micro-kernel (GEMM or ALU) that reads more than one
// variable once folded (its closure: TVM's runtime caches kernels by at most one int32).
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> foldUopLoop(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
