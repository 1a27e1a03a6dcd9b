#include <optional>
#include <catch2/catch.hpp>

#include "RelaxTestSupport.h"
#include <vta/sim.h>

#include <llvm/Support/JSON.h>

#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/RandomFill.h"
#include "vtac/backend/VtaExterns.h"
#include "vtac/func_registry.h"
#include "vtac/graph/FunctionLibrary.h"
#include "vtac/graph/GraphExecutor.h"

using namespace vtac;

namespace {

struct Run {
  graph::NamedTensors results;
  graph::GraphStats stats;
  std::string error;
};

Run runGraph(const ir::IRModule &module, const graph::NamedTensors &inputs, bool withVta = false) {
  backend::ExternRegistry externs;
  if (withVta) backend::registerVtaExterns(externs);
  Run run;
  llvm::Expected<graph::GraphExecutor> executor = graph::GraphExecutor::create(module, "main", externs);
  if (!executor) {
    run.error = backend::renderError(executor.takeError());
    return run;
  }
  llvm::Expected<graph::NamedTensors> results = executor->run(inputs);
  if (!results) {
    run.error = backend::renderError(results.takeError());
    return run;
  }
  run.results = std::move(*results);
  run.stats = executor->stats();
  return run;
}

}  // namespace

TEST_CASE("graph: the three seed-004 MLP modules agree with the reference MLP", "[relax][graph]") {
  graph::NamedTensors inputs = relax_test::mlpInputs(2024);
  backend::Tensor expected = relax_test::referenceMlp(inputs);
  for (const char *sample : {"mlp_module.tvm", "mlp_extern_call.tvm", "mlp_mixture.tvm"}) {
    relax_test::ParsedFile parsed = relax_test::parseSample(sample);
    REQUIRE(parsed.diagnostics.empty());
    Run run = runGraph(parsed.module, inputs);
    INFO(sample << ": " << run.error);
    REQUIRE(run.error.empty());
    REQUIRE(run.results.size() == 1);
    CHECK(run.results[0].first == "out");
    CHECK(run.results[0].second.shape() == expected.shape());
    CHECK(relax_test::maxAbsDifference(run.results[0].second, expected) < 1e-4);
    CHECK(run.stats.primFuncCalls + run.stats.registeredCalls == 3);
    // lv0 is freed once relu has read it, so never are all three outputs alive at once.
    CHECK(run.stats.totalTensorBytes == (128 + 128 + 10) * 4);
    CHECK(run.stats.peakTensorBytes == (128 + 128) * 4);
  }
}

TEST_CASE("graph: the BlockBuilder module runs te_matmul and te_relu via call_tir", "[relax][graph]") {
  relax_test::ParsedFile parsed = relax_test::parseSample("blockbuilder_matmul_relu.tvm");
  REQUIRE(parsed.diagnostics.empty());
  backend::Tensor a = relax_test::randomTensor({128, 128}, 5), b = relax_test::randomTensor({128, 128}, 6);
  Run run = runGraph(parsed.module, {{"A", a}, {"B", b}});
  REQUIRE(run.error.empty());
  REQUIRE(run.results.size() == 1);
  CHECK(run.results[0].first == "gv");
  const backend::Tensor &gv = run.results[0].second;
  double worst = 0;
  for (int i = 0; i < 128; ++i)
    for (int j = 0; j < 128; ++j) {
      double sum = 0;
      for (int k = 0; k < 128; ++k) sum += a.doubleAt(i * 128 + k) * b.doubleAt(k * 128 + j);
      worst = std::max(worst, std::abs(std::max(sum, 0.0) - gv.doubleAt(i * 128 + j)));
    }
  CHECK(worst < 1e-4);
  CHECK(run.stats.primFuncCalls == 2);
}

TEST_CASE("graph: bound parameters leave main taking only x", "[relax][graph]") {
  relax_test::ParsedFile parsed = relax_test::parseSample("mlp_mixture.tvm");
  REQUIRE(parsed.diagnostics.empty());
  graph::NamedTensors inputs = relax_test::mlpInputs(99);
  std::vector<std::pair<std::string, std::shared_ptr<const ir::relax::TensorData>>> params;
  for (const auto &[name, tensor] : inputs) {
    if (name == "x") continue;
    auto data = std::make_shared<ir::relax::TensorData>();
    data->dtype = tensor.dtype();
    data->shape = tensor.shape().vec();
    data->bytes.assign(tensor.data(), tensor.data() + tensor.byteSize());
    params.emplace_back(name, data);
  }
  ir::relax::RelaxDiagnostic diagnostic;
  ir::RelaxFunctionRef bound =
      ir::relax::bindParams(*ir::asRelaxFunction(parsed.module.lookup("main")), params, diagnostic);
  REQUIRE(bound);
  parsed.module.add("main", bound);
  Run run = runGraph(parsed.module, {inputs[0]});
  REQUIRE(run.error.empty());
  CHECK(relax_test::maxAbsDifference(run.results[0].second, relax_test::referenceMlp(inputs)) < 1e-4);
}

