// Buffer helpers the cache and scope primitives share.
#pragma once

#include <map>

#include "vtac/passes/schedule/Schedule.h"

namespace vtac::passes::schedule {

// `buffer` with a fresh data variable in storage scope `scope` (name kept unless given).
ir::BufferRef withScope(const ir::BufferRef &buffer, const std::string &scope, std::string name = "");

// Replaces buffers in loads, stores, block regions, allocations and match_buffers (both sides).
ir::Stmt replaceBuffers(const ir::Stmt &stmt, const std::map<const ir::Buffer *, ir::BufferRef> &replacements);

// The index-th read (isWrite false) or write region of the block, or an error at `at`.
llvm::Expected<ir::BufferRef> accessedBuffer(const ir::Block &block, int64_t index, bool isWrite, ir::SourceLoc at);

// The child blocks (BlockRealize paths; blocks nested in those are not searched) under `root`
// that read / write `buffer`, in program order.
std::vector<StmtPath> blocksAccessing(const ir::Stmt &root, const ir::Buffer *buffer, bool writers);

// [0, extent) in every dimension of the buffer.
std::vector<ir::Range> wholeRegion(const ir::Buffer &buffer);

// Whether some block under `root` allocates `buffer` (T.alloc_buffer; not a parameter or a
// match_buffer).
bool allocatedByBlock(const ir::Stmt &root, const ir::Buffer *buffer);

// Whether the block's read (or write) regions name `buffer`.
bool accessesBuffer(const ir::Block &block, const ir::Buffer *buffer, bool writes);

// The error for a storage scope TVM does not know, naming the known ones ("<primitive>: 'x' is
// not a storage scope (global, ...)"); empty when `scope` is one.
std::string whyNotStorageScope(const std::string &primitive, const std::string &scope);

}  // namespace vtac::passes::schedule
