// Read/write region inference for blocks (what TVM does when T.reads/T.writes are absent).
//
// For every buffer a block accesses, the regions of all its accesses are unioned per dimension:
// an index that is an affine expression of block iteration variables and loop variables of
// loops inside the block spans the bounds those variables' domains give it; a constant index is
// a point. A dimension whose index is not analysable covers the whole buffer extent. Buffers
// allocated by the block itself are left out. Accesses in `init` count too; a buffer both read
// and written appears in both lists (TVM's rule; opaque accesses such as `B.data` make whole
// buffer regions). Results are in order of first access.
#pragma once

#include <vector>

#include "vtac/ir/Stmt.h"

namespace vtac::ir {

struct BlockAccessRegions {
  std::vector<BufferRegion> reads, writes;
};

BlockAccessRegions inferAccessRegions(const Block &block);

}  // namespace vtac::ir
