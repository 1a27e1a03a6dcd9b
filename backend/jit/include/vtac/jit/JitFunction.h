// One prim_func compiled in-process with LLVM's ORC LLJIT: `vtac run --engine=jit`.
//
// The function goes through the same host lowering and LLVM emitter as `vtac compile` (for the
// host CPU, with its features), so the JIT runs exactly the code an object would hold. `run`
// has the contract of the interpreter's CompiledFunction::run: one Tensor per parameter (a 0-d
// tensor for a scalar), buffers written back. VTA parameters are copied into VTABufferAlloc
// buffers and back, as TVM's runtime passes them; runtime calls resolve to the VTA runtime
// linked into the process. A failing call (status -1 for an argument, -2 for a runtime error)
// becomes an error carrying VTARuntimeLastError (and the simulator's detail). The code is
// compiled with the run-time checks of RuntimeChecks.h: a failed check is the interpreter's
// located error, in the interpreter's words (RunErrors.h); run limits stop it at a loop, as
// they stop the interpreter, when it was compiled to count steps. The JIT runs no pass: it
// takes the function as host-lower left it (prepare::lowerForCodegen, run by its caller, which
// shows the steps under --print-after-all); what the emitter does not support (vectors of bool,
// vector libm calls) fails to compile with a located error.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/Error.h>

#include "vtac/backend/PrimFuncEngine.h"
#include "vtac/backend/Tensor.h"
#include "vtac/codegen/HostLowering.h"
#include "vtac/codegen/RuntimeChecks.h"

namespace vtac::jit {

class JitFunction : public backend::PrimFuncEngine {
public:
  // `func` is the prim_func as its caller sees it (its parameters are the signature), `lowered`
  // what the emitters take: `func` after prepare::codegenPipeline. `runtimeChecks` false leaves
  // the checks out (bench/codegen/jit_checks_bench measures them); `countSteps` compiles the
  // loop-iteration count that run limits need (RuntimeChecks.h).
  static llvm::Expected<std::unique_ptr<JitFunction>> compile(ir::PrimFuncRef func, ir::PrimFuncRef lowered,
                                                               const std::string &name, int optLevel = 2,
                                                               bool runtimeChecks = true, bool countSteps = false);

  const backend::FunctionSignature &signature() const override { return *signature_; }

  // `limits` (--max-steps, --timeout, the progress line) are kept as the interpreter keeps them
  // (backend::StepLimiter); they need code compiled with `countSteps`, without which there is
  // no progress line.
  llvm::Error run(llvm::MutableArrayRef<backend::Tensor> arguments, const backend::RunLimits &limits = {}) override;

  std::string timingLine(const backend::RunTimes &times) const override;

  // How many run-time checks the compiled code holds (those the analyzer could not prove).
  size_t runtimeCheckCount() const { return checkSites_.size(); }

private:
  JitFunction() = default;

  std::optional<backend::FunctionSignature> signature_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  codegen::HostFunction host_;
  int32_t (*entry_)(void **) = nullptr;
  std::vector<codegen::CheckSite> checkSites_;
  bool countsSteps_ = false;
};

// What takes a prepared prim_func to host-lower's output for the JIT: the caller's run of
// prepare::lowerForCodegen, so that the caller's --print-after-all shows its steps.
using Lowering = std::function<llvm::Expected<ir::PrimFuncRef>(ir::PrimFuncRef function, llvm::StringRef name)>;

// The JIT as an engine (`vtac run --engine=jit`): each prim_func lowered by `lowering`, then
// compiled with run-time checks, and with the loop-iteration count when `countSteps`
// (--max-steps, --timeout, --progress). Not for a terminal's progress line alone: the count
// costs tight loops their vectorisation (bench/RESULTS.md). A prim_func that drives VTA is
// compiled at -O0: its host code only issues runtime calls, and -O2 made its compile 5x dearer
// for a faster run of a few ms (seed 001's conv2d: 0.12 s vs 0.025 s to compile, 7 vs 9.5 ms to
// run; bench/RESULTS.md); CPU code stays at -O2.
backend::PrimFuncCompiler jitCompiler(Lowering lowering, bool countSteps = false);

}  // namespace vtac::jit
