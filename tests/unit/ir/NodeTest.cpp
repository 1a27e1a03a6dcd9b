// Node handles: reference counting, kind checks, sequence flattening, attribute maps.
#include <catch2/catch.hpp>

#include "IRTestUtil.h"

using namespace vtac::ir;
using namespace vtac::ir::test;

TEST_CASE("handles count references and compare by identity", "[ir][node]") {
  VarRef x = makeVar("x");
  CHECK(x->useCount() == 1);
  {
    Expr copy = x;
    CHECK(x->useCount() == 2);
    CHECK(copy == x);
  }
  CHECK(x->useCount() == 1);
  VarRef other = makeVar("x");
  CHECK(other != x);
  CHECK(std::hash<VarRef>()(x) != std::hash<VarRef>()(other));
}

TEST_CASE("kind checks and downcasts", "[ir][node]") {
  Expr sum = addExpr(makeVar("a"), makeVar("b"));
  CHECK(sum.isa<BinaryExpr>());
  CHECK(sum->kind() == NodeKind::Add);
  CHECK(sum.as<Var>() == nullptr);
  CHECK(dynCast<BinaryExpr>(sum));
  CHECK_FALSE(dynCast<Var>(sum));
  CHECK(BinaryExpr::isComparison(NodeKind::LT));
  CHECK(makeBinary(NodeKind::LT, makeVar("a"), i32(1))->dtype == DataType::boolTy());
  CHECK(std::string(nodeKindName(NodeKind::BlockRealize)) == "BlockRealize");
}

TEST_CASE("seq flattens nested sequences and unwraps a single statement", "[ir][node]") {
  Stmt a = eval(i32(1)), b = eval(i32(2)), c = eval(i32(3));
  Stmt nested = seq({a, seq({b, c})});
  REQUIRE(nested.isa<SeqStmt>());
  CHECK(nested.as<SeqStmt>()->stmts.size() == 3);
  CHECK(seq({a}) == a);
}

TEST_CASE("buffers take their scope from the data variable; defaults are normalized", "[ir][node]") {
  BufferRef acc = buffer("acc", {16}, DataType::int32(), "local.acc_buffer");
  CHECK(acc->scope() == "local.acc_buffer");
  CHECK(acc->rank() == 1);
  BufferRef plain = make<Buffer>("p", makeVar("p", DataType::handle()), DataType::intTy(8), std::vector<Expr>{i32(4)},
                                 std::vector<Expr>{}, i32(0), 0, 0);
  CHECK(plain->scope() == "global");
  CHECK(!plain->elemOffset);
  CHECK(plain->dataAlignment == Buffer::kDefaultAlignment);
  CHECK(plain->offsetFactor == 1);
}

TEST_CASE("attribute maps keep keys sorted and replace on set", "[ir][node]") {
  AttrMap m;
  m.set("tir.noalias", true);
  m.set("global_symbol", "main");
  m.set("tir.noalias", false);
  REQUIRE(m.size() == 2);
  CHECK(m.begin()->first == "global_symbol");
  CHECK(m.find("tir.noalias")->asBool() == false);
  CHECK(m.erase("global_symbol"));
  CHECK_FALSE(m.contains("global_symbol"));
}

TEST_CASE("literal true conditions are stored as absent", "[ir][node]") {
  Stmt realize = blockRealize("b", {}, {}, {}, {}, eval(i32(0)), nullptr, boolImm(true));
  CHECK(!realize.as<BlockRealize>()->predicate);
}

TEST_CASE("modules look functions up by name and keep insertion order", "[ir][node]") {
  IRModule m;
  auto f = funcWithBuffers({}, eval(i32(0)));
  m.add("z", f);
  m.add("a", f);
  CHECK(m.functions()[0].name->name == "z");
  CHECK(m.lookup("a") == f);
  CHECK(!m.lookup("missing"));
  m.add("z", funcWithBuffers({}, eval(i32(1))));
  CHECK(m.size() == 2);
}
