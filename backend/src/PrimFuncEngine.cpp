#include "vtac/backend/PrimFuncEngine.h"

#include <llvm/Support/Format.h>
#include <llvm/Support/raw_ostream.h>

#include "vtac/backend/Interpreter.h"

namespace vtac::backend {

namespace {

class InterpreterEngine : public PrimFuncEngine {
public:
  explicit InterpreterEngine(std::unique_ptr<CompiledFunction> function) : function_(std::move(function)) {}

  const FunctionSignature &signature() const override { return *function_; }

  llvm::Error run(llvm::MutableArrayRef<Tensor> arguments, const RunLimits &limits) override {
    return function_->run(arguments, limits);
  }

  // Host interpretation is the run minus the time spent simulating in VTASynchronize.
  std::string timingLine(const RunTimes &times) const override {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::format("timing: parse %.4f s, host interpretation %.4f s (%.4f s CPU, %llu statements), "
                       "simulation %.4f s (%.4f s CPU, %llu VTASynchronize calls)\n",
                       times.parse, times.run - times.synchronize, times.runCpu - times.synchronizeCpu,
                       (unsigned long long)function_->statementsExecuted(), times.synchronize, times.synchronizeCpu,
                       (unsigned long long)times.synchronizeCalls);
    return os.str();
  }

private:
  std::unique_ptr<CompiledFunction> function_;
};

}  // namespace

PrimFuncCompiler interpreterCompiler(const ExternRegistry &registry) {
  return [&registry](ir::PrimFuncRef function,
                     llvm::StringRef name) -> llvm::Expected<std::unique_ptr<PrimFuncEngine>> {
    auto compiled = CompiledFunction::compile(function, name, registry);
    if (!compiled) return compiled.takeError();
    return std::make_unique<InterpreterEngine>(std::move(*compiled));
  };
}

}  // namespace vtac::backend
