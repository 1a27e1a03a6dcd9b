// What cache_read and cache_write share: the copy block (TVM's MakeCacheStage), the place in
// the scope it goes, and the rewrite of the accesses that switch to the cache buffer.
#pragma once

#include <set>

#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

struct CacheStage {
  std::string func;
  StmtPath scopePath;            // ends at the Block of the scope (the block enclosing the target)
  ir::BufferRef original, cache;
  std::vector<ir::Range> region;  // cached region of `original`
  bool isRead = true;             // cache_read: original -> cache; cache_write: cache -> original
  // The cache has the original's shape and indices (TVM's cache_full_region, when the stage sits
  // inside a loop); otherwise it has the region's extents and is indexed from the region's min.
  bool fullRegion = false;
};

// Where a cache stage goes: into the body of path.back() (the scope's Block or a For), before
// its statement `position`.
struct CacheLocation {
  StmtPath path;
  size_t position = 0;
};

// TVM's CacheLocDetector: right after the writer's subtree, in the innermost statement sequence
// (of the scope or of a loop) that also holds a block of `related` (cache_read: the consumers;
// cache_write: the consumers that keep reading the original); at the end of the scope when
// `related` is empty.
CacheLocation cacheLocation(const StmtPath &scopePath, const std::string &writer, const std::set<std::string> &related);

// Places the stage at `location` for the writer at `writerPath`: the region is its write region
// relaxed over the loops below the location; a stage inside a loop keeps the original's shape
// and indices (TVM's cache_full_region), one in the scope is shaped like the region.
void placeCacheStage(CacheStage &stage, const StmtPath &writerPath, const CacheLocation &location,
                     const std::string &storageScope);

// The region of `buffer` the block at `path` writes, relaxed over the loops of its scope that
// are below path[relaxFrom] (the whole dimension where that cannot be bounded) and narrowed by
// the block's predicate where it bounds an index itself (TVM's RelaxBufferRegion).
std::vector<ir::Range> writtenRegion(const StmtPath &path, const ir::Buffer *buffer, size_t relaxFrom);

// `<original>_<scope>`: the original in another scope, shaped like `region`.
ir::BufferRef makeCacheBuffer(const ir::BufferRef &original, const std::string &scope,
                              const std::vector<ir::Range> &region);

// Loops `ax0...` over the region, a block `<original>_<scope>` copying one element per
// iteration between original[min + v] and cache[v] (with fullRegion: v bound to min + ax,
// the same index on both sides).
// The copy's loops, block and store carry `loc` (the cache_read/cache_write step), so that a later
// pass's diagnostic about the copy points at the step that made it.
ir::Stmt makeCacheStage(const CacheStage &stage, const std::string &blockName, ir::SourceLoc loc);

// Inserts the copy `stageStmt` at `location`, rewrites the accesses of `original` in the blocks
// named in `blocks` (loads, stores, regions, match_buffer sources) to the cache buffer (shifted
// by the region's min unless fullRegion) and allocates the cache buffer in the scope.
void installCacheStage(Schedule &sch, const CacheStage &stage, const std::set<std::string> &blocks,
                       const CacheLocation &location, const ir::Stmt &stageStmt);

// What cache_read and cache_write start from, once `primitive` has checked that TVM knows the
// storage scope: the block's path and a stage of the buffer it reads (isWrite: writes) at
// `index`, in the block's scope.
struct CacheTarget {
  StmtPath blockPath;
  CacheStage stage;
};
llvm::Expected<CacheTarget> cacheTarget(Schedule &sch, const Located<BlockRV> &block, const Located<int64_t> &index,
                                        bool isWrite, const Located<std::string> &storageScope,
                                        const std::string &primitive);

// The names of the consumer blocks given.
std::set<std::string> blockNames(const std::vector<BlockRV> &blocks);

// Names of the blocks under root that read (or write) `buffer`.
std::set<std::string> blocksTouching(const ir::Stmt &root, const ir::Buffer *buffer, bool writers);

}  // namespace vtac::passes::schedule
