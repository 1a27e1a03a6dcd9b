#include "vtac/jit/JitFunction.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/Mangling.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <dlpack/dlpack.h>
#include <llvm/TargetParser/Host.h>
#include <vta/runtime.h>
#include <vta/sim.h>
#include <vtac/parallel.h>

#include "vtac/codegen/LLVMEmitter.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/PassManager.h"

namespace vtac::jit {

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

}  // namespace

llvm::Expected<std::unique_ptr<JitFunction>> JitFunction::compile(const ir::PrimFunc &func, const std::string &name,
                                                                   int optLevel) {
  std::unique_ptr<JitFunction> result(new JitFunction());
  // TensorIR is flattened first, as `vtac compile --passes=tir-lower` would.
  ir::PrimFuncRef flat(&func);
  bool hasBlocks = false;
  ir::preOrderVisit(func.body, [&](const ir::Node &node) { hasBlocks |= node.isa<ir::BlockRealize>(); });
  if (hasBlocks) {
    auto pipeline = passes::parsePipeline("tir-lower", passes::PassRegistry::builtin());
    if (!pipeline) return pipeline.takeError();
    passes::PassContext context;
    auto lowered = passes::PassManager(std::move(*pipeline)).run(flat, name, context);
    if (!lowered) return lowered.takeError();
    flat = *lowered;
  }
  auto host = codegen::lowerForHost(*flat, name, name);
  if (!host) return host.takeError();
  result->host_ = std::move(*host);

  codegen::LLVMEmitOptions options;
  options.optLevel = optLevel;
  options.cpu = llvm::sys::getHostCPUName().str();
  options.features = hostFeatures();
  options.packedEntry = kPackedEntry;
  auto context = std::make_unique<llvm::LLVMContext>();
  auto built = codegen::buildLLVMModule({result->host_}, name, options, *context);
  if (!built) return built.takeError();

  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) return ir::diagnosticError("cannot create the JIT: " + llvm::toString(jit.takeError()));
  result->jit_ = std::move(*jit);
  auto &dylib = result->jit_->getMainJITDylib();
  auto processSymbols = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      result->jit_->getDataLayout().getGlobalPrefix());
  if (!processSymbols) return ir::diagnosticError("JIT: " + llvm::toString(processSymbols.takeError()));
  dylib.addGenerator(std::move(*processSymbols));
  // The thread pool of parallel loops, bound by address (which also keeps its library linked).
  llvm::orc::MangleAndInterner mangle(result->jit_->getExecutionSession(), result->jit_->getDataLayout());
  llvm::orc::SymbolMap pool;
  pool[mangle("vtac_parallel_for")] = {llvm::orc::ExecutorAddr::fromPtr(&vtac_parallel_for), llvm::JITSymbolFlags::Exported};
  if (llvm::Error error = dylib.define(llvm::orc::absoluteSymbols(std::move(pool))))
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

llvm::Error JitFunction::run(llvm::MutableArrayRef<backend::Tensor> arguments) {
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
      deviceBuffers[i] = VTABufferAlloc(std::max<size_t>(tensor.byteSize(), 1));
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
  int32_t status = entry_(slots.data());
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

}  // namespace vtac::jit
