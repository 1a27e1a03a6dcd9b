// cache_write(block, write_buffer_index, storage_scope, consumer_blocks=None): the block writes
// a new buffer `<buffer>_<scope>` instead, and a new block `<buffer>_<scope>` copies it back to
// the buffer, placed in the enclosing scope before the buffer's first consumer (at the end of
// the scope when there is none). The block must be the buffer's only writer in the scope; the
// region is its write region relaxed over its loops. Returns the copy block.
#include "BufferUtils.h"
#include "CacheStage.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Expected<std::vector<RV>> applyCacheWrite(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> rv = args.block("block");
  if (!rv) return rv.takeError();
  llvm::Expected<int64_t> index = args.integer("write_buffer_index");
  if (!index) return index.takeError();
  llvm::Expected<std::string> storageScope = args.string("storage_scope");
  if (!storageScope) return storageScope.takeError();
  const TraceValue &given = args.value("consumer_blocks");
  if (!(given.kind == TraceValue::Kind::None || (given.kind == TraceValue::Kind::List && given.items.empty())))
    return diagnosticError(args.at("consumer_blocks"), "cache_write: consumer_blocks is not supported yet");
  llvm::Expected<StmtPath> path = sch.findBlock(*rv, args.at("block"));
  if (!path) return path.takeError();
  llvm::Expected<BufferRef> buffer = accessedBuffer(*path->back().as<BlockRealize>()->block, *index, true,
                                                    args.at("write_buffer_index"));
  if (!buffer) return buffer.takeError();

  CacheStage stage;
  stage.func = rv->func;
  stage.scopePath = scopeOf(*path);
  stage.original = *buffer;
  stage.isRead = false;
  const Block &scope = *stage.scopePath.back().as<Block>();
  if (blocksAccessing(scope.body, buffer->get(), true).size() != 1)
    return diagnosticError(args.at("block"), "cache_write: the block '" + rv->name + "' is not the only writer of '" +
                                                 (*buffer)->name + "'");
  std::set<std::string> consumers = blocksTouching(scope.body, buffer->get(), false);
  consumers.erase(rv->name);
  size_t position = firstPositionHolding(scope, consumers);
  if (firstPositionHolding(scope, {rv->name}) >= position && !consumers.empty())
    return diagnosticError(args.stepLoc(), "cache_write: the block '" + rv->name + "' and a consumer of '" +
                                               (*buffer)->name + "' share a statement of the scope");
  stage.region = writtenRegion(*path, buffer->get());
  stage.cache = makeCacheBuffer(*buffer, *storageScope, stage.region);
  std::string name = sch.freshBlockName(rv->func, (*buffer)->name + "_" + *storageScope);
  installCacheStage(sch, stage, {rv->name}, position, makeCacheStage(stage, name));
  return std::vector<RV>{BlockRV{rv->func, name}};
}

}  // namespace vtac::passes::schedule
