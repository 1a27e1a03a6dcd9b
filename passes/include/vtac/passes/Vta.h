// What a driver needs to compile for VTA: a pass context set up for one configuration, and the
// built-in tensor intrinsics of its GEMM core.
#pragma once

#include <string>

#include "vta/config.h"
#include "vtac/passes/Pass.h"

namespace vtac::passes {

// The VTA target of `context`: the configuration the VTA passes lower for and its three SRAMs as
// TVM's environment.py registers them (tvm.info.mem.local.*_buffer: one tile's bits is the
// alignment, the SRAM size the bound of storage-rewrite's merge).
void setVtaTarget(PassContext &context, const ::vta::Config &config);

// The built-in tensor intrinsics of the VTA GEMM core, as TVMScript text for one configuration:
// `vta_gemm` (acc[i, j] += inp[i, k] * wgt[j, k] over one BATCH x BLOCK_IN input tile and one
// BLOCK_OUT x BLOCK_IN weight tile, TVM's vta.intrin.gemm) and `vta_gemm_reset` (the accumulator
// tile set to 0, the TE intrinsic's reset). Each is a desc/impl pair of prim_funcs plus its
// tir.TensorIntrin.register line, the format users declare their own intrinsics in; the impl
// pushes one GEMM micro-op (tir.vta.uop_push) in a compute-queue coproc_scope and a VTAPushGEMMOp
// micro-kernel scope, and each buffer's offset_factor is one whole tile, so that tensorize proves
// tile alignment.
std::string gemmTensorIntrinsics(const ::vta::Config &config);

// True when `body` drives VTA (a VTA runtime call, a `tir.vta.*` intrinsic or a `coproc_*`
// attribute): the function's buffer parameters are then VTABufferAlloc buffers.
bool usesVta(const ir::Stmt &body);

// The intrinsic that lower-vta-intrinsics turns into a call of `runtimeFunction` (coproc_sync
// for "VTASynchronize"), or null: a failing call is named as the program wrote it.
const char *vtaIntrinsicLoweredTo(llvm::StringRef runtimeFunction);

// The variable `body` binds `T.call_extern("handle", "VTATLSCommandHandle")` to in its first
// statement, as combine-context-call leaves a VTA function: its command handle. Null otherwise.
ir::VarRef boundCommandHandle(const ir::Stmt &body);

// The micro-kernels of `body` rewritten to capture what TVM's runtime takes: no closure or one
// int below 99 (uop-kernel-closures, passes/vta/UopKernelClosures.cpp). The interpreter and the
// code generators run it on every function they execute.
ir::Stmt closeUopKernels(const ir::Stmt &body);
llvm::Expected<ir::PrimFuncRef> uopKernelClosures(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
