// lower-match-buffer (TVM's LowerMatchBuffer): removes the `T.match_buffer(A[region], ...)`
// views of blocks (what tensorize leaves): every access to the view becomes an access to its
// source (index + the region's start), reads/writes regions likewise, and the view's symbolic
// parts are bound and substituted wherever they occur — its data to the source's, its
// elem_offset to the region start's flat offset, its strides to the source's (or the
// row-major strides of the source's shape), its shape variables to the region's extents.
// Errors, at the block: the view's scope or dtype differs from the source's, a region start
// whose flat offset is not provably a multiple of the view's offset_factor (VTA's tensorize
// relies on that alignment), a bound part that contradicts another binding. Deviation from
// TVM: a view without its own elem_offset variable takes the region's offset silently (vtac's
// frontend does not create one for `offset_factor=`, TVM's does). Expects TensorIR; matched
// views of function parameters are left to the function's buffer map.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> lowerMatchBuffer(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
