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

llvm::Expected<std::vector<RV>> applyCacheWrite(Schedule &sch, StepArgs &args) {
  // Consumers first: TVM's Python API looks up the blocks given by name in that order.
  llvm::Expected<std::set<std::string>> given = consumerBlocksArgument(args);
  if (!given) return given.takeError();
  llvm::Expected<BlockRV> rv = args.block("block");
  if (!rv) return rv.takeError();
  llvm::Expected<std::string> storageScope = storageScopeArgument(args, "cache_write");
  if (!storageScope) return storageScope.takeError();
  llvm::Expected<StmtPath> path = sch.findBlock(*rv, args.at("block"));
  if (!path) return path.takeError();
  llvm::Expected<int64_t> index = args.bufferIndex("write_buffer_index", *path->back().as<BlockRealize>()->block, true);
  if (!index) return index.takeError();
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
  std::set<std::string> stillReading = blocksTouching(scope.body, buffer->get(), false);
  stillReading.erase(rv->name);
  for (const std::string &consumer : *given) {
    if (!stillReading.erase(consumer))
      return diagnosticError(args.at("consumer_blocks"), "cache_write: consumer_blocks names '" + consumer +
                                                             "', which does not read the buffer '" + (*buffer)->name + "'");
  }
  CacheLocation location = cacheLocation(stage.scopePath, rv->name, stillReading);
  placeCacheStage(stage, *path, location, *storageScope);
  std::string name = sch.freshBlockName(rv->func, (*buffer)->name + "_" + *storageScope);
  std::set<std::string> rewritten = *given;
  rewritten.insert(rv->name);
  installCacheStage(sch, stage, rewritten, location, makeCacheStage(stage, name, args.stepLoc()));
  return std::vector<RV>{BlockRV{rv->func, name}};
}

}  // namespace vtac::passes::schedule
