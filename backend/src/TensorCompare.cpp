#include "vtac/backend/TensorCompare.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace vtac::backend {

namespace {

bool floatsMatch(double a, double b, FloatTolerance tolerance) {
  if (a == b) return true;
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::fabs(a - b) <= tolerance.atol + tolerance.rtol * std::max(std::fabs(a), std::fabs(b));
}

}  // namespace

TensorComparison compareTensors(const Tensor &expected, const Tensor &actual,
                                size_t maxReported, FloatTolerance tolerance) {
  TensorComparison result;
  if (expected.dtype() != actual.dtype()) {
    result.incompatibility = "element types differ: " + expected.dtype().str() + " vs " +
                             actual.dtype().str();
    return result;
  }
  if (expected.shape() != actual.shape()) {
    result.incompatibility = "shapes differ: " + formatShape(expected.shape()) + " vs " +
                             formatShape(actual.shape());
    return result;
  }
  result.numElements = expected.numElements();
  bool isFloat = expected.dtype().isFloat();
  int elementBytes = expected.dtype().bytes();
  for (int64_t i = 0; i < result.numElements; ++i) {
    bool same = isFloat ? floatsMatch(expected.doubleAt(i), actual.doubleAt(i), tolerance)
                        : std::memcmp(expected.data() + i * elementBytes,
                                      actual.data() + i * elementBytes, elementBytes) == 0;
    if (same) continue;
    ++result.numMismatches;
    if (result.firstMismatches.size() < maxReported)
      result.firstMismatches.push_back(
          {expected.unflatten(i), formatElement(expected, i), formatElement(actual, i)});
  }
  return result;
}

}  // namespace vtac::backend
