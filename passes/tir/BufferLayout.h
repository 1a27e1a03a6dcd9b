// How an allocated buffer is laid out, shared by lower-opaque-block (which turns alloc_buffers
// into Allocates) and compact-buffer-allocation (which shrinks them): the extents an allocation
// needs for a buffer's strides, and the storage alignments TVM's storage_align records as
// "buffer_dim_align" ([buffer_index, axis, factor, offset] lists; on the block that writes the
// buffer, buffer_index into its writes, and after lower-opaque-block on the Allocate, index -1).
#pragma once

#include <unordered_map>
#include <vector>

#include "vtac/ir/Stmt.h"

namespace vtac::passes {

// What a buffer needs allocated: its shape, or with strides the extents the strides imply.
std::vector<ir::Expr> allocationShape(const ir::Buffer &buffer);

// One axis's requested stride: factor * k + offset.
struct DimAlignment {
  int64_t axis, factor, offset;
};
using StorageAlignments = std::unordered_map<const ir::Var *, std::vector<DimAlignment>>;

// Every well-formed buffer_dim_align entry under `body`, by the data variable of its buffer.
StorageAlignments collectStorageAlignments(const ir::Stmt &body);

// Row-major strides for `shape` with each aligned axis's stride rounded up to factor * k + offset
// (TVM's compacted buffers); empty when nothing is aligned.
std::vector<ir::Expr> alignedStrides(const std::vector<DimAlignment> &aligns, const std::vector<ir::Expr> &shape);

// The Allocate annotation value that carries `aligns` (buffer index -1).
ir::AttrValue allocationAlignAnnotation(const std::vector<DimAlignment> &aligns);

}  // namespace vtac::passes
