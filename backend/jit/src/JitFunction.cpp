#include "vtac/jit/JitFunction.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>

#include <llvm/ADT/StringSet.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/Format.h>
#include <llvm/ExecutionEngine/Orc/Mangling.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <dlpack/dlpack.h>
#include <llvm/TargetParser/Host.h>
#include <vta/runtime.h>
#include <vta/sim.h>
#include <vtac/parallel.h>

#include "vtac/backend/KernelCacheSlot.h"
#include "vtac/backend/RunErrors.h"
#include "vtac/backend/StepLimiter.h"
#include "vtac/codegen/LLVMEmitter.h"
#include "vtac/codegen/RuntimeApi.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/Vta.h"

namespace vtac::jit {

static_assert(codegen::kMaxAllocationBytes == backend::kMaxTensorBytes, "the engines allocate up to the same limit");

namespace {

constexpr const char *kPackedEntry = "vtac_jit_entry";

// The host CPU's name and features, as clang's -march=native sees them.
std::string hostFeatures() {
  std::string features;
  for (const auto &[name, enabled] : llvm::sys::getHostCPUFeatures())
    features += (features.empty() ? "" : ",") + std::string(enabled ? "+" : "-") + name.str();
  return features;
}

DLDataType dlpackType(ir::DataType dtype) {
  DLDataType type;
  type.code = dtype.isFloat() ? kDLFloat : dtype.isInt() ? kDLInt : kDLUInt;
  type.bits = uint8_t(dtype.bits());
  type.lanes = uint16_t(dtype.lanes());
  return type;
}

// The runtime's (and simulator's) message for a failed call, errors cleared.
std::string runtimeMessage() {
  std::string message = VTARuntimeLastError();
  std::string detail = VTASimLastError();
  if (!detail.empty() && message.find(detail) == std::string::npos)
    message += message.empty() ? detail : " (" + detail + ")";
  VTARuntimeClearError();
  VTASimClearError();
  return message.empty() ? "no message" : message;
}

// The first failed run-time check of the running function (compiled code of parallel tasks may
// fail on several threads at once; the first report wins, as the interpreter keeps its first).
struct FailedCheck {
  std::mutex mutex;
  bool failed = false;
  int32_t site = 0;
  int64_t a = 0, b = 0, c = 0;
  std::string message;  // a Stopped site's, from the StepLimiter
} failedCheck;

extern "C" int32_t vtacJitCheckFailed(int32_t site, int64_t a, int64_t b, int64_t c) {
  std::lock_guard<std::mutex> lock(failedCheck.mutex);
  if (!failedCheck.failed) {
    failedCheck.failed = true;
    failedCheck.site = site;
    failedCheck.a = a;
    failedCheck.b = b;
    failedCheck.c = c;
  }
  return codegen::kStatusCheckFailed;
}

// The loop iterations counted by code compiled with countSteps, the count at which it calls
// vtacJitCheckLimits next, and the limiter of the running function (null when none runs).
std::atomic<uint64_t> stepCount{0};
std::atomic<uint64_t> nextLimitCheck{UINT64_MAX};
std::mutex limiterMutex;
backend::StepLimiter *activeLimiter = nullptr;

extern "C" int32_t vtacJitCheckLimits(int32_t site, int64_t steps) {
  std::lock_guard<std::mutex> lock(limiterMutex);
  if (!activeLimiter) return 0;
  std::optional<std::string> stop = activeLimiter->check(uint64_t(steps));
  if (!stop) {
    nextLimitCheck = activeLimiter->nextCheck();
    return 0;
  }
  std::lock_guard<std::mutex> failedLock(failedCheck.mutex);
  if (!failedCheck.failed) {
    failedCheck.failed = true;
    failedCheck.site = site;
    failedCheck.message = std::move(*stop);
  }
  return codegen::kStatusCheckFailed;
}

// Makes `limiter` the one compiled code reports to while it lives.
class ActiveLimiterScope {
public:
  explicit ActiveLimiterScope(backend::StepLimiter &limiter) {
    std::lock_guard<std::mutex> lock(limiterMutex);
    activeLimiter = &limiter;
    stepCount = 0;
    nextLimitCheck = limiter.nextCheck();
  }
  ~ActiveLimiterScope() {
    std::lock_guard<std::mutex> lock(limiterMutex);
    activeLimiter->finish();
    activeLimiter = nullptr;
    nextLimitCheck = UINT64_MAX;
  }
  ActiveLimiterScope(const ActiveLimiterScope &) = delete;
  ActiveLimiterScope &operator=(const ActiveLimiterScope &) = delete;
};

// The interpreter's words for the fault a check found (RunErrors.h).
std::string checkMessage(const codegen::CheckSite &site, const FailedCheck &check) {
  int64_t a = check.a, b = check.b, c = check.c;
  switch (site.kind) {
  case codegen::CheckKind::DimensionIndex: return backend::dimensionOutOfBoundsMessage(a, site.dim, site.name, b);
  case codegen::CheckKind::AllocationIndex:
    return backend::outsideAllocationMessage(a, site.name, site.flatIndex, site.elementBytes, b);
  case codegen::CheckKind::DivisionByZero: return backend::divisionByZeroMessage(false, a);
  case codegen::CheckKind::ModuloByZero: return backend::divisionByZeroMessage(true, a);
  case codegen::CheckKind::ShiftAmount: return backend::shiftOutOfRangeMessage(a, site.name);
  case codegen::CheckKind::FloatToInt: {
    double value;
    std::memcpy(&value, &a, sizeof value);
    return backend::floatToIntMessage(value, site.name);
  }
  case codegen::CheckKind::AccessPtrRange:
    return backend::accessPtrOutOfRangeMessage(a, b, site.name, c / site.elementBytes);
  case codegen::CheckKind::AllocationTooLarge: return backend::allocationTooLargeMessage(site.name, site.shape, a, b != 0);
  case codegen::CheckKind::CallFailed: return "call to '" + site.name + "' failed: " + runtimeMessage();
  case codegen::CheckKind::Stopped: return check.message;
  }
  return "run-time check failed";
}

// The first call_extern of `callee` in `func`, for a located error; null when none names it.
const ir::Call *firstExternCall(const ir::PrimFunc &func, llvm::StringRef callee) {
  const ir::Call *found = nullptr;
  ir::preOrderVisit(func.body, [&](const ir::Node &node) {
    auto *call = node.as<ir::Call>();
    if (found || !call || (call->op != "tir.call_extern" && call->op != "tir.call_pure_extern") || call->args.empty())
      return;
    auto *name = call->args[0].as<ir::StringImm>();
    if (name && name->value == callee) found = call;
  });
  return found;
}

// Every function `module` declares must resolve in the process (or be one of `hostSymbols`,
// or weak): ORC would otherwise fail at lookup with a message that names no source line.
llvm::Error checkExternsResolve(const llvm::Module &module, const ir::PrimFunc &func,
                                const llvm::StringSet<> &hostSymbols) {
  // The process's symbols, as ORC's process generator searches them.
  llvm::sys::DynamicLibrary process = llvm::sys::DynamicLibrary::getPermanentLibrary(nullptr);
  for (const llvm::Function &declared : module) {
    if (!declared.isDeclaration() || declared.isIntrinsic() || declared.hasExternalWeakLinkage()) continue;
    llvm::StringRef name = declared.getName();
    if (hostSymbols.contains(name) || process.getAddressOfSymbol(name.str().c_str())) continue;
    if (const ir::Call *call = firstExternCall(func, name))
      return ir::diagnosticError(call->loc(), "call to unregistered extern function '" + name.str() + "'");
    return ir::diagnosticError("the compiled code calls '" + name.str() + "', which nothing in the process defines");
  }
  return llvm::Error::success();
}

}  // namespace

llvm::Expected<std::unique_ptr<JitFunction>> JitFunction::compile(ir::PrimFuncRef func, ir::PrimFuncRef lowered,
                                                                   const std::string &name, int optLevel,
                                                                   bool runtimeChecks, bool countSteps) {
  std::unique_ptr<JitFunction> result(new JitFunction());
  auto signature = backend::FunctionSignature::of(func, name);
  if (!signature) return signature.takeError();
  result->signature_ = std::move(*signature);
  auto host = codegen::lowerForHost(*lowered, name, name);
  if (!host) return host.takeError();
  result->host_ = std::move(*host);

  codegen::LLVMEmitOptions options;
  options.optLevel = optLevel;
  options.cpu = llvm::sys::getHostCPUName().str();
  options.features = hostFeatures();
  options.packedEntry = kPackedEntry;
  options.runtimeChecks = runtimeChecks;
  options.countSteps = countSteps;
  options.onChipScopesInHostMemory = true;
  options.kernelHandlesFromCaller = true;
  result->countsSteps_ = runtimeChecks && countSteps;
  auto context = std::make_unique<llvm::LLVMContext>();
  auto built = codegen::buildLLVMModule({result->host_}, name, options, *context);
  if (!built) return built.takeError();
  result->checkSites_ = std::move(built->checkSites);

  // The machine-code generator at the same level as the IR pipeline (LLJIT's own is -O2).
  auto machine = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machine) return ir::diagnosticError("cannot create the JIT: " + llvm::toString(machine.takeError()));
  if (auto level = llvm::CodeGenOpt::getLevel(optLevel)) machine->setCodeGenOptLevel(*level);
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*machine)).create();
  if (!jit) return ir::diagnosticError("cannot create the JIT: " + llvm::toString(jit.takeError()));
  result->jit_ = std::move(*jit);
  auto &dylib = result->jit_->getMainJITDylib();
  auto processSymbols = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      result->jit_->getDataLayout().getGlobalPrefix());
  if (!processSymbols) return ir::diagnosticError("JIT: " + llvm::toString(processSymbols.takeError()));
  dylib.addGenerator(std::move(*processSymbols));
  // The thread pool of parallel loops (bound by address, which also keeps its library linked)
  // and the run-time checks' report function and stop flag.
  llvm::orc::MangleAndInterner mangle(result->jit_->getExecutionSession(), result->jit_->getDataLayout());
  const std::pair<const char *, const void *> hostAddresses[] = {
      {"vtac_parallel_for", reinterpret_cast<const void *>(&vtac_parallel_for)},
      {codegen::kCheckFailedSymbol, reinterpret_cast<const void *>(&vtacJitCheckFailed)},
      {codegen::kCheckLimitsSymbol, reinterpret_cast<const void *>(&vtacJitCheckLimits)},
      {codegen::kStepCountSymbol, &stepCount},
      {codegen::kNextLimitCheckSymbol, &nextLimitCheck}};
  llvm::orc::SymbolMap hostSymbols;
  llvm::StringSet<> hostNames;
  for (const auto &[symbol, address] : hostAddresses) {
    hostSymbols[mangle(symbol)] = {llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported};
    hostNames.insert(symbol);
  }
  for (const std::string &handle : built->kernelHandles)
    hostSymbols[mangle(handle)] = {llvm::orc::ExecutorAddr::fromPtr(backend::newKernelCacheSlot()),
                                   llvm::JITSymbolFlags::Exported};
  if (llvm::Error error = checkExternsResolve(*built->module, *lowered, hostNames))
    return error;
  if (llvm::Error error = dylib.define(llvm::orc::absoluteSymbols(std::move(hostSymbols))))
    return ir::diagnosticError("JIT: " + llvm::toString(std::move(error)));
  built->module->setDataLayout(result->jit_->getDataLayout());
  if (llvm::Error error = result->jit_->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(built->module), std::move(context))))
    return ir::diagnosticError("JIT: " + llvm::toString(std::move(error)));
  auto entry = result->jit_->lookup(kPackedEntry);
  if (!entry) return ir::diagnosticError("JIT: " + llvm::toString(entry.takeError()));
  result->entry_ = entry->toPtr<int32_t(void **)>();
  return result;
}

