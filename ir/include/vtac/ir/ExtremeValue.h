// TVM's max_value / min_value of a scalar type as an IR constant: the identities of the max and
// min reductions (schedule rfactor/cross-thread reduction, legalize-ops' R.max and R.min).
#pragma once

#include "vtac/ir/Expr.h"

namespace vtac::ir {

// The largest value of `dtype` (`largest`), else the smallest: the largest finite float
// negated, the integer type's range. uint64's largest wraps to -1 in the IR's signed 64-bit
// constants (its bit pattern).
Expr extremeValue(DataType dtype, bool largest);

}  // namespace vtac::ir
