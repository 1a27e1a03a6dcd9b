// Where an element of a buffer lies in its flat memory (TVM's Buffer::ElemOffset), shared by
// lower-match-buffer (a matched region's element offset) and flatten-buffer (N-d -> 1-d).
#pragma once

#include <utility>
#include <vector>

#include "vtac/ir/Expr.h"

namespace vtac::passes {

// The buffer's strides: its own, or row-major ones from its shape (innermost 1).
std::vector<ir::Expr> stridesOf(const ir::Buffer &buffer);

// elem_offset + sum(indices[k] * strides[k]), in simplify()'s canonical form: `i * 16 + j`.
ir::Expr flatIndex(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices);

// The buffer's axis groups (TVM's axis_separators split the axes into consecutive groups; no
// separators: one group of all axes) as [begin, end) axis ranges.
std::vector<std::pair<size_t, size_t>> axisGroups(const ir::Buffer &buffer);

// One index per axis group: the group's indices flattened with its own row-major strides (or
// the buffer's strides). Without separators, {flatIndex(buffer, indices)}. The element offset
// must be zero when there are separators (TVM allows it on flat buffers only).
std::vector<ir::Expr> groupedFlatIndices(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices);

}  // namespace vtac::passes
