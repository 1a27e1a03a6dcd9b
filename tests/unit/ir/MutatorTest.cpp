// Copy-on-write mutation and substitution.
#include <catch2/catch.hpp>

#include "IRTestUtil.h"
#include "vtac/ir/Substitute.h"

using namespace vtac::ir;
using namespace vtac::ir::test;

namespace {
// Replaces every literal 1 by 2.
class OneToTwo : public StmtExprMutator {
public:
  Expr visitIntImm(const IntImm &op) override { return op.value == 1 ? intImm(2, op.dtype) : Expr(&op); }
};

struct Tree {
  BufferRef A = buffer("A", {8}, DataType::int32());
  VarRef i = makeVar("i");
  Stmt untouched = store(A, i32(5), {i32(0)});
  Stmt touched = store(A, addExpr(i, i32(1)), {i});
  Stmt body = loop(i, 8, seq({untouched, touched}));
};
}  // namespace

TEST_CASE("a mutator that changes nothing returns the same nodes", "[ir][mutator]") {
  Tree t;
  StmtExprMutator identity;
  CHECK(identity.visitStmt(t.body) == t.body);
}

TEST_CASE("a mutation copies only the path to the change", "[ir][mutator]") {
  Tree t;
  Stmt result = OneToTwo().visitStmt(t.body);
  REQUIRE(result != t.body);
  const auto *loopNode = result.as<For>();
  REQUIRE(loopNode);
  CHECK(loopNode->loopVar == t.i);
  const auto *body = loopNode->body.as<SeqStmt>();
  REQUIRE(body);
  CHECK(body->stmts[0] == t.untouched);
  CHECK(body->stmts[1] != t.touched);
  CHECK(printStmt(body->stmts[1]) == "A = T.Buffer((8,), \"int32\")\ni = T.int32()\nA[i] = i + 2\n");
  // The input is unchanged.
  CHECK(printStmt(t.touched) == "A = T.Buffer((8,), \"int32\")\ni = T.int32()\nA[i] = i + 1\n");
}

TEST_CASE("substitute replaces variables and shares untouched subtrees", "[ir][mutator]") {
  Tree t;
  VarRef k = makeVar("k");
  VarMap map{{t.i.get(), mulExpr(k, i32(2))}};
  Stmt replaced = substitute(t.touched, map);
  CHECK(printStmt(replaced) == "A = T.Buffer((8,), \"int32\")\nk = T.int32()\nA[k * 2] = k * 2 + 1\n");
  CHECK(substitute(t.untouched, map) == t.untouched);
}
