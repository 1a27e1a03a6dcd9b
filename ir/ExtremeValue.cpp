// TVM's max_value / min_value (see ExtremeValue.h).
#include "vtac/ir/ExtremeValue.h"

#include <limits>

namespace vtac::ir {

Expr extremeValue(DataType dtype, bool largest) {
  if (dtype.isFloat()) {
    double value = dtype.bits() == 16   ? 65504.0
                   : dtype.bits() == 32 ? double(std::numeric_limits<float>::max())
                                        : std::numeric_limits<double>::max();
    return floatImm(largest ? value : -value, dtype);
  }
  if (dtype.isUInt()) return intImm(largest ? (dtype.bits() >= 64 ? -1 : (int64_t(1) << dtype.bits()) - 1) : 0, dtype);
  int64_t max = dtype.bits() >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (dtype.bits() - 1)) - 1;
  return intImm(largest ? max : -max - 1, dtype);
}

}  // namespace vtac::ir
