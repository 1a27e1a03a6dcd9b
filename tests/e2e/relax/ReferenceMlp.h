// Seed 004's two-layer MLP computed directly in C++ (no IR, no vtac): the reference every graph
// run of the MLP modules is compared with, by the unit tests and the end-to-end data tool.
#pragma once

#include "vtac/backend/Tensor.h"

namespace vtac::relax_test {

// relu(x @ w0.T + b0) @ w1.T + b1 for x (1, m), w0 (n, m), b0 (n,), w1 (k, n), b1 (k,), summed
// in double precision and rounded to float32 once.
backend::Tensor referenceMlp(const backend::Tensor &x, const backend::Tensor &w0, const backend::Tensor &b0,
                             const backend::Tensor &w1, const backend::Tensor &b1);

}  // namespace vtac::relax_test
