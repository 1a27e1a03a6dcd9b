// Code-generation time per layer (results in bench/RESULTS.md): for each program, N times in
// one process, the phases of `vtac compile`: parse + verify, host lowering (the host-lower
// pipeline, then lowerForHost), C emission, and the LLVM emitter to an x86-64 object at -O0 and
// -O2 (module built, optimised, assembled). Prints
// the median CPU time of the thread per phase, so that other jobs on the machine count little.
//
//   codegen_bench [repetitions]   (run from the source directory: it reads samples/ and bench/)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <vector>

#include "vtac/codegen/CEmitter.h"
#include "vtac/codegen/LLVMEmitter.h"
#include "vtac/frontend/ModuleFile.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/PassManager.h"

namespace {

double cpuMilliseconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return double(now.tv_sec) * 1e3 + double(now.tv_nsec) * 1e-6;
}

// Median CPU milliseconds of `work` over `repetitions` runs (after one warm-up run).
double median(int repetitions, const std::function<void()> &work) {
  work();
  std::vector<double> times;
  for (int i = 0; i < repetitions; ++i) {
    double start = cpuMilliseconds();
    work();
    times.push_back(cpuMilliseconds() - start);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void check(bool ok, const char *what) {
  if (ok) return;
  std::fprintf(stderr, "codegen_bench: %s failed\n", what);
  std::exit(1);
}

vtac::frontend::ParsedModule load(const char *path) {
  auto parsed = vtac::frontend::loadModule(path);
  if (!parsed) {
    std::fprintf(stderr, "codegen_bench: %s", vtac::ir::renderError(parsed.takeError()).c_str());
    std::exit(1);
  }
  return std::move(*parsed);
}

}  // namespace

int main(int argc, char **argv) {
  int repetitions = argc > 1 ? std::atoi(argv[1]) : 20;
  const char *programs[] = {"samples/conv2d_vta_lowered.tvm", "samples/vector_add_vta_lowered.tvm",
                            "bench/codegen/matmul_1024_flat.tvm"};
  std::printf("%-38s %9s %9s %9s %9s %9s %10s\n", "program", "parse ms", "lower ms", "C ms", "obj-O0 ms",
              "obj-O2 ms", "total-O2");
  for (const char *path : programs) {
    auto parse = [&] { load(path); };
    vtac::frontend::ParsedModule parsed = load(path);
    vtac::ir::PrimFuncRef func(parsed.module.lookup("main")->as<vtac::ir::PrimFunc>());
    std::vector<vtac::codegen::HostFunction> functions;
    auto lower = [&] {
      auto hostLower = vtac::passes::parsePipeline("host-lower", vtac::passes::PassRegistry::builtin());
      check(bool(hostLower), "host-lower pipeline");
      vtac::passes::PassContext context;
      auto flat = vtac::passes::PassManager(std::move(*hostLower)).run(func, "main", context);
      check(bool(flat), "host-lower");
      auto lowered = vtac::codegen::lowerForHost(**flat, "main", "layer");
      check(bool(lowered), "host lowering");
      functions = {std::move(*lowered)};
    };
    lower();
    auto emitC = [&] { check(bool(vtac::codegen::emitC(functions, path)), "C emitter"); };
    auto object = [&](int level) {
      return [&, level] {
        vtac::codegen::LLVMEmitOptions options;
        options.targetTriple = "x86_64-pc-linux-gnu";
        options.optLevel = level;
        check(bool(vtac::codegen::emitLLVM(functions, path, options)), "LLVM emitter");
      };
    };
    double parseMs = median(repetitions, parse), lowerMs = median(repetitions, lower);
    double cMs = median(repetitions, emitC), o0Ms = median(repetitions, object(0)), o2Ms = median(repetitions, object(2));
    std::printf("%-38s %9.2f %9.2f %9.2f %9.2f %9.2f %10.2f\n", path, parseMs, lowerMs, cMs, o0Ms, o2Ms,
                parseMs + lowerMs + o2Ms);
  }
  return 0;
}