std::string JitFunction::timingLine(const backend::RunTimes &times) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("timing: parse %.4f s, JIT compile %.4f s (%zu run-time checks), run %.4f s (%.4f s CPU, "
                     "host code and simulation)\n",
                     times.parse, times.compile, runtimeCheckCount(), times.run, times.runCpu);
  return os.str();
}

llvm::Error JitFunction::run(llvm::MutableArrayRef<backend::Tensor> arguments, const backend::RunLimits &limits) {
  backend::RunLimits kept = limits;
  if (!countsSteps_) kept.progress = nullptr;  // the progress line shows the count: none without it
  if (backend::StepLimiter::counts(kept) && !countsSteps_)
    return ir::diagnosticError("internal error: run limits given to JIT code compiled without step counting");
  const std::vector<codegen::HostParam> &params = host_.params;
  if (arguments.size() != params.size())
    return ir::diagnosticError("'" + host_.name + "' takes " + std::to_string(params.size()) + " arguments, got " +
                               std::to_string(arguments.size()));
  std::vector<DLTensor> tensors(params.size());
  std::vector<void *> slots(params.size());
  std::vector<void *> deviceBuffers(params.size(), nullptr);
  auto release = [&] {
    for (void *buffer : deviceBuffers)
      if (buffer) VTABufferFree(buffer);
  };
  for (size_t i = 0; i < params.size(); ++i) {
    backend::Tensor &tensor = arguments[i];
    if (!params[i].buffer) {
      slots[i] = tensor.data();  // a 0-d tensor of the scalar's dtype
      continue;
    }
    DLTensor &t = tensors[i];
    t.data = tensor.data();
    t.device = {kDLCPU, 0};
    if (params[i].onVta) {
      deviceBuffers[i] = VTABufferAlloc(size_t(backend::paddedAllocationBytes(tensor.byteSize())));
      if (!deviceBuffers[i]) {
        release();
        return ir::diagnosticError("cannot allocate parameter '" + params[i].var->name + "': " + runtimeMessage());
      }
      VTABufferCopy(tensor.data(), 0, deviceBuffers[i], 0, tensor.byteSize(), VTA_MEMCPY_H2D);
      t.data = deviceBuffers[i];
      t.device = {kDLExtDev, 0};
    }
    t.ndim = int32_t(tensor.shape().size());
    t.dtype = dlpackType(tensor.dtype());
    t.shape = const_cast<int64_t *>(tensor.shape().data());
    t.strides = nullptr;
    t.byte_offset = 0;
    slots[i] = &t;
  }
  {
    std::lock_guard<std::mutex> lock(failedCheck.mutex);
    failedCheck.failed = false;
    failedCheck.message.clear();
  }
  int32_t status;
  {
    backend::StepLimiter limiter(kept);
    ActiveLimiterScope scope(limiter);
    status = entry_(slots.data());
  }
  if (status != 0 && failedCheck.failed) {  // a check's report is the precise error
    release();
    const codegen::CheckSite &site = checkSites_[size_t(failedCheck.site)];
    std::string message = checkMessage(site, failedCheck);
    VTARuntimeClearError();
    VTASimClearError();
    return ir::diagnosticError(site.loc, message);
  }
  if (status != 0) {
    release();
    return ir::diagnosticError("'" + host_.name + "' failed (status " + std::to_string(status) + "): " + runtimeMessage());
  }
  for (size_t i = 0; i < params.size(); ++i)
    if (deviceBuffers[i])
      VTABufferCopy(deviceBuffers[i], 0, arguments[i].data(), 0, arguments[i].byteSize(), VTA_MEMCPY_D2H);
  release();
  return llvm::Error::success();
}

backend::PrimFuncCompiler jitCompiler(Lowering lowering, bool countSteps) {
  return [lowering = std::move(lowering), countSteps](
             ir::PrimFuncRef function, llvm::StringRef name) -> llvm::Expected<std::unique_ptr<backend::PrimFuncEngine>> {
    auto lowered = lowering(function, name);
    if (!lowered) return lowered.takeError();
    int level = passes::usesVta(function->body) ? 0 : 2;
    auto compiled = JitFunction::compile(function, *lowered, name.str(), level, true, countSteps);
    if (!compiled) return compiled.takeError();
    return std::unique_ptr<backend::PrimFuncEngine>(std::move(*compiled));
  };
}

}  // namespace vtac::jit
