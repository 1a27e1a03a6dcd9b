// The interpreter as the oracle of a transformation: runs each prim_func of `before` and its
// namesake in `after` on the same seeded random inputs (RandomFill.h) and compares every
// parameter afterwards, bit for bit (the passes vtac checks this way do not reassociate floats);
// runs each Relax function of both on the graph executor (high-level operators legalized
// first, as `vtac run` runs them; --size for the symbolic sizes) and compares the results.
// With `onlyFunction` (vtac opt --func), only that function is run: the others were not
// transformed, and their symbolic sizes need not be given.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/ir/Function.h"

namespace vtac::driver {

llvm::Error checkEquivalence(const ir::IRModule &before, const ir::IRModule &after, uint64_t seed,
                             const std::vector<std::pair<std::string, int64_t>> &sizes,
                             std::ostream &report, llvm::StringRef onlyFunction = "");

}  // namespace vtac::driver
