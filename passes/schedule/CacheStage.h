// What cache_read and cache_write share: the copy block (TVM's MakeCacheStage), the place in
// the scope it goes, and the rewrite of the accesses that switch to the cache buffer.
#pragma once

#include <set>

#include "BlockUtils.h"
#include "Primitive.h"

namespace vtac::passes::schedule {

struct CacheStage {
  std::string func;
  StmtPath scopePath;            // ends at the Block of the scope (the block enclosing the target)
  ir::BufferRef original, cache;
  std::vector<ir::Range> region;  // cached region of `original`; the cache buffer has its extents
  bool isRead = true;             // cache_read: original -> cache; cache_write: cache -> original
};

// The region of `buffer` the block at `path` writes, relaxed over the loops of its scope
// (the whole dimension where that cannot be bounded).
std::vector<ir::Range> writtenRegion(const StmtPath &path, const ir::Buffer *buffer);

// `<original>_<scope>`: the original in another scope, shaped like `region`.
ir::BufferRef makeCacheBuffer(const ir::BufferRef &original, const std::string &scope,
                              const std::vector<ir::Range> &region);

// The block's enclosing scope: path up to (and including) the nearest enclosing Block.
StmtPath scopeOf(const StmtPath &blockPath);

// Loops `ax0...` over the region, a block `<original>_<scope>` copying one element per
// iteration between original[min + v] and cache[v].
ir::Stmt makeCacheStage(const CacheStage &stage, const std::string &blockName);

// The index in the scope body's statements of the first one containing a block named in
// `blocks`; the number of statements when none does.
size_t firstPositionHolding(const ir::Block &scope, const std::set<std::string> &blocks);

// Rewrites the accesses of `original` in the blocks named in `blocks` (loads, stores, regions,
// match_buffer sources) to the cache buffer, shifted by the region's min; inserts the copy
// `stageStmt` at `position` of the scope body and allocates the cache buffer in the scope.
void installCacheStage(Schedule &sch, const CacheStage &stage, const std::set<std::string> &blocks,
                       size_t position, const ir::Stmt &stageStmt);

// Names of the blocks under root that read (or write) `buffer`.
std::set<std::string> blocksTouching(const ir::Stmt &root, const ir::Buffer *buffer, bool writers);

}  // namespace vtac::passes::schedule
