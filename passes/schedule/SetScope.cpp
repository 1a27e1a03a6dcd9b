// set_scope(block, buffer_index, storage_scope): the buffer the block writes at buffer_index
// moves to another storage scope. It must be allocated by a block (T.alloc_buffer), not a
// parameter; every use in the function then refers to the re-scoped buffer, and so do the
// match_buffers of its regions. The scope must be one TVM knows (global, shared, local, ... with
// an optional tag, e.g. local.acc_buffer).
#include "BufferUtils.h"
#include "Primitive.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Expected<std::vector<RV>> applySetScope(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> rv = args.block("block");
  if (!rv) return rv.takeError();
  llvm::Expected<std::string> scope = args.string("storage_scope");
  if (!scope) return scope.takeError();
  if (scope->empty()) return diagnosticError(args.at("storage_scope"), "set_scope: the storage scope is empty");
  if (std::string why = whyNotStorageScope("set_scope", *scope); !why.empty())
    return diagnosticError(args.at("storage_scope"), why);
  llvm::Expected<StmtPath> path = sch.findBlock(*rv, args.at("block"));
  if (!path) return path.takeError();
  llvm::Expected<int64_t> index = args.bufferIndex("buffer_index", *path->back().as<BlockRealize>()->block, true);
  if (!index) return index.takeError();
  llvm::Expected<BufferRef> buffer = accessedBuffer(*path->back().as<BlockRealize>()->block, *index, true,
                                                    args.at("buffer_index"));
  if (!buffer) return buffer.takeError();
  llvm::Expected<PrimFuncRef> func = sch.function(rv->func, args.stepLoc());
  if (!func) return func.takeError();
  if (!allocatedByBlock((*func)->body, buffer->get()))
    return diagnosticError(args.at("buffer_index"), "set_scope: the buffer '" + (*buffer)->name +
                                                        "' is not allocated by a block (a parameter cannot change scope)");
  if ((*buffer)->scope() == *scope) return std::vector<RV>{};
  // The buffers that match a region of it move with it, as in TVM.
  std::map<const Buffer *, BufferRef> rescoped{{buffer->get(), withScope(*buffer, *scope)}};
  preOrderVisit((*func)->body, [&](const Node &node) {
    if (const auto *block = node.as<Block>())
      for (const MatchBufferRegion &match : block->matchBuffers)
        if (match.source.buffer == *buffer) rescoped[match.buffer.get()] = withScope(match.buffer, *scope);
  });
  sch.setBody(rv->func, replaceBuffers((*func)->body, rescoped));
  return std::vector<RV>{};
}

}  // namespace vtac::passes::schedule
