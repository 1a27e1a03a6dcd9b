// The interpreter's arithmetic: wrapping integers, floor vs. truncating division, arithmetic
// shifts, IEEE float32, lazy if_then_else, blocks with init / T.where / alloc_buffer.
#include <catch2/catch.hpp>

#include "TestSupport.h"
#include "vtac/backend/Diagnostic.h"

using namespace vtac::backend;
using vtac::ir::DataType;

TEST_CASE("integer operations wrap and divide as TVMScript says", "[interpreter]") {
  auto function = test::parseFunction(R"(
@T.prim_func
def main(X: T.Buffer((4,), "int32"), out: T.Buffer((14,), "int32")):
    out[0] = X[0] // X[1]
    out[1] = X[0] % X[1]
    out[2] = T.truncdiv(X[0], X[1])
    out[3] = T.truncmod(X[0], X[1])
    out[4] = T.Cast("int32", T.Cast("int8", X[2]))
    out[5] = X[3] + X[1]
    out[6] = T.shift_right(X[0] * 4, X[1])
    out[7] = T.Cast("int32", T.Cast("uint8", X[0]))
    out[8] = T.if_then_else(X[1] < 0, X[X[3]], 5)
    out[9] = T.max(X[0], X[1]) * T.min(X[0], X[1])
    out[10] = X[3] * X[3]
    out[11] = T.Select(X[0] < X[1], 1, 0)
    out[12] = T.shift_left(X[1], 30) * 2
    out[13] = X[2] // -X[1] + X[2] % -X[1]
)");
  std::vector<Tensor> args = {test::tensorOf(DataType::int32(), {4}, {-7, 2, 200, 2147483647}),
                              Tensor(DataType::int32(), {14})};
  REQUIRE(test::runError(function, args) == "");
  std::vector<int64_t> expected = {-4, 1, -3, -1, -56, -2147483647, -7, 249, 5, -14, 1, 1, 0, -100};
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("out[" << i << "]");
    CHECK(args[1].intAt(int64_t(i)) == expected[i]);
  }
}

TEST_CASE("float32 arithmetic rounds every operation to float32", "[interpreter]") {
  auto function = test::parseFunction(R"(
@T.prim_func
def main(X: T.Buffer((3,), "float32"), out: T.Buffer((3,), "float32"), wide: T.Buffer((1,), "float64")):
    out[0] = X[0] + X[1]
    out[1] = X[0] * X[1] + X[2]
    out[2] = T.Cast("float32", T.Cast("int32", X[2] * T.float32(10)))
    wide[0] = T.Cast("float64", X[0]) + T.Cast("float64", X[1])
)");
  std::vector<Tensor> args = {test::tensorOf(DataType::float32(), {3}, {0.1, 0.2, -2.75}),
                              Tensor(DataType::float32(), {3}), Tensor(DataType::floatTy(64), {1})};
  REQUIRE(test::runError(function, args) == "");
  float a = 0.1f, b = 0.2f, c = -2.75f;
  CHECK(args[1].doubleAt(0) == double(a + b));
  float product = a * b;
  CHECK(args[1].doubleAt(1) == double(product + c));
  CHECK(args[1].doubleAt(2) == -27.0);
  CHECK(args[2].doubleAt(0) == double(a) + double(b));
}

