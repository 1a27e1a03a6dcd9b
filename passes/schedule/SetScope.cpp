// set_scope(block, buffer_index, storage_scope): the buffer the block writes at buffer_index
// moves to another storage scope. It must be allocated by a block (T.alloc_buffer), not a
// parameter; every use in the function then refers to the re-scoped buffer, and so do the
// match_buffers of its regions. The scope must be one TVM knows (global, shared, local, ... with
// an optional tag, e.g. local.acc_buffer).
#include "BufferUtils.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Error setScope(Schedule &sch, const Located<BlockRV> &block, const Located<int64_t> &bufferIndex,
                     const Located<std::string> &storageScope) {
  const std::string &scope = storageScope.value;
  if (scope.empty()) return diagnosticError(storageScope.at, "set_scope: the storage scope is empty");
  if (std::string why = whyNotStorageScope("set_scope", scope); !why.empty()) return diagnosticError(storageScope.at, why);
  llvm::Expected<StmtPath> path = sch.findBlock(block.value, block.at);
  if (!path) return path.takeError();
  llvm::Expected<BufferRef> buffer =
      accessedBuffer(*path->back().as<BlockRealize>()->block, bufferIndex.value, true, bufferIndex.at);
  if (!buffer) return buffer.takeError();
  llvm::Expected<PrimFuncRef> func = sch.function(block.value.func, block.at);
  if (!func) return func.takeError();
  if (!allocatedByBlock((*func)->body, buffer->get()))
    return diagnosticError(bufferIndex.at, "set_scope: the buffer '" + (*buffer)->name +
                                               "' is not allocated by a block (a parameter cannot change scope)");
  if ((*buffer)->scope() == scope) return llvm::Error::success();
  // The buffers that match a region of it move with it, as in TVM.
  std::map<const Buffer *, BufferRef> rescoped{{buffer->get(), withScope(*buffer, scope)}};
  preOrderVisit((*func)->body, [&](const Node &node) {
    if (const auto *block = node.as<Block>())
      for (const MatchBufferRegion &match : block->matchBuffers)
        if (match.source.buffer == *buffer) rescoped[match.buffer.get()] = withScope(match.buffer, scope);
  });
  sch.setBody(block.value.func, replaceBuffers((*func)->body, rescoped));
  return llvm::Error::success();
}

}  // namespace vtac::passes::schedule
