// A prim_func ready to run on one of `vtac run`'s engines: the reference interpreter
// (`interpreterEngine`, Interpreter.h) or the ORC JIT (vtac/jit/JitFunction.h). The prim_func
// path of `vtac run` and the graph executor's calls of prim_funcs run through this one
// interface, so both engines take the same arguments (one Tensor per parameter, a 0-d tensor
// for a scalar, buffers written back), the same limits, and fail with the same located errors.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

#include "vtac/backend/ExternRegistry.h"
#include "vtac/backend/FunctionSignature.h"
#include "vtac/backend/RunLimits.h"
#include "vtac/backend/Tensor.h"
#include "vtac/ir/Function.h"

namespace vtac::backend {

// The phases of one `vtac run --timing`, in seconds (synchronize*: inside VTASynchronize).
struct RunTimes {
  double parse = 0, compile = 0, run = 0, runCpu = 0;
  double synchronize = 0, synchronizeCpu = 0;
  uint64_t synchronizeCalls = 0;
};

class PrimFuncEngine {
public:
  virtual ~PrimFuncEngine() = default;
  virtual const FunctionSignature &signature() const = 0;
  // Runs on `arguments`; buffers are written back only when the run succeeds.
  virtual llvm::Error run(llvm::MutableArrayRef<Tensor> arguments, const RunLimits &limits) = 0;
  // The `--timing` line of the last run, in the engine's own terms.
  virtual std::string timingLine(const RunTimes &times) const = 0;
};

// Compiles a prim_func of a module for one engine.
using PrimFuncCompiler =
    std::function<llvm::Expected<std::unique_ptr<PrimFuncEngine>>(ir::PrimFuncRef function, llvm::StringRef name)>;

// The interpreter as an engine; calls resolve in `registry`, which must outlive the engines.
PrimFuncCompiler interpreterCompiler(const ExternRegistry &registry);

}  // namespace vtac::backend