TEST_CASE("graph: an input that contradicts its declared shape", "[relax][graph]") {
  relax_test::ParsedFile parsed = relax_test::parseSample("mlp_extern_call.tvm");
  REQUIRE(parsed.diagnostics.empty());
  graph::NamedTensors inputs = relax_test::mlpInputs(1);
  inputs[1].second = relax_test::randomTensor({128, 783}, 1);  // w0: m = 783, x says 784
  Run run = runGraph(parsed.module, inputs);
  CHECK(run.error ==
        "samples/mlp_extern_call.tvm:5:18: error: input 'w0' of shape (128, 783) does not match "
        "R.Tensor((n, m), dtype=\"float32\"): dimension 1 is 783 but 'm' is 784\n"
        "             w0: R.Tensor((\"n\", \"m\"), \"float32\"),\n"
        "                 ^\n");
}

TEST_CASE("graph: missing and unknown inputs", "[relax][graph]") {
  relax_test::ParsedFile parsed = relax_test::parseSample("mlp_extern_call.tvm");
  graph::NamedTensors inputs = relax_test::mlpInputs(1);
  inputs.pop_back();
  CHECK(runGraph(parsed.module, inputs).error.find("error: no input for parameter 'b1'") != std::string::npos);
  inputs = relax_test::mlpInputs(1);
  inputs.emplace_back("bias", relax_test::randomTensor({3}, 1));
  CHECK(runGraph(parsed.module, inputs).error.find("error: the function has no parameter 'bias'") != std::string::npos);
}

TEST_CASE("graph: an unknown packed function is an error at the call", "[relax][graph]") {
  relax_test::ParsedFile parsed = relax_test::parseText(
      "unknown.tvm",
      "@R.function\n"
      "def main(x: R.Tensor((4,), \"float32\")):\n"
      "    with R.dataflow():\n"
      "        y = R.call_dps_packed(\"env.gelu\", (x,), R.Tensor((4,), \"float32\"))\n"
      "        R.output(y)\n"
      "    return y\n");
  REQUIRE(parsed.diagnostics.empty());
  Run run = runGraph(parsed.module, {{"x", relax_test::randomTensor({4}, 1)}});
  CHECK(run.error.rfind("unknown.tvm:4:31: error: unknown packed function 'env.gelu'", 0) == 0);
}

TEST_CASE("graph: a high-level operator not legalized is an error at its name", "[relax][graph]") {
  // vtac run and compile legalize first; the executor itself never guesses what R.add means
  // (a prim_func of the module called "add" is not it).
  relax_test::ParsedFile parsed = relax_test::parseText(
      "operator.tvm",
      "@R.function\n"
      "def main(x: R.Tensor((4,), \"float32\")):\n"
      "    y = R.add(x, x)\n"
      "    return y\n");
  REQUIRE(parsed.diagnostics.empty());
  Run run = runGraph(parsed.module, {{"x", relax_test::randomTensor({4}, 1)}});
  CHECK(run.error.rfind("operator.tvm:3:9: error: the graph executor runs R.call_tir and R.call_dps_packed only: "
                        "legalize R.add first (--passes=legalize-ops)", 0) == 0);
}

TEST_CASE("graph: a failing registered function reports its message", "[relax][graph]") {
  relax_test::ParsedFile parsed = relax_test::parseText(
      "wrongshape.tvm",
      "@R.function\n"
      "def main(x: R.Tensor((4,), \"float32\")):\n"
      "    with R.dataflow():\n"
      "        y = R.call_dps_packed(\"env.relu\", (x,), R.Tensor((5,), \"float32\"))\n"
      "        R.output(y)\n"
      "    return y\n");
  REQUIRE(parsed.diagnostics.empty());
  Run run = runGraph(parsed.module, {{"x", relax_test::randomTensor({4}, 1)}});
  CHECK(run.error.rfind("wrongshape.tvm:4:31: error: 'env.relu' failed: env.relu needs x and out of the same shape", 0) == 0);
}

