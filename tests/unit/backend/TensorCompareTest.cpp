// Output comparison: exact integers, relative tolerance 1e-5 for floats, first mismatches in
// C order with their multi-indices.
#include <catch2/catch.hpp>

#include "TestSupport.h"
#include "vtac/backend/TensorCompare.h"

using namespace vtac::backend;
using vtac::ir::DataType;

TEST_CASE("integers must be equal; the first mismatches are reported with their indices", "[compare]") {
  Tensor expected = test::tensorOf(DataType::intTy(8), {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor actual = test::tensorOf(DataType::intTy(8), {2, 3}, {1, 2, 4, 4, 5, -6});
  TensorComparison comparison = compareTensors(expected, actual);
  CHECK_FALSE(comparison.equal());
  CHECK(comparison.numElements == 6);
  CHECK(comparison.numMismatches == 2);
  REQUIRE(comparison.firstMismatches.size() == 2);
  CHECK(comparison.firstMismatches[0].index == std::vector<int64_t>{0, 2});
  CHECK(comparison.firstMismatches[0].expected == "3");
  CHECK(comparison.firstMismatches[0].actual == "4");
  CHECK(comparison.firstMismatches[1].index == std::vector<int64_t>{1, 2});
  CHECK(compareTensors(expected, expected).equal());
  CHECK(compareTensors(expected, actual, 1).firstMismatches.size() == 1);
}

TEST_CASE("floats match within a relative tolerance of 1e-5", "[compare]") {
  Tensor expected = test::tensorOf(DataType::float32(), {4}, {1.0, 1000.0, 0.0, -2.0});
  Tensor close = test::tensorOf(DataType::float32(), {4}, {1.000009, 1000.009, 0.0, -2.00001});
  Tensor far = test::tensorOf(DataType::float32(), {4}, {1.00002, 1000.0, 1e-30, -2.0});
  CHECK(compareTensors(expected, close).equal());
  TensorComparison comparison = compareTensors(expected, far);
  CHECK(comparison.numMismatches == 2);  // 1.00002 and 0 vs 1e-30 (no absolute tolerance)
}

TEST_CASE("shape or dtype differences make tensors incomparable", "[compare]") {
  CHECK(compareTensors(Tensor(DataType::int32(), {2}), Tensor(DataType::int32(), {3})).incompatibility ==
        "shapes differ: (2,) vs (3,)");
  CHECK(compareTensors(Tensor(DataType::int32(), {2}), Tensor(DataType::float32(), {2})).incompatibility ==
        "element types differ: int32 vs float32");
}
