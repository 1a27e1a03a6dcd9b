// vectorize-outer-loops (vtac; host code): a loop around a reduction computes a vector of its
// iterations at once, as gcc's outer-loop vectoriser does. LLVM vectorises innermost loops only,
// so in
//
//   for j in range(1024):                        for j_0 in range(32):
//       C[i * 1024 + j] = 0.0                        C[T.Ramp(i * 1024 + j_0 * 32, 1, 32)] = T.Broadcast(0.0, 32)
//       for k in range(1024):              ->        for k in range(1024):
//           C[i * 1024 + j] = C[i * 1024 + j]            C[T.Ramp(...)] = C[T.Ramp(...)]
//               + A[i * 1024 + k] * B[k * 1024 + j]          + T.Broadcast(A[i * 1024 + k], 32) * B[T.Ramp(k * 1024 + j_0 * 32, 1, 32)]
//
// the k loop's scalar sum is bound by the latency of one add per step; as vectors of j, the 32
// sums are independent and each keeps its own order over k, so the result is bit for bit the
// same (no reassociation).
//
// A serial loop over j is rewritten when the function promises `tir.noalias`, its body holds a
// loop, and the iterations of j are independent and contiguous:
//  - the body is made of sequences, buffer declarations, serial loops, lets, ifs and stores,
//    and j appears only in the stores' indices and values (not in a loop bound, a let, a
//    condition or a declaration); no call with side effects;
//  - every access (load or store) to a buffer the body stores to is at `j + base`, one base for
//    the buffer, mentioning no variable defined inside the body: iteration j touches its own
//    element (distinct data variables are distinct memory under `tir.noalias`);
//  - every other load is at `j + base` or does not depend on j; the values use j only through
//    such loads, arithmetic and casts.
// Each store becomes a store of `lanes` consecutive elements in place (the statements around it
// are unchanged), so the statements of one iteration keep their order. `lanes` is the most
// elements of the stored type in 128, 64, 32 or 16 bytes that divides j's constant extent.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> vectorizeOuterLoops(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
