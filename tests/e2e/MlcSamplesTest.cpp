// Seed 004's (MLC course) CPU prim_funcs, verbatim from samples/, run on seeded random inputs
// and checked against plain C++ loops (exact where the order of operations is the same,
// otherwise within the comparison's float tolerance).
#include <catch2/catch.hpp>

#include "TestSupport.h"
#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/TensorCompare.h"

using namespace vtac::backend;
using vtac::ir::DataType;

namespace {

const DataType f32 = DataType::float32();

// Runs `function` on random arguments of the given shapes; returns them after the call.
std::vector<Tensor> runOnRandom(const vtac::ir::PrimFuncRef &function, const std::vector<std::vector<int64_t>> &shapes) {
  std::vector<Tensor> args;
  for (size_t i = 0; i < shapes.size(); ++i)
    args.push_back(test::randomTensor(f32, shapes[i], "arg" + std::to_string(i), 42));
  auto compiled = test::compile(function);
  if (llvm::Error error = compiled->run(args)) FAIL(renderError(std::move(error)));
  return args;
}

void requireMatch(const Tensor &expected, const Tensor &actual) {
  TensorComparison comparison = compareTensors(expected, actual);
  INFO(comparison.incompatibility);
  INFO(comparison.numMismatches << " mismatches");
  if (!comparison.firstMismatches.empty())
    INFO("first at " << formatIndex(comparison.firstMismatches[0].index) << ": expected "
                     << comparison.firstMismatches[0].expected << ", got " << comparison.firstMismatches[0].actual);
  REQUIRE(comparison.equal());
}

// C = A x B (transposeB: A x B^T), float32 accumulation from zero in k order.
Tensor matmulReference(const Tensor &a, const Tensor &b, bool transposeB) {
  int64_t n = a.shape()[0], k = a.shape()[1], m = transposeB ? b.shape()[0] : b.shape()[1];
  Tensor c(f32, {n, m});
  const float *pa = reinterpret_cast<const float *>(a.data());
  const float *pb = reinterpret_cast<const float *>(b.data());
  float *pc = reinterpret_cast<float *>(c.data());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      float sum = 0;
      for (int64_t l = 0; l < k; ++l) {
        float product = pa[i * k + l] * (transposeB ? pb[j * k + l] : pb[l * m + j]);
        sum = sum + product;
      }
      pc[i * m + j] = sum;
    }
  return c;
}

}  // namespace

TEST_CASE("relu0 with a symbolic size", "[samples][mlc]") {
  auto args = runOnRandom(test::loadSample("mlp_module.tvm", "relu0"), {{1, 37}, {1, 37}});
  Tensor expected(f32, {1, 37});
  for (int64_t i = 0; i < 37; ++i) expected.setDouble(i, std::max(args[0].doubleAt(i), 0.0));
  requireMatch(expected, args[1]);
}

TEST_CASE("linear0 with symbolic sizes m, n", "[samples][mlc]") {
  int64_t m = 20, n = 13;
  auto args = runOnRandom(test::loadSample("mlp_module.tvm", "linear0"), {{1, m}, {n, m}, {n}, {1, n}});
  Tensor product = matmulReference(args[0], args[1], /*transposeB=*/true);
  Tensor expected(f32, {1, n});
  for (int64_t j = 0; j < n; ++j) expected.setDouble(j, float(product.doubleAt(j)) + float(args[2].doubleAt(j)));
  requireMatch(expected, args[3]);
}

TEST_CASE("before_inline: two blocks through an intermediate buffer", "[samples][mlc]") {
  for (const char *file : {"before_inline.tvm", "before_inline_printed.tvm", "before_inline_scheduled.tvm"}) {
    INFO(file);
    auto args = runOnRandom(test::loadSample(file, "before_inline"), {{128, 128}, {128, 128}});
    Tensor expected(f32, {128, 128});
    for (int64_t i = 0; i < expected.numElements(); ++i)
      expected.setDouble(i, float(float(args[0].doubleAt(i)) * 2.0f) + 1.0f);
    requireMatch(expected, args[1]);
  }
}

TEST_CASE("before_fuse after fuse: // and % in the block bindings", "[samples][mlc]") {
  auto args = runOnRandom(test::loadSample("before_fuse_scheduled.tvm", "before_fuse"), {{128, 128}, {128, 128}});
  Tensor expected(f32, {128, 128});
  for (int64_t i = 0; i < expected.numElements(); ++i) expected.setDouble(i, float(args[0].doubleAt(i)) * 2.0f);
  requireMatch(expected, args[1]);
}

TEST_CASE("the window sum in all its schedules (thread bindings run sequentially)", "[samples][mlc]") {
  for (const char *file : {"window_sum.tvm", "window_sum_thread_bound.tvm", "window_sum_shared_cache.tvm",
                           "window_sum_cooperative_fetch.tvm"}) {
    INFO(file);
    auto args = runOnRandom(test::loadSample(file), {{1027}, {1024}});
    Tensor expected(f32, {1024});
    for (int64_t i = 0; i < 1024; ++i) {
      float a = float(args[0].doubleAt(i)), b = float(args[0].doubleAt(i + 1)), c = float(args[0].doubleAt(i + 2));
      expected.setDouble(i, (a + b) + c);
    }
    requireMatch(expected, args[1]);
  }
}

TEST_CASE("te_matmul and te_relu from the BlockBuilder", "[samples][mlc]") {
  auto matmul = runOnRandom(test::loadSample("blockbuilder_matmul_relu.tvm", "te_matmul"), {{128, 128}, {128, 128}, {128, 128}});
  requireMatch(matmulReference(matmul[0], matmul[1], /*transposeB=*/false), matmul[2]);
  auto relu = runOnRandom(test::loadSample("blockbuilder_matmul_relu.tvm", "te_relu"), {{128, 128}, {128, 128}});
  Tensor expected(f32, {128, 128});
  for (int64_t i = 0; i < expected.numElements(); ++i) expected.setDouble(i, std::max(relu[0].doubleAt(i), 0.0));
  requireMatch(expected, relu[1]);
}

// 2^30 multiply-adds in the interpreter (about 30 s of CPU): tagged [slow], run by its own
// ctest entry (label "slow") so that `ctest -LE slow` can skip it.
TEST_CASE("the tensorized 1024x1024 matmul blocks (MatmulBlockModule) at full size", "[samples][mlc][slow]") {
  auto args = runOnRandom(test::loadSample("matmul_block_module.tvm"), {{1024, 1024}, {1024, 1024}, {1024, 1024}});
  requireMatch(matmulReference(args[0], args[1], /*transposeB=*/true), args[2]);
}
