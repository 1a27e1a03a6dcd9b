// storage-rewrite (TVM's tir.transform.StorageRewrite): plans the memory of the function's
// flat allocations and rewrites them. Accesses are linearised into statements (a loop, an `if`,
// a let or a thread/virtual-thread scope counts as one, entered and left); an allocation lives
// from the first statement touching it to the last. Every allocation moves to the top of its
// attach scope (the function body, or the enclosing thread_extent / virtual_thread attribute or
// parallel loop):
//   - in place: `dst[i] = f(src[i])` where src dies and dst is born (same scope, element type
//     and constant size, identical indices, no other use of dst) stores into src's memory;
//   - reuse: an allocation born after another of the same scope died takes its memory when the
//     sizes are within a factor of 16 (never for `local` and tiny untagged arrays);
//   - tagged scopes (`local.acc_buffer`, `local.inp_buffer`, `local.wgt_buffer`, any scope with a
//     tag other than .dyn/.workspace/.vtcm) merge every allocation of the scope into one, each
//     at an offset aligned to the scope's MemoryInfo::maxSimdBits (32 bits without one), and the
//     total must fit MemoryInfo::maxNumBits ("exceeds the ... memory" error at the allocation).
// Accesses to a moved buffer use a buffer over the surviving allocation named after it, the
// offset added to the last index (`16384 + i`, as TVM; simplify folds it). Expects flat
// (one-dimensional) lowered TIR.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> storageRewrite(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