TEST_CASE("blocks: init on the first reduction step, T.where, alloc_buffer", "[interpreter]") {
  auto function = test::parseFunction(R"(
@T.prim_func
def main(A: T.Buffer((4, 6), "int32"), B: T.Buffer((4,), "int32"), C: T.Buffer((5,), "int32")):
    T_sum = T.alloc_buffer((4,), "int32")
    for i, k in T.grid(4, 6):
        with T.block("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                T_sum[vi] = 100
            T_sum[vi] = T_sum[vi] + A[vi, vk]
    for i in range(4):
        with T.block("copy"):
            vi = T.axis.spatial(4, i)
            B[vi] = T_sum[vi]
    for i0, i1 in T.grid(2, 4):
        with T.block("guarded"):
            v = T.axis.spatial(5, i0 * 4 + i1)
            T.where(i0 * 4 + i1 < 5)
            C[v] = v * 10
)");
  Tensor a(DataType::int32(), {4, 6});
  for (int64_t i = 0; i < 24; ++i) a.setInt(i, i);
  std::vector<Tensor> args = {a, Tensor(DataType::int32(), {4}), test::tensorOf(DataType::int32(), {5}, {-1, -1, -1, -1, -1})};
  REQUIRE(test::runError(function, args) == "");
  for (int64_t i = 0; i < 4; ++i) {
    int64_t sum = 100;
    for (int64_t k = 0; k < 6; ++k) sum += i * 6 + k;
    CHECK(args[1].intAt(i) == sum);
  }
  for (int64_t v = 0; v < 5; ++v) CHECK(args[2].intAt(v) == v * 10);
}

TEST_CASE("lowered TIR: allocate, decl_buffer over a parameter, let, flat accesses", "[interpreter]") {
  auto function = test::parseFunction(R"(
@T.prim_func
def main(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (2, 8), "int8")
    B = T.match_buffer(b, (2, 8), "int8")
    tmp = T.allocate([16], "int32", "global")
    tmp_1 = T.buffer_decl((16,), "int32", data=tmp)
    A_flat = T.buffer_decl((16,), "int8", data=A.data)
    for i in range(16):
        doubled: T.int32 = T.Cast("int32", A_flat[i]) * 2
        tmp_1[i] = doubled
    B_flat = T.buffer_decl((16,), "int8", data=B.data)
    for i in range(16):
        B_flat[15 - i] = T.Cast("int8", tmp_1[i])
)");
  Tensor a = test::randomTensor(DataType::intTy(8), {2, 8}, "a");
  std::vector<Tensor> args = {a, Tensor(DataType::intTy(8), {2, 8})};
  REQUIRE(test::runError(function, args) == "");
  for (int64_t i = 0; i < 16; ++i) CHECK(args[1].intAt(15 - i) == int64_t(int8_t(uint8_t(a.intAt(i) * 2))));
}

TEST_CASE("user externs are called through the registry", "[interpreter]") {
  auto function = test::parseFunction(R"(
@T.prim_func
def main(X: T.Buffer((3,), "int32")):
    for i in range(3):
        X[i] = T.call_extern("int32", "scale_and_add", X[i], 10, i)
)");
  ExternRegistry registry;
  int calls = 0;
  registry.add("scale_and_add", {[&](llvm::ArrayRef<Value> args, DataType) -> llvm::Expected<Value> {
                                   ++calls;
                                   return Value::fromInt(args[0].i * args[1].i + args[2].i);
                                 },
                                 3});
  std::vector<Tensor> args = {test::tensorOf(DataType::int32(), {3}, {1, 2, 3})};
  REQUIRE(test::runError(function, args, registry) == "");
  CHECK(calls == 3);
  CHECK(args[0].intAt(0) == 10);
  CHECK(args[0].intAt(1) == 21);
  CHECK(args[0].intAt(2) == 32);
}

TEST_CASE("symbolic sizes are bound from the arguments", "[interpreter]") {
  auto function = test::parseFunction(R"(
@T.prim_func
def main(x: T.handle, y: T.handle):
    n = T.int64()
    X = T.match_buffer(x, (n, 2), "float32")
    Y = T.match_buffer(y, (n,), "float32")
    for i in range(n):
        with T.block("Y"):
            vi = T.axis.spatial(n, i)
            Y[vi] = X[vi, 0] - X[vi, 1]
)");
  auto compiled = test::compile(function);
  std::vector<Tensor> args = {test::randomTensor(DataType::float32(), {5, 2}, "x"), Tensor(DataType::float32(), {5})};
  REQUIRE(renderError(compiled->run(args)) == "");
  for (int64_t i = 0; i < 5; ++i) CHECK(args[1].doubleAt(i) == double(float(args[0].doubleAt(2 * i)) - float(args[0].doubleAt(2 * i + 1))));
  auto sizes = compiled->bindSizes({&args[0], nullptr});
  REQUIRE(bool(sizes));
  auto shape = compiled->shapeOf(1, *sizes);
  REQUIRE(bool(shape));
  CHECK(*shape == std::vector<int64_t>{5});
}
