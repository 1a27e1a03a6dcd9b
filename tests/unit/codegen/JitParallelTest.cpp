// The JIT runs a `parallel` loop on the thread pool: each iteration records the thread that
// ran it through an extern function this test binary exports (the JIT resolves it in the
// process), and with VTAC_NUM_THREADS=4 the 64 iterations are spread over 4 threads.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "vtac/frontend/Frontend.h"
#include "vtac/jit/JitFunction.h"
#include "vtac/prepare/Prepare.h"

namespace {

std::mutex recordedMutex;
std::set<std::thread::id> recordedThreads;

}  // namespace

extern "C" int32_t vtac_test_record_thread(int32_t index) {
  std::lock_guard<std::mutex> lock(recordedMutex);
  recordedThreads.insert(std::this_thread::get_id());
  return index;
}

namespace vtac::jit {
namespace {

const char *kRecordingLoop = R"(@T.prim_func
def main(A: T.Buffer((64,), "int32")):
    for i in T.parallel(64):
        A[i] = T.call_extern("int32", "vtac_test_record_thread", i) * 2
)";

TEST_CASE("JIT: a parallel loop runs on several threads of the pool", "[codegen][jit]") {
  setenv("VTAC_NUM_THREADS", "4", 1);  // read by the pool at its first use, which is below
  frontend::SourceFile file("jit_parallel_test.tvm", kRecordingLoop);
  frontend::DiagnosticEngine diagnostics;
  auto parsed = frontend::parseModule(file, diagnostics);
  REQUIRE(parsed.has_value());
  auto func = ir::cast<ir::PrimFunc>(parsed->module.functions()[0].function);
  auto lowered = prepare::lowerForCodegen(func, "main");
  if (!lowered) FAIL(llvm::toString(lowered.takeError()));
  auto compiled = JitFunction::compile(func, *lowered, "main");
  if (!compiled) FAIL(llvm::toString(compiled.takeError()));
  std::vector<backend::Tensor> arguments;
  arguments.emplace_back(ir::DataType::int32(), std::vector<int64_t>{64});
  REQUIRE(!(*compiled)->run(arguments));
  int32_t values[64];
  std::memcpy(values, arguments[0].data(), sizeof values);
  for (int i = 0; i < 64; ++i) CHECK(values[i] == 2 * i);
  CHECK(recordedThreads.size() == 4);
}

}  // namespace
}  // namespace vtac::jit
