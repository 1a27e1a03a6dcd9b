// Expressions: Python precedence, TVMScript's operator meanings, the dtypes
// literals take from their context, and the T.* builtins.
#include "TestSupport.h"

#include <catch2/catch.hpp>

using namespace vtac;
using namespace vtac::frontend::testing;

namespace {

// The value stored by the first `A[0] = ...`-style store of a function whose
// body is `body`.
ir::Expr storedValue(const std::string &body) {
  ir::PrimFuncRef func = parseSingleFunction(functionWithBody(body));
  ir::Stmt stmt = func->body;
  while (true) {
    if (auto *store = stmt.as<ir::BufferStore>())
      return store->value;
    if (auto *let = stmt.as<ir::LetStmt>())
      stmt = let->body;
    else if (auto *seq = stmt.as<ir::SeqStmt>())
      stmt = seq->stmts.front();
    else if (auto *loop = stmt.as<ir::For>())
      stmt = loop->body;
    else
      FAIL("no buffer store in " << ir::printStmt(func->body));
  }
}

std::string printed(const ir::Expr &expr) { return ir::printExpr(expr); }

} // namespace

TEST_CASE("operators follow Python's precedence", "[frontend][expr]") {
  ir::Expr value = storedValue("B[0] = B[1] + B[2] * B[3]");
  REQUIRE(value->kind() == ir::NodeKind::Add);
  CHECK(value.as<ir::BinaryExpr>()->b->kind() == ir::NodeKind::Mul);
  CHECK(printed(storedValue("B[0] = (B[1] + B[2]) * B[3]")) == "(B[1] + B[2]) * B[3]");
  CHECK(storedValue("B[0] = B[1] - B[2] - B[3]").as<ir::BinaryExpr>()->a->kind() == ir::NodeKind::Sub);
}

TEST_CASE("// and % are floor division and floor modulo", "[frontend][expr]") {
  CHECK(storedValue("B[0] = B[1] // 4")->kind() == ir::NodeKind::FloorDiv);
  CHECK(storedValue("B[0] = B[1] % 4")->kind() == ir::NodeKind::FloorMod);
  CHECK(storedValue("B[0] = T.truncdiv(B[1], 4)")->kind() == ir::NodeKind::Div);
}

TEST_CASE("Python literals take the dtype of their context", "[frontend][expr]") {
  ir::Expr scaled = storedValue("A[0] = A[1] * 2");
  CHECK(scaled->dtype == ir::DataType::float32());
  auto *literal = scaled.as<ir::BinaryExpr>()->b.as<ir::FloatImm>();
  REQUIRE(literal);
  CHECK(literal->value == 2.0);
  CHECK(storedValue("A[0] = 0")->dtype == ir::DataType::float32());
  CHECK(storedValue("B[0] = T.Cast(\"int32\", n + 1)").as<ir::Cast>()->value->dtype == ir::DataType::int64());
}

TEST_CASE("arithmetic on two literals folds like Python", "[frontend][expr]") {
  ir::Expr value = storedValue("B[0] = 7 // 2 * 3 - 1");
  auto *folded = value.as<ir::IntImm>();
  REQUIRE(folded);
  CHECK(folded->value == 8);
  CHECK(storedValue("B[0] = -7 // 2").as<ir::IntImm>()->value == -4);
  CHECK(storedValue("B[0] = -7 % 3").as<ir::IntImm>()->value == 2);
}

TEST_CASE("typed constants, casts and astype", "[frontend][expr]") {
  ir::Expr wide = storedValue("B[0] = T.Cast(\"int32\", T.int64(128))");
  CHECK(wide.as<ir::Cast>()->value->dtype == ir::DataType::int64());
  CHECK(storedValue("A[0] = T.float32(0)").as<ir::FloatImm>());
  ir::Expr converted = storedValue("A[0] = B[1].astype(\"float32\")");
  REQUIRE(converted.as<ir::Cast>());
  CHECK(converted->dtype == ir::DataType::float32());
}

