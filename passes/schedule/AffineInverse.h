// The inverse of an affine index map (TVM's DetectIterMap with padding, InverseAffineIterMap and
// IndexMap::NonSurjectiveInverse), shared by transform_layout (the buffer's old indices from its
// new ones) and reverse_compute_inline (the consumer's iterators from the producer's stored
// indices).
//
// The map's inputs are variables over [0, extent). Each output must be a constant (it takes no
// part) or a split `(x // lower) % extent` of a mark x = `fused + base`: fused is a mixed-radix
// sum of inputs (`i`, or `i * 16 + j` with j's extent 16), base an integer. Every input with an
// extent above 1 belongs to exactly one mark; a mark's splits tile it: lowers 1, e_0, e_0 * e_1,
// ..., the outermost split without a modulus (or one that changes nothing). A mark whose range
// [base, base + N) is not a multiple of P = the outermost split's lower is padded, as TVM pads
// its IterMark: by left = base mod P below and up to the next multiple of P above; the padding
// predicate is TVM's (`x' // P == 0 and x' % P < left`, `x' // P == (N + left) // P and
// (N + left) % P <= x' % P`, x' = fused + left), one `or` per padded mark in the order of the
// first output that uses it.
#pragma once

#include <string>
#include <vector>

#include "llvm/Support/Error.h"
#include "vtac/ir/Substitute.h"

namespace vtac::passes::schedule {

struct AffineInput {
  ir::VarRef var;
  int64_t extent;
};

struct AffineMapInverse {
  // Each input in terms of the values at the outputs, unsimplified as TVM's InverseAffineIterMap
  // builds it (the last output's contribution first: `v1 + v0 * 16`); an input of extent 1 that
  // no output uses is 0.
  ir::VarMap inverse;
  // In terms of the output values, unsimplified; null when no mark is padded.
  ir::Expr padding;
};

// The inverse of `outputs` (expressions of the inputs) at `outputValues` (one per output); an
// error saying which output is not of the form above, or which input is left unused, otherwise.
llvm::Expected<AffineMapInverse> inverseAffineMap(const std::vector<ir::Expr> &outputs,
                                                  const std::vector<AffineInput> &inputs,
                                                  const std::vector<ir::Expr> &outputValues);

}  // namespace vtac::passes::schedule
