// inject-alu-intrin (TVM's VTA InjectALUIntrin): each `pragma_alu` loop nest (inside its ALU
// micro-kernel) becomes one ALU micro-op in at most two micro-op loops:
// `VTAUopLoopBegin(extent, dst_factor, src_factor, 0)`... `tir.vta.uop_push(1, 0, dst, src, 0,
// opcode, use_imm, imm)` ... `VTAUopLoopEnd()`. The opcode comes from the stored value: `+` ADD,
// `*` MUL, min MIN, max MAX, shift_right SHR, shift_left SHR by the negated amount, a plain copy
// SHR by 0. One operand is an integer immediate or both operands load the destination buffer
// (in place: storage-rewrite's accumulator reuse), one of them at the destination's index. The
// innermost loop(s) must be the tile's lanes (BATCH x BLOCK_OUT); the outer loops are divided by
// the tile and merged where contiguous. Anything else — an unsupported operation, an operand
// from another buffer, a misaligned tile, more than two micro-op loops left, an immediate
// outside 16 bits — is a located error.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> injectAluIntrin(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
