// Statements and functions: scoping forms, loops, blocks and their axes,
// buffers and parameters, module structure.
#include "TestSupport.h"
#include "vtac/ir/Relax.h"

#include <catch2/catch.hpp>

using namespace vtac;
using namespace vtac::frontend::testing;

TEST_CASE("a let scopes over the rest of its body", "[frontend][stmt]") {
  ir::PrimFuncRef func = parseSingleFunction(functionWithBody(
      "B[0] = 1\n"
      "x: T.int32 = B[1] * 2\n"
      "B[2] = x\n"
      "B[3] = x + 1"));
  auto *seq = func->body.as<ir::SeqStmt>();
  REQUIRE(seq);
  REQUIRE(seq->stmts.size() == 2);
  auto *let = seq->stmts[1].as<ir::LetStmt>();
  REQUIRE(let);
  CHECK(let->var->name == "x");
  auto *rest = let->body.as<ir::SeqStmt>();
  REQUIRE(rest);
  CHECK(rest->stmts.size() == 2);
  CHECK(rest->stmts[0].as<ir::BufferStore>()->value == ir::Expr(let->var));
}

TEST_CASE("loops: T.grid nests, ranges with a start, thread bindings", "[frontend][stmt]") {
  ir::PrimFuncRef grid = parseSingleFunction(functionWithBody(
      "for i, j in T.grid(4, 4):\n"
      "    C[i, j] = T.float32(0)"));
  auto *outer = grid->body.as<ir::For>();
  REQUIRE(outer);
  auto *inner = outer->body.as<ir::For>();
  REQUIRE(inner);
  CHECK(inner->loopVar->name == "j");
  CHECK(inner->extent.as<ir::IntImm>()->value == 4);

  ir::PrimFuncRef shifted = parseSingleFunction(functionWithBody(
      "for i in T.serial(2, 10):\n"
      "    B[i] = 0"));
  auto *loop = shifted->body.as<ir::For>();
  CHECK(loop->min.as<ir::IntImm>()->value == 2);
  CHECK(loop->extent.as<ir::IntImm>()->value == 8);

  ir::PrimFuncRef bound = parseSingleFunction(functionWithBody(
      "for t in T.thread_binding(16, thread=\"threadIdx.x\"):\n"
      "    B[t] = 0"));
  auto *threaded = bound->body.as<ir::For>();
  CHECK(threaded->forKind == ir::ForKind::ThreadBinding);
  CHECK(threaded->threadBinding->threadTag == "threadIdx.x");

  ir::PrimFuncRef wide = parseSingleFunction(functionWithBody(
      "for i in range(T.int64(4)):\n"
      "    B[i] = 0"));
  CHECK(wide->body.as<ir::For>()->loopVar->dtype == ir::DataType::int64());
}

TEST_CASE("blocks: axes, bindings, init, inferred regions and the root block", "[frontend][stmt]") {
  ir::PrimFuncRef func = parseSingleFunction(
      "@T.prim_func\n"
      "def mm(A: T.Buffer((8, 8), \"float32\"), B: T.Buffer((8, 8), \"float32\"), C: T.Buffer((8, 8), \"float32\")):\n"
      "    for i, j, k in T.grid(8, 8, 8):\n"
      "        with T.block(\"C\"):\n"
      "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "            with T.init():\n"
      "                C[vi, vj] = T.float32(0)\n"
      "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n");
  auto *root = func->body.as<ir::BlockRealize>();
  REQUIRE(root);
  CHECK(root->block->name == "root");
  const ir::Stmt &nest = root->block->body;
  auto *k = nest.as<ir::For>()->body.as<ir::For>()->body.as<ir::For>();
  REQUIRE(k);
  auto *realize = k->body.as<ir::BlockRealize>();
  REQUIRE(realize);
  CHECK(realize->iterValues.size() == 3);
  CHECK(realize->iterValues[2] == ir::Expr(k->loopVar));
  CHECK_FALSE(realize->predicate);
  const ir::Block &block = *realize->block;
  CHECK(block.iterVars[2]->iterType == ir::IterType::CommReduce);
  CHECK(block.iterVars[0]->dom.extent.as<ir::IntImm>()->value == 8);
  CHECK(block.init);
  CHECK(block.reads.size() == 2);   // A and B (C is written by the init)
  CHECK(block.writes.size() == 1);
}

