#include "vtac/backend/RunErrors.h"

#include "vtac/backend/Tensor.h"

namespace vtac::backend {

std::string dimensionOutOfBoundsMessage(int64_t index, int64_t dim, const std::string &buffer, int64_t extent) {
  return "index " + std::to_string(index) + " is out of bounds for dimension " + std::to_string(dim) + " of buffer '" +
         buffer + "' (extent " + std::to_string(extent) + ")";
}

std::string outsideAllocationMessage(int64_t flat, const std::string &buffer, bool flatIndex, int64_t elementBytes,
                                     int64_t allocationBytes) {
  if (flatIndex)
    return "index " + std::to_string(flat) + " is out of bounds for buffer '" + buffer + "' (its allocation holds " +
           std::to_string(allocationBytes / elementBytes) + " elements)";
  return "element " + std::to_string(flat) + " of buffer '" + buffer + "' lies outside its allocation of " +
         std::to_string(allocationBytes) + " bytes";
}

std::string accessPtrOutOfRangeMessage(int64_t first, int64_t count, const std::string &buffer, int64_t elements) {
  return "tvm_access_ptr to elements [" + std::to_string(first) + ", " + std::to_string(first) + " + " +
         std::to_string(count) + ") of '" + buffer + "' leaves its allocation of " + std::to_string(elements) +
         " elements";
}

std::string divisionByZeroMessage(bool modulo, int64_t dividend) {
  return std::string(modulo ? "modulo" : "division") + " by zero (" + std::to_string(dividend) + " " +
         (modulo ? "%" : "/") + " 0)";
}

std::string shiftOutOfRangeMessage(int64_t amount, const std::string &typeName) {
  return "shift amount " + std::to_string(amount) + " is out of range for " + typeName;
}

std::string floatToIntMessage(double value, const std::string &typeName) {
  return "cannot convert " + std::to_string(value) + " to " + typeName + ": out of range";
}

std::string tensorTooLargeMessage(const std::string &shape, int64_t bytes, bool overflow) {
  // The compiled check sees only the byte count, which a negative extent makes negative.
  if (bytes < 0 && !overflow)
    return "shape " + shape + " has a negative extent here (it would need " + std::to_string(bytes) + " bytes)";
  return "shape " + shape + " needs " + (overflow ? std::string("more than 2^63") : std::to_string(bytes)) +
         " bytes, more than the " + std::to_string(kMaxTensorBytes >> 30) + " GiB vtac allocates for one tensor";
}

std::string allocationTooLargeMessage(const std::string &buffer, const std::string &shape, int64_t bytes,
                                      bool overflow) {
  return "cannot allocate '" + buffer + "': " + tensorTooLargeMessage(shape, bytes, overflow);
}

}  // namespace vtac::backend
