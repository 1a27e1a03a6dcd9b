// cache_read(block, read_buffer_index, storage_scope, consumer_blocks=None): a copy of the
// buffer the block reads at read_buffer_index, in `storage_scope`, made by a new block
// `<buffer>_<scope>` placed in the enclosing scope before the first consumer (after the
// buffer's writer, if the scope has one); the consumers (all readers in the scope, or the
// blocks given) read the copy. The copied region is the writer's write region relaxed over its
// loops, or the whole buffer when the scope does not write it. Returns the copy block.
#include "BufferUtils.h"
#include "CacheStage.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Expected<std::vector<RV>> applyCacheRead(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> rv = args.block("block");
  if (!rv) return rv.takeError();
  llvm::Expected<int64_t> index = args.integer("read_buffer_index");
  if (!index) return index.takeError();
  llvm::Expected<std::string> storageScope = storageScopeArgument(args, "cache_read");
  if (!storageScope) return storageScope.takeError();
  llvm::Expected<std::set<std::string>> given = consumerBlocksArgument(args);
  if (!given) return given.takeError();
  llvm::Expected<StmtPath> path = sch.findBlock(*rv, args.at("block"));
  if (!path) return path.takeError();
  llvm::Expected<BufferRef> buffer = accessedBuffer(*path->back().as<BlockRealize>()->block, *index, false,
                                                    args.at("read_buffer_index"));
  if (!buffer) return buffer.takeError();

  CacheStage stage;
  stage.func = rv->func;
  stage.scopePath = scopeOf(*path);
  stage.original = *buffer;
  const Block &scope = *stage.scopePath.back().as<Block>();
  std::vector<StmtPath> writers = blocksAccessing(scope.body, buffer->get(), true);
  if (writers.size() > 1)
    return diagnosticError(args.at("read_buffer_index"), "cache_read: more than one block writes '" + (*buffer)->name + "'");
  std::set<std::string> consumers = given->empty() ? blocksTouching(scope.body, buffer->get(), false) : *given;
  size_t position = 0;
  if (writers.empty()) {
    stage.region = wholeRegion(**buffer);
  } else {
    std::string writer = writers[0].back().as<BlockRealize>()->block->name;
    consumers.erase(writer);
    stage.region = writtenRegion(writers[0], buffer->get());
    position = firstPositionHolding(scope, consumers);
    if (firstPositionHolding(scope, {writer}) >= position)
      return diagnosticError(args.stepLoc(), "cache_read: the writer '" + writer + "' of '" + (*buffer)->name +
                                                 "' and its first consumer share a statement of the scope");
  }
  stage.cache = makeCacheBuffer(*buffer, *storageScope, stage.region);
  std::string name = sch.freshBlockName(rv->func, (*buffer)->name + "_" + *storageScope);
  installCacheStage(sch, stage, consumers, CacheLocation{stage.scopePath, position}, makeCacheStage(stage, name));
  return std::vector<RV>{BlockRV{rv->func, name}};
}

}  // namespace vtac::passes::schedule
