#include "vtac/backend/Interpreter.h"

#include <cstring>

#include "interp/Compiler.h"
#include "vtac/backend/Diagnostic.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/EntryBinding.h"
#include "vtac/passes/Vta.h"

namespace vtac::backend {

using interp::FunctionCompiler;
using interp::VarInfo;
using interp::VarKind;

CompiledFunction::CompiledFunction(FunctionSignature signature) : FunctionSignature(std::move(signature)) {}

CompiledFunction::~CompiledFunction() = default;

llvm::Expected<std::unique_ptr<CompiledFunction>>
CompiledFunction::compile(ir::PrimFuncRef function, llvm::StringRef name, const ExternRegistry &registry) {
  // Its buffer parameters are DLTensor handles now, read through the compiled ABI's ops.
  if (ir::isEntryBound(*function))
    return ir::diagnosticError(function->loc(), "function '" + name.str() + "' has its compiled entry bound "
                                                "(bind-entry-parameters): the interpreter runs it before host-lower");
  auto signature = FunctionSignature::of(function, name);
  if (!signature) return signature.takeError();
  std::unique_ptr<CompiledFunction> compiled(new CompiledFunction(std::move(*signature)));
  compiled->registry_ = &registry;
  FunctionCompiler compiler(registry);

  compiled->paramSlots_.resize(function->params.size());
  // Scalars first: a buffer's shape may name a scalar parameter.
  for (size_t i = 0; i < function->params.size(); ++i) {
    const ir::VarRef &param = function->params[i];
    if (compiled->params_[i].isBuffer) continue;
    int slot = compiler.newSlot();
    compiler.bindForever(param.get(), {slot, FunctionCompiler::kindOf(param->dtype), param->dtype});
    compiled->paramSlots_[i] = slot;
  }
  for (size_t i = 0; i < function->params.size(); ++i) {
    const ParamInfo &info = compiled->params_[i];
    if (!info.isBuffer) continue;
    int slot = compiler.newSlot();
    compiler.bindForever(function->params[i].get(), {slot, VarKind::Storage, ir::DataType::handle()});
    compiler.bindForever(info.buffer->data.get(), {slot, VarKind::Storage, ir::DataType::handle()});
    compiled->paramSlots_[i] = slot;
  }
  for (const ir::Var *var : compiled->sizeVars_) {
    int sizeSlot = compiler.newSlot();
    compiler.bindForever(var, {sizeSlot, VarKind::Int, var->dtype});
    compiled->sizeSlots_.push_back({var, sizeSlot});
  }
  // The micro-kernels capture what the code generators' do (and TVM's runtime takes).
  compiled->closedBody_ = passes::closeUopKernels(function->body);
  compiled->body_ = compiler.compileStmt(compiled->closedBody_);
  if (llvm::Error error = compiler.takeError()) return error;
  compiled->numSlots_ = compiler.numSlots();
  compiled->usesDeviceMemory_ = compiler.usesDeviceMemory();
  return compiled;
}

llvm::Error CompiledFunction::run(llvm::MutableArrayRef<Tensor> arguments, const RunLimits &limits) {
  if (arguments.size() != params_.size())
    return diagnosticError("'" + name_ + "' takes " + llvm::Twine(params_.size()) + " arguments, got " +
                           llvm::Twine(arguments.size()));
  std::vector<const Tensor *> given;
  for (const Tensor &tensor : arguments) given.push_back(&tensor);
  auto sizes = bindSizes(given);
  if (!sizes) return sizes.takeError();

  const DeviceMemory *device = usesDeviceMemory_ ? registry_->deviceMemory() : nullptr;
  interp::Frame frame(size_t(numSlots_), device, limits);
  for (const SizeSlot &size : sizeSlots_) {
    auto it = sizes->find(size.var);
    if (it != sizes->end()) frame.slots[size.slot].i = interp::IntType::of(size.var->dtype).wrap(it->second);
  }
  std::vector<std::unique_ptr<interp::Storage>> storages(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor &tensor = arguments[i];
    interp::Slot &slot = frame.slots[paramSlots_[i]];
    if (!params_[i].isBuffer) {
      if (params_[i].dtype.isFloat())
        slot.f = tensor.doubleAt(0);
      else
        slot.i = interp::IntType::of(params_[i].dtype).wrap(tensor.intAt(0));
      continue;
    }
    auto storage = interp::allocateStorage(int64_t(tensor.byteSize()), device);
    if (!storage)
      return diagnosticError("cannot allocate parameter '" + params_[i].name + "': " +
                             errorMessage(storage.takeError()));
    if (tensor.byteSize()) std::memcpy((*storage)->data, tensor.data(), tensor.byteSize());
    slot.p = storage->get();
    storages[i] = std::move(*storage);
  }

  body_->exec(frame);
  frame.limiter.finish();
  statementsExecuted_ = frame.statements;
  if (frame.trapped) return diagnosticError(frame.trapLoc, frame.trapMessage);
  for (size_t i = 0; i < params_.size(); ++i)
    if (storages[i] && arguments[i].byteSize())
      std::memcpy(arguments[i].data(), storages[i]->data, arguments[i].byteSize());
  return llvm::Error::success();
}

}  // namespace vtac::backend
