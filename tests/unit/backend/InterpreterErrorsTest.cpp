// Errors the interpreter reports: each names the source location of the offending expression
// (file:line:col, source line, caret) and stops the run.
#include <catch2/catch.hpp>

#include "TestSupport.h"

using namespace vtac::backend;
using vtac::ir::DataType;

namespace {

std::string errorOf(const std::string &text, std::vector<Tensor> args, const ExternRegistry &registry = {}) {
  return test::runError(test::parseFunction(text), args, registry);
}

}  // namespace

TEST_CASE("an out-of-bounds load names the buffer, the index and the location", "[interpreter][errors]") {
  std::string error = errorOf(R"(
@T.prim_func
def main(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
    for i in range(4):
        B[i] = A[i + 1]
)",
                              {Tensor(DataType::int32(), {4}), Tensor(DataType::int32(), {4})});
  CHECK_THAT(error, Catch::StartsWith("test.tvm:5:16: error: index 4 is out of bounds for buffer 'A' (its allocation holds 4 elements)"));
  CHECK_THAT(error, Catch::Contains("        B[i] = A[i + 1]\n               ^"));
}

TEST_CASE("out-of-bounds stores and multi-dimensional accesses are caught", "[interpreter][errors]") {
  std::string error = errorOf(R"(
@T.prim_func
def main(A: T.Buffer((2, 3), "float32")):
    for i, j in T.grid(2, 4):
        A[i, j] = T.float32(1)
)",
                              {Tensor(DataType::float32(), {2, 3})});
  CHECK_THAT(error, Catch::Contains("test.tvm:5:9: error: index 3 is out of bounds for dimension 1 of buffer 'A' (extent 3)"));
}

TEST_CASE("a flat view larger than its allocation cannot reach past it", "[interpreter][errors]") {
  std::string error = errorOf(R"(
@T.prim_func
def main(a: T.handle):
    A = T.match_buffer(a, (4,), "int32")
    A_wide = T.buffer_decl((8,), "int32", data=A.data)
    A_wide[5] = 1
)",
                              {Tensor(DataType::int32(), {4})});
  CHECK_THAT(error, Catch::Contains("index 5 is out of bounds for buffer 'A_wide' (its allocation holds 4 elements)"));
}

TEST_CASE("division and modulo by zero are errors", "[interpreter][errors]") {
  std::string error = errorOf(R"(
@T.prim_func
def main(A: T.Buffer((2,), "int32")):
    A[0] = A[1] // A[0]
)",
                              {Tensor(DataType::int32(), {2})});
  // The column is the frontend's choice for a binary expression (its start or its operator).
  CHECK_THAT(error, Catch::Matches("test.tvm:4:1[27]: error: division by zero \\(0 / 0\\)\n(.|\n)*"));
  error = errorOf(R"(
@T.prim_func
def main(A: T.Buffer((2,), "int32")):
    A[0] = T.truncmod(A[1], A[0])
)",
                  {Tensor(DataType::int32(), {2})});
  CHECK_THAT(error, Catch::Contains("modulo by zero"));
}

TEST_CASE("an unbound variable is an error where it is used", "[interpreter][errors]") {
  std::string error = errorOf(R"(
@T.prim_func
def main(A: T.Buffer((2,), "int32")):
    v = T.var("int32")
    A[0] = v + 1
)",
                              {Tensor(DataType::int32(), {2})});
  CHECK_THAT(error, Catch::Contains("test.tvm:5:5: error: variable 'v' is not bound"));
}

TEST_CASE("a call to an extern nobody registered is rejected before running", "[interpreter][errors]") {
  std::string error = errorOf(R"(
@T.prim_func
def main(A: T.Buffer((2,), "int32")):
    A[0] = T.call_extern("int32", "no_such_function", 1)
)",
                              {Tensor(DataType::int32(), {2})});
  CHECK_THAT(error, Catch::Contains("test.tvm:4:12: error: call to unregistered extern function 'no_such_function'"));
}

TEST_CASE("a failing extern reports its message at the call", "[interpreter][errors]") {
  ExternRegistry registry;
  registry.add("fails", {[](llvm::ArrayRef<Value>, DataType) -> llvm::Expected<Value> {
                           return llvm::createStringError(llvm::inconvertibleErrorCode(), "device on fire");
                         },
                         0});
  std::string error = errorOf(R"(
@T.prim_func
def main(A: T.Buffer((2,), "int32")):
    T.evaluate(T.call_extern("int32", "fails"))
)",
                              {Tensor(DataType::int32(), {2})}, registry);
  CHECK_THAT(error, Catch::Contains("error: call to 'fails' failed: device on fire"));
}

TEST_CASE("arguments that do not fit the parameters are rejected", "[interpreter][errors]") {
  auto function = test::parseFunction(R"(
@T.prim_func
def main(A: T.Buffer((2, 3), "int8")):
    A[0, 0] = T.int8(1)
)");
  auto compiled = test::compile(function);
  Tensor wrongShape(DataType::intTy(8), {3, 2});
  auto sizes = compiled->bindSizes({&wrongShape});
  REQUIRE(!sizes);
  CHECK(llvm::toString(sizes.takeError()) ==
        "error: parameter 'A' has shape (2, 3), the input has shape (3, 2)");
  Tensor wrongType(DataType::float32(), {2, 3});
  sizes = compiled->bindSizes({&wrongType});
  REQUIRE(!sizes);
  CHECK(llvm::toString(sizes.takeError()) == "error: parameter 'A' has element type int8, the input has float32");
}

TEST_CASE("buffers of element types without a storage format are rejected at compile time", "[interpreter][errors]") {
  auto function = test::parseFunction(R"(
@T.prim_func
def main(A: T.Buffer((4,), "int32")):
    B = T.alloc_buffer((4,), "int4")
    for i in range(4):
        B[i] = T.Cast("int4", A[i])
)");
  ExternRegistry registry;
  auto compiled = CompiledFunction::compile(function, "main", registry);
  REQUIRE(!compiled);
  CHECK_THAT(llvm::toString(compiled.takeError()), Catch::Contains("buffer 'B' has element type int4, which the interpreter does not support"));
}

TEST_CASE("a flat view may index past its declared extent inside its allocation, as lowered TVM code does",
          "[interpreter]") {
  std::vector<Tensor> args = {test::tensorOf(DataType::int32(), {4}, {1, 2, 3, 4}), Tensor(DataType::int32(), {2})};
  std::string error = test::runError(test::parseFunction(R"(
@T.prim_func
def main(A: T.Buffer((4,), "int32"), B: T.Buffer((2,), "int32")):
    A_low = T.buffer_decl((2,), "int32", data=A.data)
    B[0] = A_low[0] + A_low[2]
    B[1] = A_low[1] + A_low[3]
)"),
                                     args);
  CHECK(error == "");
  CHECK(args[1].intAt(0) == 4);
  CHECK(args[1].intAt(1) == 6);
}
