#include "vtac/backend/SimulatedRun.h"

#include <vta/runtime.h>
#include <vta/sim.h>

#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/FunctionSignature.h"
#include "vtac/backend/RunArguments.h"
#include "vtac/backend/VtaExterns.h"
#include "vtac/jit/JitFunction.h"
#include "vtac/prepare/Prepare.h"

namespace vtac::backend {

llvm::Error selectVtaConfig(const std::string &pathOrJSON, const std::string &origin) {
  if (VTARuntimeSetConfig(pathOrJSON.c_str()) != 0) {
    std::string message = VTARuntimeLastError();
    VTARuntimeClearError();
    return diagnosticError(origin + ": " + message);
  }
  if (VTASimSetConfig(pathOrJSON.c_str()) != 0) {
    std::string message = VTASimLastError();
    VTASimClearError();
    return diagnosticError(origin + ": " + message);
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<Tensor>> randomArguments(ir::PrimFuncRef function, const std::string &name, uint64_t seed) {
  auto signature = FunctionSignature::of(function, name);
  if (!signature) return signature.takeError();
  ArgumentSources sources;
  sources.randomInputs = true;
  sources.seed = seed;
  return prepareArguments(*signature, sources);
}

llvm::Expected<SimulatedRun> runSimulated(ir::PrimFuncRef function, const std::string &name,
                                          std::vector<Tensor> arguments, bool interpret) {
  ExternRegistry registry;
  registerVtaExterns(registry);
  // The JIT takes the function through the pipeline of `vtac run --engine=jit`, its errors as
  // the interpreter's would read.
  auto lowering = [](ir::PrimFuncRef func, llvm::StringRef name) {
    passes::Instrumentation instrumentation;
    instrumentation.namePassInErrors = false;
    return prepare::lowerForCodegen(func, name, instrumentation);
  };
  PrimFuncCompiler compiler = interpret ? interpreterCompiler(registry) : jit::jitCompiler(lowering);
  auto engine = compiler(function, name);
  if (!engine) return engine.takeError();
  VTARuntimeClearError();
  VTASimClearError();
  VTASimClearStats();
  if (llvm::Error error = (*engine)->run(arguments, {})) return error;
  if (llvm::Error error = finishVtaRun(function->loc())) return error;
  return SimulatedRun{std::move(arguments), VTASimStatsJSON()};
}

}  // namespace vtac::backend
