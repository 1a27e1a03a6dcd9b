// Seed 001's conv2d three ways on the same data: the fully lowered VTA program on the
// simulator, the default-schedule CPU program in the interpreter, and a plain C++ convolution.
// Inputs are drawn from [-32, 31] so that most outputs land inside the clip range [0, 127]
// (full-range int8 data saturates almost every output; conv2d_vta.test covers that case).
#include <catch2/catch.hpp>

#include "TestSupport.h"
#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/RandomFill.h"
#include "vtac/backend/TensorCompare.h"
#include "vtac/backend/VtaExterns.h"

using namespace vtac::backend;
using vtac::ir::DataType;

namespace {

const DataType i8 = DataType::intTy(8);

Tensor smallValues(std::vector<int64_t> shape, uint64_t seed) {
  Tensor tensor(i8, std::move(shape));
  SplitMix64 generator(seed);
  for (int64_t i = 0; i < tensor.numElements(); ++i) tensor.setInt(i, int64_t(generator.next() % 64) - 32);
  return tensor;
}

// res[co, i, j, ci] = clip(sum over ic, dy, dx, k of data[ic, i+dy-1, j+dx-1, k] *
//                      kernel[co, ic, dy, dx, ci, k] >> 8, 0, 127), zero padding of 1.
Tensor referenceConv2d(const Tensor &data, const Tensor &kernel) {
  auto *d = reinterpret_cast<const int8_t *>(data.data());
  auto *w = reinterpret_cast<const int8_t *>(kernel.data());
  Tensor result(i8, {1, 16, 14, 14, 1, 16});
  for (int co = 0; co < 16; ++co)
    for (int i = 0; i < 14; ++i)
      for (int j = 0; j < 14; ++j)
        for (int ci = 0; ci < 16; ++ci) {
          int32_t sum = 0;
          for (int ic = 0; ic < 16; ++ic)
            for (int dy = 0; dy < 3; ++dy)
              for (int dx = 0; dx < 3; ++dx) {
                int y = i + dy - 1, x = j + dx - 1;
                if (y < 0 || y >= 14 || x < 0 || x >= 14) continue;
                for (int k = 0; k < 16; ++k)
                  sum += int32_t(d[((ic * 14 + y) * 14 + x) * 16 + k]) *
                         int32_t(w[((((co * 16 + ic) * 3 + dy) * 3 + dx) * 16 + ci) * 16 + k]);
              }
          result.setInt(((co * 14 + i) * 14 + j) * 16 + ci, std::min(std::max(sum >> 8, 0), 127));
        }
  return result;
}

std::vector<Tensor> runProgram(const char *sample, const ExternRegistry &registry, const Tensor &data,
                               const Tensor &kernel) {
  std::vector<Tensor> args = {data, kernel, Tensor(i8, {1, 16, 14, 14, 1, 16})};
  auto compiled = test::compile(test::loadSample(sample), registry);
  if (llvm::Error error = compiled->run(args)) FAIL(renderError(std::move(error)));
  return args;
}

}  // namespace

TEST_CASE("conv2d: the VTA program, the CPU program and C++ agree", "[e2e][conv2d]") {
  ExternRegistry registry;
  registerVtaExterns(registry);
  Tensor data = smallValues({1, 16, 14, 14, 1, 16}, 1);
  Tensor kernel = smallValues({16, 16, 3, 3, 16, 16}, 2);
  Tensor expected = referenceConv2d(data, kernel);
  int64_t inRange = 0;
  for (int64_t i = 0; i < expected.numElements(); ++i) inRange += expected.intAt(i) > 0 && expected.intAt(i) < 127;
  CHECK(inRange > expected.numElements() / 4);  // the data exercises the arithmetic, not the clip

  for (const char *sample : {"conv2d_vta_lowered.tvm", "conv2d_default_schedule.tvm"}) {
    INFO(sample);
    std::vector<Tensor> result = runProgram(sample, registry, data, kernel);
    TensorComparison comparison = compareTensors(expected, result[2]);
    INFO(comparison.numMismatches << " mismatches");
    CHECK(comparison.equal());
  }
}
