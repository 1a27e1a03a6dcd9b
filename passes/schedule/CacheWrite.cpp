// cache_write(block, write_buffer_index, storage_scope, consumer_blocks=None): the block writes
// a new buffer `<buffer>_<scope>` instead, and a new block `<buffer>_<scope>` copies it back to
// the buffer. The consumer blocks given read the new buffer directly; the copy goes right after
// the block's subtree in the innermost loop (or the scope) that also holds a consumer still
// reading the buffer (at the end of the scope when there is none), as TVM's CacheLocDetector
// places it. The block must be the buffer's only writer in the scope; the region is its write
// region relaxed over the loops below that place. A copy inside a loop keeps the buffer's shape
// and indices (TVM's cache_full_region); one in the scope is shaped like the region. Returns the
// copy block.
#include "BlockTree.h"
#include "BufferUtils.h"
#include "CacheStage.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Expected<BlockRV> cacheWrite(Schedule &sch, const Located<BlockRV> &block, const Located<int64_t> &writeBufferIndex,
                                   const Located<std::string> &storageScope,
                                   const Located<std::vector<BlockRV>> &consumerBlocks, ir::SourceLoc stepAt) {
  const BlockRV &rv = block.value;
  std::set<std::string> given = blockNames(consumerBlocks.value);
  llvm::Expected<CacheTarget> target = cacheTarget(sch, block, writeBufferIndex, /*isWrite=*/true, storageScope, "cache_write");
  if (!target) return target.takeError();
  CacheStage &stage = target->stage;
  const BufferRef buffer = stage.original;
  const Block &scope = *stage.scopePath.back().as<Block>();
  if (blocksAccessing(scope.body, buffer.get(), true).size() != 1)
    return diagnosticError(block.at, "cache_write: the block '" + rv.name + "' is not the only writer of '" +
                                         buffer->name + "'");
  std::set<std::string> stillReading = blocksTouching(scope.body, buffer.get(), false);
  stillReading.erase(rv.name);
  for (const std::string &consumer : given) {
    if (!stillReading.erase(consumer))
      return diagnosticError(consumerBlocks.at, "cache_write: consumer_blocks names '" + consumer +
                                                    "', which does not read the buffer '" + buffer->name + "'");
  }
  CacheLocation location = cacheLocation(stage.scopePath, rv.name, stillReading);
  placeCacheStage(stage, target->blockPath, location, storageScope.value);
  std::string name = sch.freshBlockName(rv.func, buffer->name + "_" + storageScope.value);
  std::set<std::string> rewritten = given;
  rewritten.insert(rv.name);
  installCacheStage(sch, stage, rewritten, location, makeCacheStage(stage, name, stepAt));
  return BlockRV{rv.func, name};
}

}  // namespace vtac::passes::schedule