TEST_CASE("comparisons chain and combine with and/or/not", "[frontend][expr]") {
  ir::Expr chained = storedValue("A[0] = T.if_then_else(0 <= B[1] < 16, A[1], T.float32(0))");
  auto *call = chained.as<ir::Call>();
  REQUIRE(call);
  CHECK(call->op == "tir.if_then_else");
  CHECK(call->args[0]->kind() == ir::NodeKind::And);
  ir::Expr negated = storedValue("A[0] = T.if_then_else(not B[1] < 3 or B[2] == 1, A[1], A[2])");
  CHECK(negated.as<ir::Call>()->args[0]->kind() == ir::NodeKind::Or);
}

TEST_CASE("call_extern in both spellings and VTA intrinsics", "[frontend][expr]") {
  ir::PrimFuncRef func = parseSingleFunction(functionWithBody(
      "T.call_extern(\"int32\", \"VTAUopLoopBegin\", 8, 98, 0, 0)\n"
      "T.call_extern(\"VTAUopLoopEnd\", dtype=\"int32\")\n"
      "T.tir.vta.coproc_dep_push(3, 2)\n"
      "T.evaluate(T.tvm_thread_context(T.tir.vta.command_handle()))"));
  auto *seq = func->body.as<ir::SeqStmt>();
  REQUIRE(seq);
  REQUIRE(seq->stmts.size() == 4);
  auto callOf = [&](size_t i) { return seq->stmts[i].as<ir::Evaluate>()->value.as<ir::Call>(); };
  CHECK(callOf(0)->op == "tir.call_extern");
  CHECK(callOf(0)->args[0].as<ir::StringImm>()->value == "VTAUopLoopBegin");
  CHECK(callOf(0)->args.size() == 5);
  CHECK(callOf(1)->args[0].as<ir::StringImm>()->value == "VTAUopLoopEnd");
  CHECK(callOf(1)->dtype == ir::DataType::int32());
  CHECK(callOf(2)->op == "tir.vta.coproc_dep_push");
  CHECK(callOf(3)->args[0].as<ir::Call>()->op == "tir.vta.command_handle");
}

TEST_CASE("buffer data and access_ptr", "[frontend][expr]") {
  ir::PrimFuncRef func = parseSingleFunction(functionWithBody(
      "T.evaluate(T.call_extern(\"int32\", \"f\", B.data, A.access_ptr(\"rw\")))"));
  auto *call = func->body.as<ir::Evaluate>()->value.as<ir::Call>();
  REQUIRE(call);
  CHECK(call->args[1] == func->bufferMap[1].second->data);
  auto *pointer = call->args[2].as<ir::Call>();
  REQUIRE(pointer);
  CHECK(pointer->op == "tir.tvm_access_ptr");
  CHECK(pointer->args[3].as<ir::IntImm>()->value == 16);  // the whole buffer
  CHECK(pointer->args[4].as<ir::IntImm>()->value == 3);   // read | write
}

TEST_CASE("expression errors", "[frontend][expr]") {
  auto diagnosticsOf = [](const std::string &body) { return parseText(functionWithBody(body)).diagnostics; };
  CHECK_THAT(diagnosticsOf("A[0] = A[1] ** 2"), Catch::Contains("'**' is not supported"));
  CHECK_THAT(diagnosticsOf("B[0] = B[1] // 0"), Catch::Contains("division by zero"));
  CHECK_THAT(diagnosticsOf("B[0] = T.max(B[1])"), Catch::Contains("T.max takes 2 positional arguments, 1 given"));
  CHECK_THAT(diagnosticsOf("B[0] = B.data + 1"), Catch::Contains("operands have incompatible types handle and int32"));
  CHECK_THAT(diagnosticsOf("B[0] = T.Cast(\"int33\", B[1])"), Catch::Contains("unknown dtype 'int33'"));
  CHECK_THAT(diagnosticsOf("B[0] = 99999999999999999999"), Catch::Contains("does not fit in 64 bits"));
}
