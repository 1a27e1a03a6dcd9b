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
  // nn.relu, nn.gelu, nn.silu are TVM's legalize_ops/nn.py, the others unary.py.
  case relax::OperatorFamily::ElementwiseUnary:
  case relax::OperatorFamily::FloatUnary:
    return llvm::StringRef(call.callee).starts_with("nn.") ? legalize::legalizeNn(call) : legalize::legalizeUnary(call);
  case relax::OperatorFamily::Softmax:
  case relax::OperatorFamily::LayerNorm:
  case relax::OperatorFamily::BatchNorm: return legalize::legalizeNn(call);
  case relax::OperatorFamily::Matmul: return legalize::legalizeLinearAlgebra(call);
  case relax::OperatorFamily::PermuteDims:
  case relax::OperatorFamily::Reshape:
  case relax::OperatorFamily::Concat:
  case relax::OperatorFamily::ExpandDims:
  case relax::OperatorFamily::Squeeze:
  case relax::OperatorFamily::Flatten:
  case relax::OperatorFamily::BroadcastTo: return legalize::legalizeManipulate(call);
  case relax::OperatorFamily::Split:
  case relax::OperatorFamily::Tile: return legalize::legalizeManipulate(call);
  case relax::OperatorFamily::Astype: return legalize::legalizeDatatype(call);
  case relax::OperatorFamily::Statistical: return legalize::legalizeStatistical(call);
  case relax::OperatorFamily::Conv2D: return legalize::legalizeConvolution(call);
  case relax::OperatorFamily::Pool2D:
  case relax::OperatorFamily::AdaptivePool2D: return legalize::legalizePooling(call);
  case relax::OperatorFamily::Full:
  case relax::OperatorFamily::FullLike:
  case relax::OperatorFamily::Arange: return legalize::legalizeCreate(call);
  case relax::OperatorFamily::Where:
  case relax::OperatorFamily::ArgReduce: return legalize::legalizeSearch(call);
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

namespace {

// Legalizes every operator call of `blocks` in place, those in if branches and local functions
// included; `changed` is set when one was.
llvm::Error legalizeBlocks(ir::IRModule &module, std::vector<relax::BindingBlock> &blocks, bool &changed) {
  for (relax::BindingBlock &block : blocks)
    for (relax::Binding &binding : block.bindings) {
      if (binding.ifElse) {
        // The If is shared with the unlegalized function: legalize a copy.
        auto ifElse = std::make_shared<relax::IfElse>(*binding.ifElse);
        bool branchChanged = false;
        for (relax::IfBranch *branch : {&ifElse->thenBranch, &ifElse->elseBranch})
          if (llvm::Error error = legalizeBlocks(module, branch->blocks, branchChanged)) return error;
        if (branchChanged) binding.ifElse = std::move(ifElse);
        changed |= branchChanged;
        continue;
      }
      if (const ir::RelaxFunction *inner = ir::asRelaxFunction(binding.function)) {
        std::vector<relax::BindingBlock> innerBlocks = inner->blocks;
        bool innerChanged = false;
        if (llvm::Error error = legalizeBlocks(module, innerBlocks, innerChanged)) return error;
        if (innerChanged) {
          auto *copy = ir::copyNode(*inner);
          copy->blocks = std::move(innerBlocks);
          binding.function = ir::FunctionRef(copy);
        }
        changed |= innerChanged;
        continue;
      }
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
  return llvm::Error::success();
}

}  // namespace

llvm::Error legalizeOps(ir::IRModule &module, PassContext &) {
  std::vector<ir::IRModule::Entry> entries = module.functions();
  for (const ir::IRModule::Entry &entry : entries) {
    const ir::RelaxFunction *func = ir::asRelaxFunction(entry.function);
    if (!func) continue;
    std::vector<relax::BindingBlock> blocks = func->blocks;
    bool changed = false;
    if (llvm::Error error = legalizeBlocks(module, blocks, changed)) return error;
    if (!changed) continue;
    auto *copy = ir::copyNode(*func);
    copy->blocks = std::move(blocks);
    module.add(entry.name->name, ir::FunctionRef(copy));
  }
  return llvm::Error::success();
}

}  // namespace vtac::passes
