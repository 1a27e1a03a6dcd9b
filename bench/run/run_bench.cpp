// Times `vtac run`'s phases on seed 001's conv2d, in-process through the same libraries:
//  - the fully lowered VTA program: parse, compile, host interpretation (the interpreter
//    issuing runtime calls and recording micro-kernels) and simulation (inside VTASynchronize);
//  - the default-schedule CPU program: interpreter throughput in statements per second.
// Wall and thread-CPU times are both printed: the machine is shared, CPU time is the steadier.
// Usage: vtac_run_bench [repetitions] [--vta-only]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <vta/sim.h>

#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/Interpreter.h"
#include "vtac/backend/RandomFill.h"
#include "vtac/backend/VtaExterns.h"
#include "vtac/frontend/ModuleFile.h"

using namespace vtac::backend;
using Clock = std::chrono::steady_clock;

namespace {

struct Sample {
  double wall = 0, cpu = 0;
};

struct Stopwatch {
  Clock::time_point wallStart = Clock::now();
  double cpuStart = threadCpuSeconds();
  Sample elapsed() const {
    return {std::chrono::duration<double>(Clock::now() - wallStart).count(), threadCpuSeconds() - cpuStart};
  }
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::vector<Tensor> randomArguments(const CompiledFunction &function) {
  std::vector<Tensor> arguments;
  auto sizes = function.bindSizes(std::vector<const Tensor *>(function.params().size(), nullptr));
  for (size_t i = 0; i < function.params().size(); ++i) {
    Tensor tensor(function.params()[i].dtype, *function.shapeOf(i, *sizes));
    fillRandom(tensor, 1, function.params()[i].name);
    arguments.push_back(std::move(tensor));
  }
  return arguments;
}

std::unique_ptr<CompiledFunction> load(const char *path, const ExternRegistry &registry, Sample &parse, Sample &compile) {
  Stopwatch parseWatch;
  auto parsed = vtac::frontend::loadModule(path);
  parse = parseWatch.elapsed();
  if (!parsed) {
    std::cerr << vtac::ir::renderError(parsed.takeError());
    std::exit(1);
  }
  Stopwatch compileWatch;
  auto compiled = CompiledFunction::compile(vtac::ir::cast<vtac::ir::PrimFunc>(parsed->module.lookup("main")), "main", registry);
  compile = compileWatch.elapsed();
  if (!compiled) {
    std::cerr << renderError(compiled.takeError());
    std::exit(1);
  }
  return std::move(*compiled);
}

}  // namespace

int main(int argc, char **argv) {
  int repetitions = argc > 1 ? std::atoi(argv[1]) : 10;
  bool vtaOnly = argc > 2 && std::string(argv[2]) == "--vta-only";
  VtaTiming timing;
  ExternRegistry registry;
  registerVtaExterns(registry, &timing);

  std::vector<double> parseWall, parseCpu, compileCpu, hostWall, hostCpu, simWall, simCpu, totalWall;
  for (int r = 0; r < repetitions; ++r) {
    Sample parse, compile;
    auto function = load("samples/conv2d_vta_lowered.tvm", registry, parse, compile);
    std::vector<Tensor> arguments = randomArguments(*function);
    timing = VtaTiming();
    VTASimClearStats();
    Stopwatch run;
    if (llvm::Error error = function->run(arguments)) {
      std::cerr << renderError(std::move(error));
      return 1;
    }
    Sample elapsed = run.elapsed();
    parseWall.push_back(parse.wall);
    parseCpu.push_back(parse.cpu);
    compileCpu.push_back(compile.cpu);
    hostWall.push_back(elapsed.wall - timing.synchronizeSeconds);
    hostCpu.push_back(elapsed.cpu - timing.synchronizeCpuSeconds);
    simWall.push_back(timing.synchronizeSeconds);
    simCpu.push_back(timing.synchronizeCpuSeconds);
    totalWall.push_back(parse.wall + compile.wall + elapsed.wall);
  }
  std::printf("conv2d_vta_lowered.tvm, median of %d runs (ms)      wall      cpu\n", repetitions);
  std::printf("  parse                                          %8.3f %8.3f\n", 1e3 * median(parseWall), 1e3 * median(parseCpu));
  std::printf("  compile (IR -> interpreter nodes)                       %8.3f\n", 1e3 * median(compileCpu));
  std::printf("  host interpretation (runtime calls, uop record) %8.3f %8.3f\n", 1e3 * median(hostWall), 1e3 * median(hostCpu));
  std::printf("  simulation (inside VTASynchronize)             %8.3f %8.3f\n", 1e3 * median(simWall), 1e3 * median(simCpu));
  std::printf("  total                                          %8.3f\n", 1e3 * median(totalWall));
  std::printf("  VTA statistics: %s\n", VTASimStatsJSON());

  if (vtaOnly) return 0;
  Sample parse, compile;
  auto reference = load("samples/conv2d_default_schedule.tvm", registry, parse, compile);
  std::vector<Tensor> arguments = randomArguments(*reference);
  Stopwatch run;
  if (llvm::Error error = reference->run(arguments)) {
    std::cerr << renderError(std::move(error));
    return 1;
  }
  Sample elapsed = run.elapsed();
  double statements = double(reference->statementsExecuted());
  std::printf("conv2d_default_schedule.tvm (CPU reference): %.0f statements in %.3f s wall / %.3f s cpu\n", statements,
              elapsed.wall, elapsed.cpu);
  std::printf("  throughput: %.1f M statements/s (cpu), %.1f M statements/s (wall)\n", statements / elapsed.cpu / 1e6,
              statements / elapsed.wall / 1e6);
  return 0;
}
