// How `vtac run` counts steps (loop iterations) for --max-steps, --timeout and the progress
// line, the same way in both engines (the interpreter and the JIT's compiled code): a loop whose
// body runs no other loop, a leaf, adds its iterations in chunks of up to kLeafLoopStepChunk
// before running them; every other loop (and every while loop) adds one per iteration. Counting
// leaves in chunks keeps the count out of the innermost loop, which the JIT can then vectorise,
// while the clock is still read every few thousand iterations. The total is the same either
// way; a run over a limit stops at the same loop, only before the chunk's first iteration
// instead of in the middle of it.
#pragma once

#include <cstdint>
#include <optional>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>

#include "vtac/ir/Stmt.h"

namespace vtac::ir {

inline constexpr uint64_t kLeafLoopStepChunk = 1 << 12;

// Whether a loop with this body is a leaf: the body holds no for or while loop, no launched or
// virtual thread, no micro-kernel scope, and no call of one of `loopRunningCalls` (the ops that
// run loops outside the body: host lowering's micro-kernel pushes, parallel runs, compiled calls).
bool isLeafLoopBody(const Stmt &body, llvm::ArrayRef<llvm::StringRef> loopRunningCalls = {});

// The steps a run of `body` counts, where they do not depend on the data (the progress line's
// percentage): every loop's constant extent, times its enclosing loops' iterations. Nullopt
// when a loop's extent is not constant, or a loop sits in a while loop, under a condition, in a
// block's init (run on the first reduction step only) or in a thread or micro-kernel scope.
std::optional<uint64_t> staticLoopSteps(const Stmt &body);

}  // namespace vtac::ir