TEST_CASE("graph: user functions registered through the C API are called", "[relax][graph]") {
  auto doubler = [](const vtac_tensor *args, int32_t numArgs, void *) -> int {
    const float *in = static_cast<const float *>(args[0].data);
    float *out = static_cast<float *>(args[1].data);
    for (int64_t i = 0; i < vtac_tensor_num_elements(&args[0]); ++i) out[i] = 2 * in[i];
    return numArgs == 2 ? 0 : -1;
  };
  REQUIRE(vtac_register_func("user.double", doubler, nullptr, 1) == 0);
  relax_test::ParsedFile parsed = relax_test::parseText(
      "user.tvm",
      "@R.function\n"
      "def main(x: R.Tensor((\"n\",), \"float32\")):\n"
      "    n = T.int64()\n"
      "    with R.dataflow():\n"
      "        y = R.call_dps_packed(\"user.double\", (x,), R.Tensor((n,), \"float32\"))\n"
      "        z = R.call_dps_packed(\"user.double\", (y,), R.Tensor((n,), \"float32\"))\n"
      "        R.output(z)\n"
      "    return z\n");
  REQUIRE(parsed.diagnostics.empty());
  backend::Tensor x = relax_test::randomTensor({6}, 8);
  Run run = runGraph(parsed.module, {{"x", x}});
  REQUIRE(run.error.empty());
  for (int i = 0; i < 6; ++i) CHECK(run.results[0].second.doubleAt(i) == 4 * x.doubleAt(i));
  vtac_remove_func("user.double");
}

TEST_CASE("graph: a VTA prim_func between CPU prim_funcs runs on the simulator", "[relax][graph][vta]") {
  relax_test::ParsedFile parsed = relax_test::parseText(
      "vta_mixed_graph.tvm", relax_test::readFile("tests/lit/relax/Inputs/vta_mixed_graph.tvm"));
  REQUIRE(parsed.diagnostics.empty());
  backend::Tensor a(ir::DataType::int32(), {16, 64, 1, 16}), b(ir::DataType::int32(), {16, 64, 1, 16});
  backend::fillRandom(a, 3, "A");
  backend::fillRandom(b, 3, "B");
  for (int64_t i = 0; i < a.numElements(); ++i) {  // keep 2 * A + B clear of int32 overflow
    a.setInt(i, a.intAt(i) % 1000);
    b.setInt(i, b.intAt(i) % 1000);
  }
  VTASimClearStats();
  Run run = runGraph(parsed.module, {{"A", a}, {"B", b}}, true);
  INFO(run.error);
  REQUIRE(run.error.empty());
  const backend::Tensor &d = run.results[0].second;
  int64_t mismatches = 0;
  for (int64_t i = 0; i < d.numElements(); ++i)
    mismatches += d.intAt(i) != int64_t(int8_t(uint8_t((2 * a.intAt(i) + b.intAt(i)) & 0xff)));
  CHECK(mismatches == 0);
  CHECK(run.stats.primFuncCalls == 3);
  llvm::Expected<llvm::json::Value> stats = llvm::json::parse(VTASimStatsJSON());
  REQUIRE(bool(stats));
  const llvm::json::Object *counters = stats->getAsObject();
  REQUIRE(counters);
  // The vector add's traffic (samples/README.md): 2 x 64 KiB ACC loads, 1024 ALU ops, 16 KiB stored.
  CHECK(counters->getInteger("acc_load_nbytes") == std::optional<int64_t>(131072));
  CHECK(counters->getInteger("alu_counter") == std::optional<int64_t>(1024));
  CHECK(counters->getInteger("out_store_nbytes") == std::optional<int64_t>(16384));
}

TEST_CASE("graph: functions of a library loaded at run time", "[relax][graph][library]") {
  REQUIRE(!llvm::errorToBool(graph::loadFunctionLibrary(RELAX_USER_LIBRARY).takeError()));
  relax_test::ParsedFile parsed = relax_test::parseText(
      "library.tvm",
      "@R.function\n"
      "def main(x: R.Tensor((3,), \"float32\")):\n"
      "    with R.dataflow():\n"
      "        y = R.call_dps_packed(\"user.scale3\", (x,), R.Tensor((3,), \"float32\"))\n"
      "        z = R.call_dps_packed(\"env.relu\", (y,), R.Tensor((3,), \"float32\"))\n"
      "        R.output(z)\n"
      "    return z\n");
  REQUIRE(parsed.diagnostics.empty());
  backend::Tensor x(ir::DataType::float32(), {3});
  x.setDouble(0, -1.5);
  x.setDouble(1, 0.25);
  x.setDouble(2, 2);
  Run run = runGraph(parsed.module, {{"x", x}});
  REQUIRE(run.error.empty());
  CHECK(run.results[0].second.doubleAt(0) == 0);
  CHECK(run.results[0].second.doubleAt(1) == 0.75);
  CHECK(run.results[0].second.doubleAt(2) == 6);
  CHECK(run.stats.registeredCalls == 2);
}

TEST_CASE("graph: a library that cannot be loaded or fails to initialise", "[relax][graph][library]") {
  CHECK(backend::renderError(graph::loadFunctionLibrary("/nonexistent/libnothing.so").takeError())
            .rfind("error: cannot load library '/nonexistent/libnothing.so': ", 0) == 0);
  CHECK(backend::renderError(graph::loadFunctionLibrary(RELAX_FAILING_LIBRARY).takeError()) ==
        std::string("error: library '") + RELAX_FAILING_LIBRARY +
            "' failed to initialise: the accelerator this library needs is absent\n");
}
