#include "vtac/backend/SimulatedRun.h"

#include <vta/runtime.h>
#include <vta/sim.h>

#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/FunctionSignature.h"
#include "vtac/backend/RunArguments.h"
#include "vtac/backend/VtaExterns.h"
#include "vtac/jit/JitFunction.h"

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
  PrimFuncCompiler compiler = interpret ? interpreterCompiler(registry) : jit::jitCompiler();
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