TEST_CASE("explicit reads, writes, where and block attributes", "[frontend][stmt]") {
  ir::PrimFuncRef func = parseSingleFunction(
      "@T.prim_func\n"
      "def f(A: T.Buffer((16,), \"float32\"), B: T.Buffer((14,), \"float32\")):\n"
      "    for i in range(16):\n"
      "        with T.block(\"B\"):\n"
      "            vi = T.axis.spatial(14, i)\n"
      "            T.where(i < 14)\n"
      "            T.reads(A[vi:vi + 3])\n"
      "            T.writes(B[vi])\n"
      "            T.block_attr({\"note\": 1})\n"
      "            B[vi] = A[vi] + A[vi + 1] + A[vi + 2]\n");
  auto *root = func->body.as<ir::BlockRealize>();
  auto *realize = root->block->body.as<ir::For>()->body.as<ir::BlockRealize>();
  REQUIRE(realize);
  CHECK(realize->predicate);
  const ir::Block &block = *realize->block;
  REQUIRE(block.reads.size() == 1);
  CHECK(block.reads[0].region[0].extent.as<ir::IntImm>()->value == 3);
  CHECK(block.annotations.contains("note"));
}

TEST_CASE("handle parameters bound by T.match_buffer, with symbolic sizes", "[frontend][stmt]") {
  ir::PrimFuncRef func = parseSingleFunction(
      "@T.prim_func\n"
      "def f(a: T.handle, b: T.handle):\n"
      "    n = T.int64()\n"
      "    A = T.match_buffer(a, (n, 4), \"int8\")\n"
      "    B = T.match_buffer(b, (n,), offset_factor=1)\n"
      "    for i in range(n):\n"
      "        B[i] = T.Cast(\"float32\", A[i, 0])\n");
  REQUIRE(func->bufferMap.size() == 2);
  const ir::BufferRef &a = func->bufferMap[0].second;
  CHECK(func->bufferMap[0].first == func->params[0]);
  CHECK(a->dtype == ir::DataType::intTy(8));
  CHECK(a->shape[0]->dtype == ir::DataType::int64());
  CHECK(func->bufferMap[1].second->offsetFactor == 1);
  CHECK(func->bufferMap[1].second->dtype == ir::DataType::float32());
}

TEST_CASE("lowered forms: allocate, buffer views, attr statements", "[frontend][stmt]") {
  ir::PrimFuncRef func = parseSingleFunction(functionWithBody(
      "buf = T.allocate([64], \"int8\", \"local.acc_buffer\")\n"
      "view = T.Buffer((64,), \"int8\", data=buf, scope=\"local.acc_buffer\")\n"
      "vta = T.int32()\n"
      "T.attr(T.iter_var(vta, None, \"ThreadIndex\", \"vta\"), \"coproc_scope\", 2)\n"
      "view[0] = T.int8(1)\n"
      "with T.attr(T.iter_var(vta, None, \"ThreadIndex\", \"vta\"), \"coproc_uop_scope\", \"VTAPushGEMMOp\"):\n"
      "    view[1] = T.int8(2)"));
  auto *allocate = func->body.as<ir::Allocate>();
  REQUIRE(allocate);
  CHECK(allocate->scope() == "local.acc_buffer");
  CHECK_FALSE(allocate->condition);
  auto *attr = allocate->body.as<ir::AttrStmt>();
  REQUIRE(attr);
  CHECK(attr->key == "coproc_scope");
  auto *iterVar = attr->node.as<ir::IterVar>();
  REQUIRE(iterVar);
  CHECK(iterVar->threadTag == "vta");
  auto *rest = attr->body.as<ir::SeqStmt>();
  REQUIRE(rest);
  CHECK(rest->stmts[0].as<ir::BufferStore>()->buffer->data == allocate->bufferVar);
  CHECK(rest->stmts[1].as<ir::AttrStmt>()->key == "coproc_uop_scope");
}

