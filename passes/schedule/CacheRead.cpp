// cache_read(block, read_buffer_index, storage_scope, consumer_blocks=None): a copy of the
// buffer the block reads at read_buffer_index, in `storage_scope`, made by a new block
// `<buffer>_<scope>`; the consumers (all readers in the scope, or the blocks given) read the
// copy. When the scope writes the buffer, the copy goes right after the writer's subtree in the
// innermost loop (or the scope) that also holds a consumer, as TVM's CacheLocDetector places
// it, and copies the writer's region relaxed over the loops below that place. Otherwise it goes
// first in the scope and copies the region the scope block reads (the whole buffer when it
// declares none). Returns the copy block.
#include "BlockTree.h"
#include "BufferUtils.h"
#include "CacheStage.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Expected<BlockRV> cacheRead(Schedule &sch, const Located<BlockRV> &block, const Located<int64_t> &readBufferIndex,
                                  const Located<std::string> &storageScope,
                                  const Located<std::vector<BlockRV>> &consumerBlocks, ir::SourceLoc stepAt) {
  const BlockRV &rv = block.value;
  std::set<std::string> given = blockNames(consumerBlocks.value);
  llvm::Expected<CacheTarget> target = cacheTarget(sch, block, readBufferIndex, /*isWrite=*/false, storageScope, "cache_read");
  if (!target) return target.takeError();
  CacheStage &stage = target->stage;
  const BufferRef buffer = stage.original;
  const Block &scope = *stage.scopePath.back().as<Block>();
  std::vector<StmtPath> writers = blocksAccessing(scope.body, buffer.get(), true);
  if (writers.size() > 1)
    return diagnosticError(readBufferIndex.at, "cache_read: more than one block writes '" + buffer->name + "'");
  std::set<std::string> consumers = given.empty() ? blocksTouching(scope.body, buffer.get(), false) : given;
  CacheLocation location{stage.scopePath, 0};
  if (writers.empty()) {
    // An input of the scope: the region the scope block reads, as TVM takes it.
    auto read = std::find_if(scope.reads.begin(), scope.reads.end(),
                             [&](const BufferRegion &region) { return region.buffer == buffer; });
    stage.region = read != scope.reads.end() ? read->region : wholeRegion(*buffer);
    stage.cache = makeCacheBuffer(buffer, storageScope.value, stage.region);
  } else {
    std::string writer = writers[0].back().as<BlockRealize>()->block->name;
    consumers.erase(writer);
    llvm::Expected<StmtPath> writerPath = sch.findBlock(BlockRV{rv.func, writer}, block.at);
    if (!writerPath) return writerPath.takeError();
    location = cacheLocation(stage.scopePath, writer, consumers);
    placeCacheStage(stage, *writerPath, location, storageScope.value);
  }
  std::string name = sch.freshBlockName(rv.func, buffer->name + "_" + storageScope.value);
  installCacheStage(sch, stage, consumers, location, makeCacheStage(stage, name, stepAt));
  return BlockRV{rv.func, name};
}

}  // namespace vtac::passes::schedule
