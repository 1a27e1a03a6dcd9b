// lower-opaque-block (TVM's LowerOpaqueBlock): removes the (opaque) blocks, so the function
// can no longer be scheduled. A block becomes its body; each buffer it allocates becomes
// `T.allocate` + `T.decl_buffer` around it (in declaration order, outermost first); a
// predicate (T.where) becomes an `if`; block annotations are dropped except `pragma_*`, which
// become `T.attr(0, key, value)`, and a buffer's storage alignments (buffer_dim_align), which
// go to its Allocate. Loops: annotations whose key starts with `pragma_` become
// `T.attr(loop_var, key, value)` around the loop, sorted by key (other annotations stay on
// the loop); a thread binding becomes `T.attr(T.iter_var(v, T.Range(min, min + extent),
// "ThreadIndex", tag), key, extent)` with key `virtual_thread` for vthread, vthread.x/y/z
// and — vtac's VTA extension, not TVM's — `cthread` (TVM's TE lowering treated cthread as a
// non-sharing virtual thread; TensorIR's LowerOpaqueBlock would emit a GPU-style
// thread_extent, see tvm-vta-lowering.md 4.2), `thread_extent` for every other tag; a loop of
// extent 1 without annotations disappears, its variable replaced by the loop's start. Expects
// opaque blocks without match_buffer (run convert-blocks-to-opaque and lower-match-buffer
// first); TE-lowered functions are left alone. Produces blockless TIR (buffers still N-d).
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> lowerOpaqueBlock(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
