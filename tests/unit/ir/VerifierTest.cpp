// The verifier: each check on a small broken function, messages and source locations.
#include <catch2/catch.hpp>

#include "IRTestUtil.h"

using namespace vtac::ir;
using namespace vtac::ir::test;

namespace {
std::vector<std::string> messages(const PrimFunc &f) {
  std::vector<std::string> out;
  for (const VerifierDiagnostic &d : verifyDiagnostics(f)) out.push_back(d.message);
  return out;
}
using Messages = std::vector<std::string>;
}  // namespace

TEST_CASE("a well-formed function has no diagnostics", "[ir][verifier]") {
  BufferRef A = buffer("A", {4, 4});
  VarRef i = makeVar("i"), j = makeVar("j"), vi = makeVar("vi"), vj = makeVar("vj");
  Stmt block = blockRealize("b", {axis(vi, 4), axis(vj, 4)}, {i, j}, {}, {point(A, {vi, vj})},
                            store(A, f32(0.0), {vi, vj}));
  auto f = funcWithBuffers({A}, rootBlock(loop(i, 4, loop(j, 4, block))));
  CHECK(messages(*f).empty());
  llvm::Error err = verify(*f);
  CHECK_FALSE(bool(err));
  llvm::consumeError(std::move(err));
}

TEST_CASE("variables used outside their scope", "[ir][verifier]") {
  BufferRef A = buffer("A", {4}, DataType::int32());
  VarRef i = makeVar("i"), stray = makeVar("k");
  Stmt body = seq({loop(i, 4, store(A, i, {i})), store(A, stray, {i})});
  auto f = funcWithBuffers({A}, body);
  CHECK(messages(*f) == Messages{"variable 'k' is used outside the scope that defines it",
                                 "variable 'i' is used outside the scope that defines it"});
}

TEST_CASE("a variable defined again inside its own scope", "[ir][verifier]") {
  BufferRef A = buffer("A", {4}, DataType::int32());
  VarRef i = makeVar("i");
  auto f = funcWithBuffers({A}, loop(i, 4, loop(i, 4, store(A, i, {i}))));
  CHECK(messages(*f) == Messages{"variable 'i' is defined again inside its own scope"});
}

TEST_CASE("buffer rank, operand and store dtypes", "[ir][verifier]") {
  BufferRef A = buffer("A", {4, 4});
  VarRef i = makeVar("i");
  Expr n = intImm(4, DataType::int64());
  Stmt wrongRank = store(A, f32(1.0), {i});
  Stmt mixed = store(A, make<BinaryExpr>(NodeKind::Add, load(A, {i, i}), i32(1)), {i, i});
  Stmt wrongValue = store(A, i32(1), {i, i});
  Stmt badLoop = make<For>(makeVar("j"), i32(0), n, ForKind::Serial, eval(i32(0)));
  auto f = funcWithBuffers({A}, loop(i, 4, seq({wrongRank, mixed, wrongValue, badLoop})));
  CHECK(messages(*f) == Messages{
                            "buffer 'A' has rank 2 but is indexed with 1 indices",
                            "operands of Add have different dtypes (float32 and int32)",
                            "stored value has dtype int32 but buffer 'A' holds float32",
                            "bounds of loop 'j' (int32, int64) differ from its variable's dtype int32",
                        });
}

TEST_CASE("conditions must be bool and blocks bind every axis", "[ir][verifier]") {
  BufferRef A = buffer("A", {4});
  VarRef i = makeVar("i"), vi = makeVar("vi"), vj = makeVar("vj");
  Stmt block = blockRealize("b", {axis(vi, 4), axis(vj, 4)}, {i}, {}, {}, eval(i32(0)));
  Stmt ifStmt = make<IfThenElse>(i, eval(i32(0)));
  auto f = funcWithBuffers({A}, loop(i, 4, seq({block, ifStmt})));
  CHECK(messages(*f) == Messages{"block 'b' binds 1 values to 2 iteration variables",
                                 "if condition has dtype int32, expected bool"});
}

