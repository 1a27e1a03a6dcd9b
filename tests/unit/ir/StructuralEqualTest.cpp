// Structural equality: alpha-equivalence of bound variables and buffers, free variables,
// differences found, hashes agree with equality.
#include <catch2/catch.hpp>

#include "IRTestUtil.h"

using namespace vtac::ir;
using namespace vtac::ir::test;

namespace {
// for i, j in T.grid(4, 8): C[i, j] = A[i, j] * scale (or A[j, i] when `transposed`)
PrimFuncRef scaled(bool transposed, double scale, const char *loopName = "i") {
  BufferRef A = buffer("A", {8, 8}), C = buffer("C", {8, 8});
  VarRef i = makeVar(loopName), j = makeVar("j");
  std::vector<Expr> idx = transposed ? std::vector<Expr>{j, i} : std::vector<Expr>{i, j};
  Stmt body = loop(i, 4, loop(j, 8, store(C, mulExpr(load(A, idx), f32(scale)), {i, j})));
  return funcWithBuffers({A, C}, body);
}
}  // namespace

TEST_CASE("functions built twice are equal, with equal hashes", "[ir][equal]") {
  auto a = scaled(false, 2.0), b = scaled(false, 2.0);
  CHECK(structuralEqual(*a, *b));
  CHECK(structuralHash(*a) == structuralHash(*b));
  CHECK(firstStructuralDifference(*a, *b).empty());
}

TEST_CASE("variable names do not matter, positions do", "[ir][equal]") {
  CHECK(structuralEqual(*scaled(false, 2.0), *scaled(false, 2.0, "other")));
  CHECK_FALSE(structuralEqual(*scaled(false, 2.0), *scaled(true, 2.0)));
  CHECK(firstStructuralDifference(*scaled(false, 2.0), *scaled(true, 2.0)) ==
        "different variables: Var vs Var");
}

TEST_CASE("a different literal is a difference", "[ir][equal]") {
  auto a = scaled(false, 2.0), b = scaled(false, 3.0);
  CHECK_FALSE(structuralEqual(*a, *b));
  CHECK(firstStructuralDifference(*a, *b) == "float values differ: FloatImm vs FloatImm");
  CHECK(structuralHash(*a) != structuralHash(*b));
}

TEST_CASE("free variables must be identical unless mapped", "[ir][equal]") {
  VarRef x = makeVar("x"), y = makeVar("y");
  CHECK(structuralEqual(addExpr(x, i32(1)), addExpr(x, i32(1))));
  CHECK_FALSE(structuralEqual(addExpr(x, i32(1)), addExpr(y, i32(1))));
  CHECK(structuralEqual(addExpr(x, i32(1)), addExpr(y, i32(1)), /*mapFreeVars=*/true));
  // The mapping is one-to-one: x + x is not y + x.
  CHECK_FALSE(structuralEqual(addExpr(x, x), addExpr(y, x), true));
  // Types are part of a variable.
  CHECK_FALSE(structuralEqual(Expr(x), Expr(makeVar("z", DataType::int64())), true));
}

TEST_CASE("statement kinds, loop kinds and annotations are compared", "[ir][equal]") {
  BufferRef A = buffer("A", {4}, DataType::int32());
  VarRef i = makeVar("i");
  Stmt serial = loop(i, 4, store(A, i32(0), {i}));
  Stmt parallel = loop(i, 4, store(A, i32(0), {i}), ForKind::Parallel);
  CHECK_FALSE(structuralEqual(serial, parallel));
  AttrMap ann;
  ann.set("pragma_unroll", int64_t(1));
  Stmt annotated = make<For>(i, i32(0), i32(4), ForKind::Serial, store(A, i32(0), {i}), nullptr, ann);
  CHECK_FALSE(structuralEqual(serial, annotated));
  CHECK(structuralEqual(annotated, annotated));
  CHECK_FALSE(structuralEqual(eval(i32(0)), seq({eval(i32(0)), eval(i32(0))})));
}

TEST_CASE("buffers declared by blocks are matched by position", "[ir][equal]") {
  auto build = [](const char *tmpName) {
    BufferRef B = buffer("B", {4});
    BufferRef tmp = buffer(tmpName, {4}, DataType::float32(), "shared");
    VarRef v = makeVar("v"), i = makeVar("i");
    Stmt block = blockRealize("b", {axis(v, 4)}, {i}, {point(tmp, {v})}, {point(B, {v})},
                              store(B, load(tmp, {v}), {v}));
    return funcWithBuffers({B}, rootBlock(loop(i, 4, block), {tmp}));
  };
  CHECK(structuralEqual(*build("t"), *build("renamed")));
  CHECK(structuralHash(*build("t")) == structuralHash(*build("renamed")));
}

