// The reduction a reduction block performs, in TVM's terms (its ReducerRegistry and
// GetInitValuesAndUpdatesFromReductionBlock): which buffers it reduces into, the commutative
// reducer its T.init and body match, and the two sides of the combination. rfactor reads it.
#pragma once

#include <string>
#include <vector>

#include "vtac/ir/CommReducer.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Stmt.h"

namespace vtac::passes::schedule {

struct BlockReduction {
  // One store per reduced buffer, all at the same indices, in the order of the body's lets
  // (TVM's order: the reducer's value i is the i-th let).
  std::vector<const ir::BufferStore *> updates;
  ir::CommReducerRef reducer;
  // Per value: the written element (lhs) and what the block combines into it (rhs).
  std::vector<ir::Expr> lhs, rhs;
};

// The block's reduction: T.init is one store or a sequence of stores of distinct buffers; the
// body is one store, or as many lets as T.init has stores, none using another's variable,
// followed by that many stores, each of a distinct buffer storing a distinct let variable; the buffers T.init and the body write are
// the same, of one shape, written at the same indices; the stored values are one of TVM's
// reducers (+, *, min, max of one value, written element on either side; the sum of two;
// argmax/argmin of an (index, value) pair, TVM's two spellings of each) of the written elements,
// and T.init stores its identities. Otherwise an error at `at` that starts with `what`.
llvm::Expected<BlockReduction> matchBlockReduction(const ir::Block &block, ir::SourceLoc at, const std::string &what);

// The statement that combines `rhs` into `buffers` at `indices` with `reducer` (lhs: the
// elements' current values): one store for one value; for several, TVM's form, a let
// `v_<buffer>` per value and then the stores, so every value sees the old elements.
ir::Stmt combinedStores(const ir::CommReducer &reducer, const std::vector<ir::BufferRef> &buffers,
                        const std::vector<ir::Expr> &indices, const std::vector<ir::Expr> &lhs,
                        const std::vector<ir::Expr> &rhs);

// The stores of `values` into `buffers` at `indices` (a sequence when there are several).
ir::Stmt storesOf(const std::vector<ir::BufferRef> &buffers, const std::vector<ir::Expr> &indices,
                  const std::vector<ir::Expr> &values);

}  // namespace vtac::passes::schedule
