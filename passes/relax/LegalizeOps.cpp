#include "relax/LegalizeOps.h"

#include "legalize/Legalize.h"
#include "vtac/ir/StructuralEqual.h"

namespace vtac::passes {

namespace relax = ir::relax;

namespace {

llvm::Expected<legalize::LegalizedOperator> legalizeCall(const relax::Call &call) {
  switch (relax::lookupOperator(call.callee)->family) {
  case relax::OperatorFamily::ElementwiseBinary:
  case relax::OperatorFamily::Comparison:
  case relax::OperatorFamily::BitwiseBinary: return legalize::legalizeBinary(call);
  case relax::OperatorFamily::Clip: return legalize::legalizeClip(call);
  case relax::OperatorFamily::ElementwiseUnary: return legalize::legalizeNn(call);
  case relax::OperatorFamily::Matmul: return legalize::legalizeLinearAlgebra(call);
  case relax::OperatorFamily::PermuteDims:
  case relax::OperatorFamily::Reshape:
  case relax::OperatorFamily::Concat:
  case relax::OperatorFamily::ExpandDims:
  case relax::OperatorFamily::Squeeze:
  case relax::OperatorFamily::Flatten:
  case relax::OperatorFamily::Split: return legalize::legalizeManipulate(call);
  case relax::OperatorFamily::Astype: return legalize::legalizeDatatype(call);
  case relax::OperatorFamily::Statistical: return legalize::legalizeStatistical(call);
  case relax::OperatorFamily::Conv2D: return legalize::legalizeConvolution(call);
  case relax::OperatorFamily::Pool2D:
  case relax::OperatorFamily::AdaptivePool2D: return legalize::legalizePooling(call);
  case relax::OperatorFamily::Full:
  case relax::OperatorFamily::FullLike:
  case relax::OperatorFamily::Arange: return legalize::legalizeCreate(call);
  case relax::OperatorFamily::Where: return legalize::legalizeSearch(call);
  case relax::OperatorFamily::Take:
  case relax::OperatorFamily::StridedSlice: return legalize::legalizeIndex(call);
  case relax::OperatorFamily::Quantize: return legalize::legalizeQdq(call);
  }
  llvm_unreachable("every operator family has a legalization");
}

}  // namespace

std::string addPrimFunc(ir::IRModule &module, const ir::PrimFuncRef &func, const std::string &hint) {
  for (const ir::IRModule::Entry &entry : module.functions())
    if (const auto *prim = entry.function->as<ir::PrimFunc>(); prim && ir::structuralEqual(*prim, *func))
      return entry.name->name;
  std::string name = hint;
  for (unsigned suffix = 1; module.lookup(name); ++suffix) name = hint + std::to_string(suffix);
  module.add(name, func);
  return name;
}

llvm::Error legalizeOps(ir::IRModule &module, PassContext &) {
  std::vector<ir::IRModule::Entry> entries = module.functions();
  for (const ir::IRModule::Entry &entry : entries) {
    const ir::RelaxFunction *func = ir::asRelaxFunction(entry.function);
    if (!func) continue;
    std::vector<relax::BindingBlock> blocks = func->blocks;
    bool changed = false;
    for (relax::BindingBlock &block : blocks)
      for (relax::Binding &binding : block.bindings) {
        if (!binding.call || binding.call->kind != relax::CallKind::Operator) continue;
        relax::Call &call = *binding.call;
        llvm::Expected<legalize::LegalizedOperator> legalized = legalizeCall(call);
        if (!legalized) return legalized.takeError();
        changed = true;
        if (legalized->constant) {
          binding.alias = relax::Arg{};
          binding.alias.constant = legalized->constant;
          binding.alias.loc = call.calleeLoc;
          binding.call.reset();
          continue;
        }
        call.kind = relax::CallKind::CallTIR;
        call.callee = addPrimFunc(module, legalized->func, legalized->nameHint);
        call.args = legalized->args;
        call.axes.reset();
        call.keepdims = false;
        call.outDtype = ir::DataType::voidTy();
        call.attrs = relax::OperatorAttrs();
      }
    if (!changed) continue;
    auto *copy = ir::copyNode(*func);
    copy->blocks = std::move(blocks);
    module.add(entry.name->name, ir::FunctionRef(copy));
  }
  return llvm::Error::success();
}

}  // namespace vtac::passes