TEST_CASE("decl_buffer allocates unless it is given data", "[frontend][stmt]") {
  ir::PrimFuncRef owned = parseSingleFunction(functionWithBody(
      "D = T.decl_buffer((4,), \"int32\", scope=\"local\")\n"
      "D[0] = 1"));
  auto *allocate = owned->body.as<ir::Allocate>();
  REQUIRE(allocate);
  CHECK(allocate->body.as<ir::DeclBuffer>());
  ir::PrimFuncRef view = parseSingleFunction(functionWithBody(
      "D = T.decl_buffer((16,), \"int32\", data=B.data)\n"
      "D[0] = 1"));
  CHECK(view->body.as<ir::DeclBuffer>());
}

TEST_CASE("scoped with-forms of lets, allocations and asserts", "[frontend][stmt]") {
  ir::PrimFuncRef func = parseSingleFunction(functionWithBody(
      "with T.LetStmt(B[0] + 1) as x:\n"
      "    B[1] = x\n"
      "with T.allocate([4], \"int32\", \"global\") as p:\n"
      "    B[2] = 0\n"
      "with T.Assert(B[0] > 0, \"positive\"):\n"
      "    B[3] = 0"));
  auto *seq = func->body.as<ir::SeqStmt>();
  REQUIRE(seq);
  REQUIRE(seq->stmts.size() == 3);
  CHECK(seq->stmts[0].as<ir::LetStmt>());
  CHECK(seq->stmts[1].as<ir::Allocate>());
  CHECK(seq->stmts[2].as<ir::AssertStmt>());
}

TEST_CASE("modules: classes, bare functions, Relax functions", "[frontend][module]") {
  ParseOutcome outcome = parseText(
      "# from tvm.script import ir as I\n"
      "@I.ir_module\n"
      "class Module:\n"
      "    @T.prim_func\n"
      "    def add(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
      "        T.evaluate(0)\n"
      "\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((4,), \"float32\")):\n"
      "        cls = Module\n"
      "        with R.dataflow():\n"
      "            lv = R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((4,), dtype=\"float32\"))\n"
      "            R.output(lv)\n"
      "        return lv\n");
  INFO(outcome.diagnostics);
  REQUIRE(outcome.parsed);
  CHECK(outcome.parsed->className == "Module");
  CHECK(outcome.parsed->module.lookup("add"));
  CHECK(ir::asRelaxFunction(outcome.parsed->module.lookup("main")));
}

TEST_CASE("statement errors", "[frontend][stmt]") {
  auto diagnosticsOf = [](const std::string &body) { return parseText(functionWithBody(body)).diagnostics; };
  CHECK_THAT(diagnosticsOf("for i, j in T.grid(4):\n    B[i] = 0"),
             Catch::Contains("T.grid has 1 extents but 2 loop variables are given"));
  CHECK_THAT(diagnosticsOf("T.reads(A[0])"), Catch::Contains("T.reads must be inside a block"));
  CHECK_THAT(diagnosticsOf("B[0:4] = 0"), Catch::Contains("cannot store into a slice of buffer 'B'"));
  CHECK_THAT(diagnosticsOf("x = 1\nx = 2"), Catch::Contains("redefinition of 'x'"));
  CHECK_THAT(diagnosticsOf("vi = T.axis.spatial(4, 0)"), Catch::Contains("T.axis.spatial must be inside a block"));
  CHECK_THAT(diagnosticsOf("for i in T.grid(4):\n    with T.block(\"b\"):\n        vi = T.axis.remap(\"S\", [i + 1])"),
             Catch::Contains("T.axis.remap binds loop variables only"));
  CHECK_THAT(diagnosticsOf("x: T.int32 = A[0]"),
             Catch::Contains("cannot initialise int32 variable 'x' with a value of type float32"));
  CHECK_THAT(parseText("x = 1\n").diagnostics,
             Catch::Contains("expected a @T.prim_func def or an @I.ir_module class"));
  CHECK_THAT(parseText("@foo\ndef f():\n    pass\n").diagnostics, Catch::Contains("unknown decorator '@foo'"));
}
