// annotate-alu-coproc-scope (TVM's AnnotateALUCoProcScope): every `pragma_alu` statement is put
// in the compute queue and in an ALU micro-kernel: `coproc_scope(vta, 2) { coproc_uop_scope(vta,
// "VTAPushALUOp") { pragma_alu ... } }`, the pragma and its loop nest kept for inject-alu-intrin.
// Each stage gets its own "VTAPushALUOp" string node, so lift-attr-scope never merges two ALU
// stages into one micro-kernel (the runtime allows one opcode per kernel). `pragma_skip_alu`
// (TVM's mock mode) becomes a no-op. Expects the coprocessor axis of the function's other coproc
// scopes, if any (a new `vta` axis otherwise).
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> annotateAluCoprocScope(const ir::PrimFuncRef &func,
                                                       PassContext &context);

}  // namespace vtac::passes
