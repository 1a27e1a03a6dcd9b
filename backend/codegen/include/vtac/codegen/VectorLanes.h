// One lane of a vector expression, as a scalar expression: how the C emitter writes the
// vectors `vectorize` leaves (T.Ramp, T.Broadcast, loads at vector indices, and arithmetic,
// comparisons, casts, selects and intrinsic calls over them) without compiler extensions.
//
// Lane k of Ramp(base, stride, n) is base + k * stride; of Broadcast(v, n), v; of a load at
// vector indices, the load at lane k of each index; of an operation, the operation on lane k
// of its operands. A scalar expression is its own every lane. Errors (located): a let
// expression or any other node holding a vector.
#pragma once

#include <llvm/Support/Error.h>

#include "vtac/ir/Expr.h"

namespace vtac::codegen {

llvm::Expected<ir::Expr> vectorLane(const ir::Expr &expr, int lane);

}  // namespace vtac::codegen
