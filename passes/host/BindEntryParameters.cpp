#include "host/BindEntryParameters.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/EntryBinding.h"
#include "vtac/passes/Vta.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> bindFunctionEntry(const ir::PrimFuncRef &func, PassContext &) {
  const ir::AttrValue *symbol = func->attrs.find("global_symbol");
  bool hasBlocks = false;
  ir::preOrderVisit(func->body, [&](const ir::Node &node) { hasBlocks |= node.isa<ir::BlockRealize>(); });
  if (ir::isEntryBound(*func) || hasBlocks || !symbol || !symbol->isString()) return func;

  bool vta = usesVta(func->body);
  std::vector<EntryParam> params;
  std::vector<ir::VarRef> handles;
  std::vector<std::pair<ir::VarRef, ir::BufferRef>> bufferMap;
  for (const ir::VarRef &param : func->params) {
    EntryParam entry;
    entry.buffer = func->bufferOf(param);
    entry.onVta = vta && entry.buffer;
    if (entry.buffer) {
      // The DLTensor the caller passes, not the buffer's data (bound from it).
      entry.var = ir::makeVar(param->name, ir::DataType::handle(), param->loc());
      bufferMap.emplace_back(entry.var, entry.buffer);
    } else if (param->dtype.isScalar() && !param->dtype.isHandle()) {
      entry.var = param;
    } else {
      return ir::diagnosticError(param->loc(), "parameter '" + param->name +
                                                   "' is neither a buffer nor a scalar: it cannot be passed to compiled code");
    }
    handles.push_back(entry.var);
    params.push_back(std::move(entry));
  }
  auto body = bindEntryParameters(symbol->asString(), /*graph=*/false, params, func->body);
  if (!body) return body.takeError();
  ir::PrimFunc *bound = ir::copyNode(*func);
  bound->params = std::move(handles);
  bound->bufferMap = std::move(bufferMap);
  bound->body = std::move(*body);
  bound->attrs.set(ir::kEntryBoundAttr, true);
  return ir::PrimFuncRef(bound);
}

}  // namespace vtac::passes
