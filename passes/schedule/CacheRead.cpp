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

llvm::Expected<std::vector<RV>> applyCacheRead(Schedule &sch, StepArgs &args) {
  // Consumers first: TVM's Python API looks up the blocks given by name in that order.
  llvm::Expected<std::set<std::string>> given = consumerBlocksArgument(args);
  if (!given) return given.takeError();
  llvm::Expected<BlockRV> rv = args.block("block");
  if (!rv) return rv.takeError();
  llvm::Expected<std::string> storageScope = storageScopeArgument(args, "cache_read");
  if (!storageScope) return storageScope.takeError();
  llvm::Expected<StmtPath> path = sch.findBlock(*rv, args.at("block"));
  if (!path) return path.takeError();
  llvm::Expected<int64_t> index = args.bufferIndex("read_buffer_index", *path->back().as<BlockRealize>()->block, false);
  if (!index) return index.takeError();
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
  CacheLocation location{stage.scopePath, 0};
  if (writers.empty()) {
    // An input of the scope: the region the scope block reads, as TVM takes it.
    auto read = std::find_if(scope.reads.begin(), scope.reads.end(),
                             [&](const BufferRegion &region) { return region.buffer == *buffer; });
    stage.region = read != scope.reads.end() ? read->region : wholeRegion(**buffer);
    stage.cache = makeCacheBuffer(*buffer, *storageScope, stage.region);
  } else {
    std::string writer = writers[0].back().as<BlockRealize>()->block->name;
    consumers.erase(writer);
    llvm::Expected<StmtPath> writerPath = sch.findBlock(BlockRV{rv->func, writer}, args.at("block"));
    if (!writerPath) return writerPath.takeError();
    location = cacheLocation(stage.scopePath, writer, consumers);
    placeCacheStage(stage, *writerPath, location, *storageScope);
  }
  std::string name = sch.freshBlockName(rv->func, (*buffer)->name + "_" + *storageScope);
  installCacheStage(sch, stage, consumers, location, makeCacheStage(stage, name, args.stepLoc()));
  return std::vector<RV>{BlockRV{rv->func, name}};
}

}  // namespace vtac::passes::schedule
