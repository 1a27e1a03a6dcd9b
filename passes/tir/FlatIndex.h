// Where an element of a buffer lies in its flat memory (TVM's Buffer::ElemOffset), shared by
// lower-match-buffer (a matched region's element offset) and flatten-buffer (N-d -> 1-d).
#pragma once

#include <vector>

#include "vtac/ir/Expr.h"

namespace vtac::passes {

// The buffer's strides: its own, or row-major ones from its shape (innermost 1).
std::vector<ir::Expr> stridesOf(const ir::Buffer &buffer);

// elem_offset + sum(indices[k] * strides[k]), in simplify()'s canonical form: `i * 16 + j`.
ir::Expr flatIndex(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices);

}  // namespace vtac::passes
