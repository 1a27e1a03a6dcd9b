// coproc-sync (TVM's CoProcSync, as VTA's InjectCoProcSync runs it): dependence tokens between
// VTA's load (1), compute (2) and store (3) queues. Each coproc_scope is a state of its queue;
// between two consecutive states of different queues a `tir.vta.coproc_dep_push(from, to)` goes
// at the end of the first and a `coproc_dep_pop(from, to)` at the start of the second (inside
// their scopes). A loop links its last state to its first (loop-carried tokens), and the
// pushes/pops left unmatched are balanced before the first / after the last state of the
// function and of each `if` branch. One `tir.vta.coproc_sync()` ends the function. A function
// that already has tokens or a coproc_sync is left as it is (running it twice would double every
// token, where TVM's pass would). Expects one
// coprocessor axis (unify-coproc-axis) and scopes with constant queue ids; errors for a `while`
// loop and for buffers touched both by the CPU and inside coproc scopes (TVM's CPU-side
// synchronisation planning is not implemented).
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> coprocSync(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
