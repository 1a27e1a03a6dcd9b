// A commutative reducer (TVM's tir.CommReducer): the combining function and identity elements
// of a cross-thread reduction, `T.comm_reducer(lambda x, y: x + y, [T.float32(0)])`.
//
// It is not an expression: it appears as the node of a `reduce_scope` attribute, in front of
// the `T.tvm_thread_allreduce(...)` call it describes. A reducer of n values has n `lhs` and n
// `rhs` parameters (the lambda's parameters, lhs first), n `result` expressions over them and n
// `identity` constants; lhs[i], rhs[i], result[i] and identity[i] share a dtype. The parameters
// are bound by the reducer itself and the results use nothing else, so a reducer is closed:
// passes that walk or substitute the enclosing statement never look inside it.
#pragma once

#include <vector>

#include "vtac/ir/Expr.h"

namespace vtac::ir {

class CommReducer : public Node {
public:
  std::vector<VarRef> lhs, rhs;
  std::vector<Expr> result;
  std::vector<Expr> identity;

  CommReducer(std::vector<VarRef> lhs, std::vector<VarRef> rhs, std::vector<Expr> result,
              std::vector<Expr> identity, SourceLoc loc = {})
      : Node(NodeKind::CommReducer, loc), lhs(std::move(lhs)), rhs(std::move(rhs)),
        result(std::move(result)), identity(std::move(identity)) {}
  static bool classof(NodeKind k) { return k == NodeKind::CommReducer; }
};
using CommReducerRef = Ref<CommReducer>;

}  // namespace vtac::ir