TEST_CASE("modules compare functions by name", "[ir][equal]") {
  IRModule a, b;
  a.add("f", scaled(false, 1.0));
  a.add("g", scaled(true, 1.0));
  b.add("g", scaled(true, 1.0));
  b.add("f", scaled(false, 1.0));
  CHECK(structuralEqual(a, b));
  IRModule c;
  c.add("f", scaled(false, 1.0));
  CHECK_FALSE(structuralEqual(a, c));
}

namespace {
// T.attr(T.comm_reducer(lambda x, y: x <op> y, [identity]), "reduce_scope", 0): T.evaluate(0)
Stmt reducerScope(NodeKind op, double identity, bool swapped = false) {
  VarRef x = makeVar("x", DataType::float32()), y = makeVar("y", DataType::float32());
  Expr result = swapped ? binary(op, y, x) : binary(op, x, y);
  NodeRef reducer = make<CommReducer>(std::vector<VarRef>{x}, std::vector<VarRef>{y}, std::vector<Expr>{result},
                                      std::vector<Expr>{f32(identity)});
  return make<AttrStmt>(reducer, "reduce_scope", i32(0), eval(i32(0)));
}
}  // namespace

TEST_CASE("reducers compare their parameters by position, results and identities", "[ir][equal]") {
  Stmt sum = reducerScope(NodeKind::Add, 0.0);
  CHECK(structuralEqual(sum, reducerScope(NodeKind::Add, 0.0)));
  CHECK(structuralHash(sum) == structuralHash(reducerScope(NodeKind::Add, 0.0)));
  CHECK_FALSE(structuralEqual(sum, reducerScope(NodeKind::Mul, 0.0)));
  CHECK_FALSE(structuralEqual(sum, reducerScope(NodeKind::Add, 1.0)));
  CHECK_FALSE(structuralEqual(sum, reducerScope(NodeKind::Add, 0.0, /*swapped=*/true)));
  CHECK(structuralHash(sum) != structuralHash(reducerScope(NodeKind::Add, 1.0)));
}

TEST_CASE("a difference comes with the path of statements and expressions around it", "[ir][equal]") {
  auto difference = findStructuralDifference(*scaled(false, 2.0), *scaled(true, 2.0));
  REQUIRE(difference);
  // The variables differ; their uses are in the load, the innermost node on the path.
  CHECK(difference->lhs.node->kind() == NodeKind::Var);
  REQUIRE(!difference->lhs.path.empty());
  CHECK(difference->lhs.path.front()->kind() == NodeKind::PrimFunc);
  CHECK(difference->lhs.path.back()->kind() == NodeKind::BufferLoad);
  CHECK(difference->rhs.path.back()->kind() == NodeKind::BufferLoad);
}

TEST_CASE("a statement on one side only is found where the rest lines up", "[ir][equal]") {
  using Presence = StructuralDifference::Side::Presence;
  BufferRef A = buffer("A", {4}, DataType::int32());
  auto body = [&](std::vector<int64_t> values) {
    std::vector<Stmt> stmts;
    for (int64_t v : values) stmts.push_back(store(A, i32(v), {i32(0)}));
    return funcWithBuffers({A}, seq(stmts));
  };
  auto inserted = findStructuralDifference(*body({1, 3}), *body({1, 2, 3}));
  REQUIRE(inserted);
  CHECK(inserted->what == "statement on the right side only");
  CHECK(!inserted->lhs.node);
  CHECK(inserted->lhs.presence == Presence::MissingBefore);
  // Where it would be on the left: before the statement that lines up with the one after it.
  CHECK(inserted->lhs.path.back().as<BufferStore>()->value.as<IntImm>()->value == 3);
  CHECK(inserted->rhs.node.as<BufferStore>()->value.as<IntImm>()->value == 2);

  auto appended = findStructuralDifference(*body({1, 2, 3}), *body({1, 2}));
  REQUIRE(appended);
  CHECK(appended->what == "statement on the left side only");
  CHECK(appended->lhs.node.as<BufferStore>()->value.as<IntImm>()->value == 3);
  CHECK(appended->rhs.presence == Presence::MissingAfter);
  CHECK(appended->rhs.path.back().as<BufferStore>()->value.as<IntImm>()->value == 2);

  // A changed statement in a longer sequence is that change, not a missing statement.
  auto changed = findStructuralDifference(*body({1, 5, 3}), *body({1, 2}));
  REQUIRE(changed);
  CHECK(changed->what == "integer values differ");
}
