// simplify's convert-boolean-to-and-of-ors (TVM's SimplifyAsAndOfOrs, arith's conjunctive normal
// form): a boolean expression rewritten as an `and` of `or` groups (`or` distributed over `and`),
// then simplified where the analyzer's pairwise rules cannot reach: each two terms of a group are
// simplified as their `or`, and each two groups differing in one term are simplified as the `and`
// of those terms, assuming the shared terms false. Groups that become true are dropped; a group
// that becomes false makes the whole false.
#pragma once

#include "vtac/ir/Expr.h"
#include "vtac/ir/arith/Analyzer.h"

namespace vtac::passes {

ir::Expr simplifyAsAndOfOrs(ir::arith::Analyzer &analyzer, const ir::Expr &e);

}  // namespace vtac::passes