TEST_CASE("diagnostics carry the statement's location", "[ir][verifier]") {
  uint32_t file = registerSourceFile("bad.tvm", "def f():\n    A[i] = k\n");
  BufferRef A = buffer("A", {4}, DataType::int32());
  VarRef i = makeVar("i"), k = makeVar("k");
  Stmt bad = make<BufferStore>(A, k, std::vector<Expr>{i}, SourceLoc{file, 2, 5});
  auto f = funcWithBuffers({A}, loop(i, 4, bad));
  auto diagnostics = verifyDiagnostics(*f);
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].loc == SourceLoc{file, 2, 5});
  llvm::Error err = verify(*f);
  REQUIRE(bool(err));
  CHECK(llvm::toString(std::move(err)) ==
        "bad.tvm:2:5: error: variable 'k' is used outside the scope that defines it\n"
        "    A[i] = k\n"
        "    ^\n");
}

TEST_CASE("iteration variables of T.attr scopes are in scope for their bodies", "[ir][verifier]") {
  VarRef vta = makeVar("vta");
  IterVarRef iv = make<IterVar>(vta, Range{}, IterType::ThreadIndex, "vta");
  Stmt inner = make<AttrStmt>(iv, "coproc_uop_scope", make<StringImm>("VTAPushGEMMOp"), eval(vta));
  auto f = funcWithBuffers({}, make<AttrStmt>(iv, "coproc_scope", i32(2), inner));
  CHECK(messages(*f).empty());
}

TEST_CASE("empty fields are reported, not dereferenced", "[ir][verifier]") {
  BufferRef A = buffer("A", {4});
  VarRef i = makeVar("i");
  Stmt broken = make<For>(i, i32(0), Expr(), ForKind::Serial, store(A, Expr(), {i}));
  auto f = funcWithBuffers({A}, broken);
  Messages found = messages(*f);
  CHECK(std::count(found.begin(), found.end(), "missing expression (an empty field)") == 2);
  // The printer shows the hole instead of crashing (for --print-after-all of a broken pass).
  CHECK(printPrimFunc(*f, "f").find("for i in range(None):\n        A[i] = None\n") != std::string::npos);
}

TEST_CASE("statements nested beyond the limit are reported once, not walked", "[ir][verifier]") {
  BufferRef A = buffer("A", {4}, DataType::int32());
  Stmt body = store(A, i32(1), {i32(0)});
  for (size_t level = 0; level < kMaxStatementDepth + 10; ++level)
    body = make<AssertStmt>(boolImm(true), make<StringImm>("ok"), body);
  auto f = funcWithBuffers({A}, body);
  CHECK(messages(*f) == Messages{"nesting too deep (limit 4000)"});
}

TEST_CASE("a reducer is closed, with one lhs, rhs, result and constant identity per value", "[ir][verifier]") {
  BufferRef A = buffer("A", {4}, DataType::int32());
  VarRef x = makeVar("x"), y = makeVar("y"), i = makeVar("i"), f = makeVar("f", DataType::float32());
  auto scope = [&](std::vector<VarRef> lhs, std::vector<VarRef> rhs, std::vector<Expr> result,
                   std::vector<Expr> identity) {
    NodeRef reducer = make<CommReducer>(std::move(lhs), std::move(rhs), std::move(result), std::move(identity));
    return make<AttrStmt>(reducer, "reduce_scope", i32(0), store(A, i, {i}));
  };
  Stmt good = scope({x}, {y}, {addExpr(x, y)}, {i32(0)});
  Stmt counts = scope({x}, {y}, {addExpr(x, y)}, {i32(0), i32(1)});
  Stmt usesLoopVar = scope({x}, {y}, {addExpr(x, i)}, {i32(0)});
  Stmt notConstant = scope({x}, {y}, {addExpr(x, y)}, {i});
  Stmt mixed = scope({f}, {y}, {y}, {i32(0)});
  auto func = funcWithBuffers({A}, loop(i, 4, seq({good, counts, usesLoopVar, notConstant, mixed})));
  CHECK(messages(*func) == Messages{
                               "reducer has 1 lhs, 1 rhs, 1 results and 2 identity elements; they must agree",
                               "variable 'i' is used outside the scope that defines it",
                               "identity element 0 of the reducer is not a constant",
                               "value 0 of the reducer mixes dtypes (identity int32)",
                           });
}
