// unroll-loop (TVM's tir.transform.UnrollLoop): replaces `T.unroll` loops by one copy of the
// body per iteration (the loop variable substituted by min + k), and auto-unrolls serial loops
// under a step budget. Innermost loops are decided first: a serial loop with a constant extent,
// no kept (non-unrolled) loop inside it and at most auto-max-depth unrolled loops inside is
// unrolled when extent x (stores and evaluates inside) <= auto-max-step or extent <=
// auto-max-extent. With explicit-unroll off, such loops become `T.unroll` loops instead of
// copies. Variables defined inside a copied body (loops, lets) are renamed apart in each copy.
//
// Configuration (TVM's tir.UnrollLoop config, same defaults), as PassContext options
// (`vtac opt --pass-option NAME=VALUE`):
//   unroll-loop.auto-max-step    0     (no auto-unrolling by step count)
//   unroll-loop.auto-max-depth   8
//   unroll-loop.auto-max-extent  0     (1 also unrolls every loop of extent <= 1)
//   unroll-loop.explicit-unroll  1
//   unroll-loop.unroll-local-access 0 (1: unroll loops indexing `local`/`warp` buffers)
// `pragma_auto_unroll_max_step` and `pragma_unroll_explicit` attributes set the first and the
// fourth for their body and are removed.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> unrollLoop(const ir::PrimFuncRef &func, PassContext &context);
// The options above, by name.
std::vector<std::string> unrollLoopOptions();

}  // namespace vtac::passes
