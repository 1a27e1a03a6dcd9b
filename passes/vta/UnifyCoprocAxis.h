// unify-coproc-axis (vtac-specific, no TVM counterpart): gives every coproc_scope and
// coproc_uop_scope of the function one coprocessor axis object, every GEMM micro-kernel value
// ("VTAPushGEMMOp") one shared string node, and every ALU stage ("VTAPushALUOp") its own.
// TVM's VTA passes rely on object identity here — one `env.dev.vta_axis`, one
// `env.dev.vta_push_uop` — but tensorize copies the intrinsic's body and a parser builds a new
// node per occurrence; coproc-sync needs one axis, and lift-coproc-uop-scope must merge the GEMM
// micro-ops of a nest into one kernel while never merging two ALU stages.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> unifyCoprocAxis(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
