// simplify (TVM's tir.transform.Simplify): every expression is simplified by the arithmetic
// analyzer (ir/arith) with the ranges of the enclosing loops, block iteration variables and
// thread_extent/virtual_thread attributes in scope, and the conditions of enclosing `if`s as
// facts. Index arithmetic comes out in TVM's canonical form (`i * 256 + j * 16 + k`), which the
// VTA passes' pattern matchers and comparisons with TVM's printed programs rely on.
// Statements: an `if` whose condition is decided becomes its branch (or `T.evaluate(0)` when
// there is none); `let`s of constants, variables and pure integer expressions are inlined and
// dropped (kept when a buffer definition uses the variable); a store of a buffer's own value at
// the same index (`A[i] = A[i]`) becomes `T.evaluate(0)`. A loop of extent 1 binds its variable
// to the loop's start, as TVM's analyzer does. Works on TensorIR and lowered TIR alike.
//
// Configuration (TVM's tir.Simplify config, same defaults), as PassContext options
// (`vtac opt --pass-option NAME=VALUE`, VALUE 0 or 1):
//   simplify.apply-constraints-to-boolean-branches  0  (1: each side of an and/or simplified
//       assuming the other side holds / fails: `n < 5 and n < 10` -> `n < 5`)
//   simplify.convert-boolean-to-and-of-ors  0  (1: an expression whose root is an and/or is
//       rewritten as an and of ors, simplified across its terms and groups: tir/AndOfOrs.h)
//   simplify.transitively-prove-inequalities  0  (1: an integer comparison decided by one in
//       force, an enclosing if's or the other side's of an and/or, that differs from it by a
//       constant: `n < m + 5` gives `n < m + 10`; like TVM it takes those sums not to wrap)
//   simplify.propagate-knowns-to-prove-conditional  0  (1: an if decided also by what is known
//       of the buffer elements its condition reads, from earlier stores, T.assume and enclosing
//       conditions: tir/KnownBufferValues.h)
//   simplify.propagate-knowns-to-simplify-expressions  0  (1: a load whose value is known as an
//       expression replaced by it everywhere: `A[0] = 5; A[0] = A[0] + 7` -> `A[0] = 12`)
// The two propagate-knowns options do nothing in a function with threads or parallel loops,
// whose statements need not run in the order the analysis follows, or with blocks (TensorIR).
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

// The PassContext options simplify reads.
std::vector<std::string> simplifyOptions();

llvm::Expected<ir::PrimFuncRef> simplify(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
