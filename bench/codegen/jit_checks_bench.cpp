// The cost of the JIT's run-time checks (backend/codegen/include/vtac/codegen/RuntimeChecks.h;
// results in bench/RESULTS.md): each program is JIT-compiled twice, with and without the
// checks, and both run on the same seeded inputs, alternately, N times; prints the number of
// checks left in the code and the median process CPU seconds of each, and fails unless both
// produce the same bytes.
//
//   jit_checks_bench [repetitions] [program.tvm...]   (run from the source directory)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "vtac/backend/FunctionSignature.h"
#include "vtac/backend/RandomFill.h"
#include "vtac/frontend/ModuleFile.h"
#include "vtac/jit/JitFunction.h"
#include "vtac/prepare/Prepare.h"

namespace {

double cpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "jit_checks_bench: %s\n", what.c_str());
  std::exit(1);
}

template <typename T> T orFail(llvm::Expected<T> value, const std::string &what) {
  if (!value) fail(what + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
  int repetitions = argc > 1 ? std::atoi(argv[1]) : 3;
  std::vector<std::string> programs(argv + std::min(argc, 2), argv + argc);
  if (programs.empty()) programs = {"bench/codegen/matmul_1024_flat.tvm", "samples/matmul_1024_local_blocking.tvm"};
  std::printf("%-42s %8s %14s %14s %8s\n", "program", "checks", "checked s", "unchecked s", "ratio");
  for (const std::string &path : programs) {
    auto parsed = orFail(vtac::frontend::loadModule(path), path);
    vtac::ir::PrimFuncRef func = vtac::ir::cast<vtac::ir::PrimFunc>(parsed.module.lookup("main"));
    auto signature = orFail(vtac::backend::FunctionSignature::of(func, "main"), path);
    auto sizes = orFail(signature.bindSizes(std::vector<const vtac::backend::Tensor *>(signature.params().size())), path);
    std::vector<vtac::backend::Tensor> inputs;
    for (size_t i = 0; i < signature.params().size(); ++i) {
      inputs.push_back(orFail(signature.allocateArgument(i, sizes), path));
      vtac::backend::fillRandom(inputs.back(), 0, signature.params()[i].name);
    }
    auto lowered = orFail(vtac::prepare::lowerForCodegen(func, "main"), path);
    auto checked = orFail(vtac::jit::JitFunction::compile(func, lowered, "main", 2, true), path);
    auto unchecked = orFail(vtac::jit::JitFunction::compile(func, lowered, "main", 2, false), path);
    std::vector<double> checkedTimes, uncheckedTimes;
    std::vector<vtac::backend::Tensor> checkedResult, uncheckedResult;
    for (int r = 0; r < repetitions; ++r) {
      for (bool withChecks : {true, false}) {
        std::vector<vtac::backend::Tensor> arguments = inputs;
        double start = cpuSeconds();
        if (llvm::Error error = (withChecks ? checked : unchecked)->run(arguments))
          fail(path + ": " + llvm::toString(std::move(error)));
        (withChecks ? checkedTimes : uncheckedTimes).push_back(cpuSeconds() - start);
        (withChecks ? checkedResult : uncheckedResult) = std::move(arguments);
      }
    }
    for (size_t i = 0; i < inputs.size(); ++i)
      if (checkedResult[i].byteSize() != uncheckedResult[i].byteSize() ||
          std::memcmp(checkedResult[i].data(), uncheckedResult[i].data(), checkedResult[i].byteSize()) != 0)
        fail(path + ": the checked and unchecked code disagree on '" + signature.params()[i].name + "'");
    double withChecks = median(checkedTimes), without = median(uncheckedTimes);
    std::printf("%-42s %8zu %14.3f %14.3f %8.3f\n", path.c_str(), checked->runtimeCheckCount(), withChecks, without,
                withChecks / without);
  }
  return 0;
}
