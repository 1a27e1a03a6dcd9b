// Graph executor benchmark: per-call overhead on chains of tiny functions (registered and
// prim_func callees), end-to-end latency of seed 004's 784-128-10 MLP in its three forms, and
// the executor's peak tensor memory against the sum of all intermediate tensors. Times are CPU
// time of the running thread.
//
//   graph_bench [REPEATS]      (run from the repository root: it reads samples/)
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/RandomFill.h"
#include "vtac/frontend/Frontend.h"
#include "vtac/func_registry.h"
#include "vtac/graph/GraphExecutor.h"

using namespace vtac;

namespace {

// CPU time of this thread: the 2-core machine is shared, so wall time measures the neighbours.
double threadSeconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return double(now.tv_sec) + 1e-9 * double(now.tv_nsec);
}

// A registered function that does nothing but touch its output: pure call overhead.
int copyOne(const vtac_tensor *args, int32_t, void *) {
  *static_cast<float *>(args[1].data) = *static_cast<const float *>(args[0].data);
  return 0;
}

ir::IRModule parse(const std::string &name, const std::string &text) {
  frontend::SourceFile file(name, text);
  frontend::DiagnosticEngine diagnostics;
  std::optional<frontend::ParsedModule> parsed = frontend::parseModule(file, diagnostics);
  if (!parsed) {
    std::fprintf(stderr, "%s", diagnostics.render().c_str());
    std::exit(1);
  }
  return std::move(parsed->module);
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `length` bindings, each a call of `callee` on the previous result (a (1,) float32 tensor).
std::string chainModule(int length, bool primFunc) {
  std::string text = "@I.ir_module\nclass Module:\n";
  if (primFunc)
    text += "    @T.prim_func\n"
            "    def copy_one(A: T.Buffer((1,), \"float32\"), B: T.Buffer((1,), \"float32\")):\n"
            "        for i in range(1):\n"
            "            with T.block(\"B\"):\n"
            "                vi = T.axis.spatial(1, i)\n"
            "                B[vi] = A[vi]\n\n";
  text += "    @R.function\n    def main(x: R.Tensor((1,), \"float32\")):\n        with R.dataflow():\n";
  std::string previous = "x";
  for (int i = 0; i < length; ++i) {
    std::string name = "lv" + std::to_string(i);
    text += "            " + name + " = R.call_dps_packed(\"" + (primFunc ? "copy_one" : "bench.copy_one") +
            "\", (" + previous + ",), R.Tensor((1,), \"float32\"))\n";
    previous = name;
  }
  text += "            R.output(" + previous + ")\n        return " + previous + "\n";
  return text;
}

struct Timing {
  double secondsPerRun;
  graph::GraphStats stats;
};

Timing timeRuns(const ir::IRModule &module, const graph::NamedTensors &inputs, int repeats) {
  backend::ExternRegistry externs;
  llvm::Expected<graph::GraphExecutor> executor = graph::GraphExecutor::create(module, "main", externs);
  if (!executor) {
    std::fprintf(stderr, "%s", backend::renderError(executor.takeError()).c_str());
    std::exit(1);
  }
  auto once = [&] {
    llvm::Expected<graph::NamedTensors> results = executor->run(inputs);
    if (!results) {
      std::fprintf(stderr, "%s", backend::renderError(results.takeError()).c_str());
      std::exit(1);
    }
  };
  once();  // warm-up
  double start = threadSeconds();
  for (int i = 0; i < repeats; ++i) once();
  double seconds = threadSeconds() - start;
  return {seconds / repeats, executor->stats()};
}

backend::Tensor randomTensor(std::vector<int64_t> shape, const char *name) {
  backend::Tensor tensor(ir::DataType::float32(), std::move(shape));
  backend::fillRandom(tensor, 1, name);
  return tensor;
}

}  // namespace

int main(int argc, char **argv) {
  int repeats = argc > 1 ? std::atoi(argv[1]) : 20;
  vtac_register_func("bench.copy_one", copyOne, nullptr, 1);

  std::printf("## per-call overhead (chain of 1000 calls on (1,) float32 tensors, %d runs)\n", repeats);
  std::printf("| callee | us per call | calls/s | peak tensor bytes | total tensor bytes |\n|---|---|---|---|---|\n");
  graph::NamedTensors chainInput = {{"x", randomTensor({1}, "x")}};
  for (bool primFunc : {false, true}) {
    const int length = 1000;
    Timing t = timeRuns(parse("chain.tvm", chainModule(length, primFunc)), chainInput, repeats);
    double perCall = t.secondsPerRun / length;
    std::printf("| %s | %.3f | %.3g | %lld | %lld |\n",
                primFunc ? "prim_func copy_one (interpreter)" : "registered bench.copy_one", perCall * 1e6,
                1 / perCall, (long long)t.stats.peakTensorBytes, (long long)t.stats.totalTensorBytes);
  }

  std::printf("\n## end-to-end MLP 784-128-10 (%d runs)\n", repeats);
  std::printf("| module | ms per run | peak tensor bytes | total tensor bytes |\n|---|---|---|---|\n");
  graph::NamedTensors mlp = {{"x", randomTensor({1, 784}, "x")},     {"w0", randomTensor({128, 784}, "w0")},
                             {"b0", randomTensor({128}, "b0")},      {"w1", randomTensor({10, 128}, "w1")},
                             {"b1", randomTensor({10}, "b1")}};
  for (const char *sample : {"mlp_extern_call.tvm", "mlp_mixture.tvm", "mlp_module.tvm"}) {
    std::string path = std::string("samples/") + sample;
    Timing t = timeRuns(parse(path, readFile(path)), mlp, repeats);
    std::printf("| %s | %.3f | %lld | %lld |\n", sample, t.secondsPerRun * 1e3,
                (long long)t.stats.peakTensorBytes, (long long)t.stats.totalTensorBytes);
  }
  return 0;
}
