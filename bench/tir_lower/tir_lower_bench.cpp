// Times the tir-lower pipeline on seed 001's conv2d as unscheduled TensorIR
// (samples/conv2d_tensorir.tvm): one function lowered `repetitions` times (median per
// function), then a module of 200 renamed copies of it parsed once and lowered in one pass
// manager run (time per function), with the process's peak resident memory after parsing and
// after lowering. Wall and thread-CPU times are both printed: the machine is shared, CPU time
// is the steadier. Usage: vtac_tir_lower_bench [repetitions]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "vtac/frontend/Frontend.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/PassManager.h"

using namespace vtac;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kCopies = 200;

double threadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

double peakResidentMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

struct Times {
  double wall, cpu;
};

template <class F> Times timed(F &&body) {
  Clock::time_point wall = Clock::now();
  double cpu = threadCpuSeconds();
  body();
  return {std::chrono::duration<double>(Clock::now() - wall).count(), threadCpuSeconds() - cpu};
}

std::string readFile(const char *path) {
  std::string text, error;
  if (!frontend::readSourceFile(path, text, error)) {
    std::cerr << path << ": " << error << "\n";
    std::exit(1);
  }
  return text;
}

ir::IRModule parse(const std::string &name, std::string text) {
  frontend::SourceFile file(name, std::move(text));
  frontend::DiagnosticEngine diagnostics;
  auto parsed = frontend::parseModule(file, diagnostics);
  if (!parsed || diagnostics.hasErrors()) {
    std::cerr << name << ": does not parse\n";
    std::exit(1);
  }
  return std::move(parsed->module);
}

// The sample's prim_func `kCopies` times, renamed conv2d_000, conv2d_001, ... in one module.
std::string renamedCopies(const std::string &sample) {
  size_t start = sample.find("    @T.prim_func");
  std::string function = sample.substr(start);
  std::string text = "@I.ir_module\nclass Module:\n";
  for (int i = 0; i < kCopies; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "def conv2d_%03d(", i);
    std::string copy = function;
    copy.replace(copy.find("def main("), 9, name);
    text += copy;
  }
  return text;
}

passes::PassManager tirLower() {
  auto steps = passes::parsePipeline("tir-lower", passes::PassRegistry::builtin());
  if (!steps) {
    std::cerr << ir::errorMessage(steps.takeError()) << "\n";
    std::exit(1);
  }
  return passes::PassManager(std::move(*steps));
}

void check(llvm::Error error) {
  if (!error) return;
  std::cerr << ir::errorMessage(std::move(error)) << "\n";
  std::exit(1);
}

}  // namespace

int main(int argc, char **argv) {
  int repetitions = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  const char *path = "samples/conv2d_tensorir.tvm";
  std::string sample = readFile(path);
  passes::PassContext context;

  ir::IRModule single = parse(path, sample);
  ir::PrimFuncRef conv2d(single.lookup("main")->as<ir::PrimFunc>());
  passes::PassManager manager = tirLower();
  std::vector<double> wall, cpu;
  for (int r = 0; r < repetitions; ++r) {
    Times t = timed([&] {
      auto lowered = manager.run(conv2d, "main", context);
      if (!lowered) check(lowered.takeError());
    });
    wall.push_back(t.wall);
    cpu.push_back(t.cpu);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  std::printf("tir-lower, one conv2d (%d runs): median %.3f ms wall, %.3f ms CPU per function (min %.3f / %.3f)\n",
              repetitions, wall[wall.size() / 2] * 1e3, cpu[cpu.size() / 2] * 1e3, wall.front() * 1e3,
              cpu.front() * 1e3);

  double beforeParse = peakResidentMiB();
  ir::IRModule module;
  Times parsing = timed([&] { module = parse("conv2d_x200.tvm", renamedCopies(sample)); });
  double afterParse = peakResidentMiB();
  passes::PassManager batch = tirLower();
  Times lowering = timed([&] { check(batch.run(module, context)); });
  double afterLowering = peakResidentMiB();
  std::printf("tir-lower, %d renamed copies in one module: %.3f ms wall, %.3f ms CPU per function "
              "(total %.1f ms wall; parsing them took %.1f ms wall)\n",
              kCopies, lowering.wall * 1e3 / kCopies, lowering.cpu * 1e3 / kCopies, lowering.wall * 1e3,
              parsing.wall * 1e3);
  std::printf("peak resident memory: %.1f MiB before parsing, %.1f MiB after parsing the %d copies, "
              "%.1f MiB after lowering them (all kept)\n",
              beforeParse, afterParse, kCopies, afterLowering);
  return 0;
}
