// declare-micro-kernels (vtac; the IR half of TVM's CodeGenCPU::CreateStaticInit): each
// micro-kernel states what the emitters outline.
//
// A `coproc_uop_scope` body is a micro-kernel: a static function recording micro-ops, which the
// runtime calls through the scope's push function (VTAPushGEMMOp or VTAPushALUOp) with a
// closure, the free scalar variables the body reads. This pass checks each scope and writes
// its closure out as the scope's node, in order of first use (as the interpreter packs them):
//
//   with T.attr(T.iter_var(vta, ...), "coproc_uop_scope", "VTAPushGEMMOp"):
//       ... x ... y ...
//   ->
//   with T.attr(T.tvm_tuple(x, y), "coproc_uop_scope", "VTAPushGEMMOp"):
//       ... x ... y ...
//
// so that code generation (codegen/HostLowering.h) outlines each body as it stands, with that
// closure, and decides nothing. Among host-lower's last steps: the closure is that of the body the
// emitters take (bind-entry-parameters after it only wraps that body) (a second run writes the same tuple again). A block is left alone (code
// generation reports it). Errors (located at the scope): a push function other than those
// two, a scope inside another micro-kernel, a closure variable that is not a scalar (a
// handle: the runtime's closure is a block of plain values).
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> declareMicroKernels(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
