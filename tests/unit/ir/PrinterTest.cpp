// The TVMScript printer on small hand-built functions; each expected text is what TVM's
// printer writes for that IR (worked out from its rules, not copied from our output).
#include <catch2/catch.hpp>

#include "IRTestUtil.h"
#include "vtac/ir/Arith.h"

using namespace vtac::ir;
using namespace vtac::ir::test;

namespace {
PrintOptions noHeader() {
  PrintOptions o;
  o.headerComments = false;
  return o;
}
}  // namespace

TEST_CASE("plain buffers print as T.Buffer parameters, one loop as range", "[ir][printer]") {
  BufferRef A = buffer("A", {128}), B = buffer("B", {128});
  VarRef i = makeVar("i");
  AttrMap attrs;
  attrs.set("tir.noalias", true);
  attrs.set("global_symbol", "scale");
  auto f = funcWithBuffers({A, B}, loop(i, 128, store(B, mulExpr(load(A, {i}), f32(2.0)), {i})), attrs);
  CHECK(printPrimFunc(*f, "scale") ==
        "# from tvm.script import tir as T\n"
        "\n"
        "@T.prim_func\n"
        "def scale(A: T.Buffer((128,), \"float32\"), B: T.Buffer((128,), \"float32\")):\n"
        "    T.func_attr({\"global_symbol\": \"scale\", \"tir.noalias\": True})\n"
        "    for i in range(128):\n"
        "        B[i] = A[i] * T.float32(2.0)\n");
}

TEST_CASE("a perfect nest prints as T.grid and equal names get suffixes", "[ir][printer]") {
  BufferRef A = buffer("A", {4, 8}, DataType::int32());
  VarRef x1 = makeVar("x"), x2 = makeVar("x");
  auto f = funcWithBuffers({A}, loop(x1, 4, loop(x2, 8, store(A, addExpr(x1, x2), {x1, x2}))));
  CHECK(printPrimFunc(*f, "f", noHeader()) ==
        "@T.prim_func\n"
        "def f(A: T.Buffer((4, 8), \"int32\")):\n"
        "    for x, x_1 in T.grid(4, 8):\n"
        "        A[x, x_1] = x + x_1\n");
}

TEST_CASE("names are reused once their scope is closed", "[ir][printer]") {
  BufferRef A = buffer("A", {4}, DataType::int32());
  VarRef i1 = makeVar("i"), i2 = makeVar("i");
  Stmt body = seq({loop(i1, 4, store(A, i32(0), {i1})), loop(i2, 4, store(A, i2, {i2}), ForKind::Parallel)});
  auto f = funcWithBuffers({A}, body);
  CHECK(printPrimFunc(*f, "f", noHeader()) ==
        "@T.prim_func\n"
        "def f(A: T.Buffer((4,), \"int32\")):\n"
        "    for i in range(4):\n"
        "        A[i] = 0\n"
        "    for i in T.parallel(4):\n"
        "        A[i] = i\n");
}

TEST_CASE("lowered VTA statements: free variables, attributes, intrinsics", "[ir][printer]") {
  VarRef vta = makeVar("vta");
  IterVarRef scope = make<IterVar>(vta, Range{}, IterType::ThreadIndex, "vta");
  Stmt inner = seq({eval(call(DataType::int32(), "tir.call_extern", {make<StringImm>("VTAUopLoopEnd")})),
                    eval(call(DataType::int32(), "tir.vta.coproc_sync", {}))});
  Stmt body = seq({eval(call(DataType::int32(), "tir.vta.coproc_dep_push", {i32(3), i32(2)})),
                   make<AttrStmt>(scope, "coproc_scope", i32(2), inner)});
  auto f = make<PrimFunc>(std::vector<VarRef>{}, std::vector<std::pair<VarRef, BufferRef>>{}, body);
  // vta is used only by the attribute, so it is declared in the function body just before it;
  // the attribute ends the body, so its own body follows at the same level (concise scoping).
  CHECK(printPrimFunc(*f, "f", noHeader()) ==
        "@T.prim_func\n"
        "def f():\n"
        "    T.tir.vta.coproc_dep_push(3, 2)\n"
        "    vta = T.int32()\n"
        "    T.attr(T.iter_var(vta, None, \"ThreadIndex\", \"vta\"), \"coproc_scope\", 2)\n"
        "    T.call_extern(\"int32\", \"VTAUopLoopEnd\")\n"
        "    T.tir.vta.coproc_sync()\n");
}

TEST_CASE("an attribute that is not last in its sequence prints as a with-scope", "[ir][printer]") {
  VarRef vta = makeVar("vta");
  IterVarRef scope = make<IterVar>(vta, Range{}, IterType::ThreadIndex, "vta");
  Stmt sync = eval(call(DataType::int32(), "tir.vta.coproc_sync", {}));
  Stmt body = seq({make<AttrStmt>(scope, "coproc_scope", i32(3), sync), sync});
  auto f = make<PrimFunc>(std::vector<VarRef>{}, std::vector<std::pair<VarRef, BufferRef>>{}, body);
  CHECK(printPrimFunc(*f, "f", noHeader()) ==
        "@T.prim_func\n"
        "def f():\n"
        "    vta = T.int32()\n"
        "    with T.attr(T.iter_var(vta, None, \"ThreadIndex\", \"vta\"), \"coproc_scope\", 3):\n"
        "        T.tir.vta.coproc_sync()\n"
        "    T.tir.vta.coproc_sync()\n");
}

TEST_CASE("operators print with Python precedence and minimal parentheses", "[ir][printer]") {
  VarRef a = makeVar("a"), b = makeVar("b"), c = makeVar("c");
  CHECK(printExpr(mulExpr(addExpr(a, b), c)) == "(a + b) * c");
  CHECK(printExpr(addExpr(a, mulExpr(b, c))) == "a + b * c");
  CHECK(printExpr(subExpr(subExpr(a, b), c)) == "a - b - c");
  CHECK(printExpr(subExpr(a, subExpr(b, c))) == "a - (b - c)");
  CHECK(printExpr(floorDivExpr(a, mulExpr(b, c))) == "a // (b * c)");
  CHECK(printExpr(floorModExpr(addExpr(a, i32(1)), i32(4))) == "(a + 1) % 4");
  Expr inRange = makeBinary(NodeKind::And, makeBinary(NodeKind::LE, i32(1), a), makeBinary(NodeKind::LT, a, i32(15)));
  CHECK(printExpr(inRange) == "1 <= a and a < 15");
  CHECK(printExpr(notExpr(makeBinary(NodeKind::LT, a, b))) == "not a < b");
  CHECK(printExpr(makeBinary(NodeKind::Or, inRange, makeBinary(NodeKind::EQ, a, b))) ==
        "1 <= a and a < 15 or a == b");
  CHECK(printExpr(makeBinary(NodeKind::And, makeBinary(NodeKind::Or, makeBinary(NodeKind::EQ, a, b),
                                                       makeBinary(NodeKind::EQ, a, c)),
                             makeBinary(NodeKind::NE, b, c))) == "(a == b or a == c) and b != c");
}

TEST_CASE("nodes that an operator would fold or retype print as T.<Op> calls", "[ir][printer]") {
  VarRef a = makeVar("a");
  VarRef n = makeVar("n", DataType::int64());
  CHECK(printExpr(make<BinaryExpr>(NodeKind::Add, i32(1), i32(2))) == "T.Add(1, 2)");
  CHECK(printExpr(make<BinaryExpr>(NodeKind::Mul, a, i32(1))) == "T.Mul(a, 1)");
  CHECK(printExpr(make<BinaryExpr>(NodeKind::Add, n, Expr(a))) == "T.Add(n, a)");
  CHECK(printExpr(make<BinaryExpr>(NodeKind::Div, a, i32(2))) == "T.Div(a, 2)");
  CHECK(printExpr(make<BinaryExpr>(NodeKind::Mod, a, i32(2))) == "T.truncmod(a, 2)");
  CHECK(printExpr(make<BinaryExpr>(NodeKind::Max, a, i32(0))) == "T.max(a, 0)");
  CHECK(printExpr(addExpr(n, intImm(128, DataType::int64()))) == "n + T.int64(128)");
}

TEST_CASE("vector and let expressions", "[ir][printer]") {
  VarRef x = makeVar("x"), y = makeVar("y");
  CHECK(printExpr(make<Ramp>(x, i32(1), 4)) == "T.Ramp(x, 1, 4)");
  CHECK(printExpr(make<Broadcast>(f32(0.0), 8)) == "T.Broadcast(T.float32(0.0), 8)");
  CHECK(printExpr(make<Let>(y, addExpr(x, i32(1)), mulExpr(y, y))) == "T.Let(y * y, where={y: x + 1})");
  CHECK(printExpr(make<Select>(boolImm(false), x, y)) == "T.Select(T.bool(False), x, y)");
}

TEST_CASE("literals, casts and calls", "[ir][printer]") {
  VarRef x = makeVar("x", DataType::int32());
  CHECK(printExpr(floatImm(0.0)) == "T.float32(0.0)");
  CHECK(printExpr(floatImm(0.5, DataType::floatTy(16))) == "T.float16(0.5)");
  CHECK(printExpr(intImm(-3, DataType::intTy(8))) == "T.int8(-3)");
  CHECK(printExpr(boolImm(true)) == "T.bool(True)");
  CHECK(printExpr(make<StringImm>("a\"b")) == "\"a\\\"b\"");
  CHECK(printExpr(make<Cast>(DataType::intTy(8), x)) == "T.Cast(\"int8\", x)");
  CHECK(printExpr(call(DataType::int32(), "tir.shift_right", {x, i32(8)})) == "T.shift_right(x, 8)");
  CHECK(printExpr(call(DataType::int32(), "tir.if_then_else", {boolImm(true), x, i32(0)})) ==
        "T.if_then_else(T.bool(True), x, 0)");
  // Not in the builtin table, or typed unlike the table says: the general form.
  CHECK(printExpr(call(DataType::floatTy(32), "tir.my_op", {x})) == "T.call_intrin(\"float32\", \"tir.my_op\", x)");
  CHECK(printExpr(call(DataType::int64(), "tir.shift_right", {x, i32(8)})) ==
        "T.call_intrin(\"int64\", \"tir.shift_right\", x, 8)");
}

TEST_CASE("blocks: remap, single axes, where, reads/writes, init, root allocation", "[ir][printer]") {
  BufferRef A = buffer("A", {1024}), B = buffer("B", {1024});
  BufferRef S = buffer("S", {1024}, DataType::float32(), "shared");
  VarRef i0 = makeVar("i_0"), i1 = makeVar("i_1"), vi = makeVar("vi");
  Expr binding = addExpr(mulExpr(i0, i32(128)), i1);
  Stmt block = blockRealize("C", {axis(vi, 1024)}, {binding}, {point(S, {vi})}, {point(B, {vi})},
                            store(B, load(S, {vi}), {vi}), store(B, f32(0.0), {vi}),
                            makeBinary(NodeKind::LT, binding, i32(1000)));
  Stmt body = rootBlock(loop(i0, 8, loop(i1, 128, block, ForKind::Unrolled)), {S});
  auto f = funcWithBuffers({A, B}, body);
  CHECK(printPrimFunc(*f, "main", noHeader()) ==
        "@T.prim_func\n"
        "def main(A: T.Buffer((1024,), \"float32\"), B: T.Buffer((1024,), \"float32\")):\n"
        "    # with T.block(\"root\"):\n"
        "    S = T.alloc_buffer((1024,), scope=\"shared\")\n"
        "    for i_0 in range(8):\n"
        "        for i_1 in T.unroll(128):\n"
        "            with T.block(\"C\"):\n"
        "                vi = T.axis.spatial(1024, i_0 * 128 + i_1)\n"
        "                T.where(i_0 * 128 + i_1 < 1000)\n"
        "                T.reads(S[vi])\n"
        "                T.writes(B[vi])\n"
        "                with T.init():\n"
        "                    B[vi] = T.float32(0.0)\n"
        "                B[vi] = S[vi]\n");
}

TEST_CASE("block axes bound to loop variables print as T.axis.remap", "[ir][printer]") {
  BufferRef C = buffer("C", {16, 16});
  VarRef i = makeVar("i"), j = makeVar("j"), k = makeVar("k");
  VarRef vi = makeVar("vi"), vj = makeVar("vj"), vk = makeVar("vk");
  BufferRegion full{C, {Range{i32(0), i32(16)}, Range{i32(0), i32(16)}}};
  Stmt block = blockRealize("C", {axis(vi, 16), axis(vj, 16), axis(vk, 16, IterType::CommReduce)}, {i, j, k},
                            {}, {full}, store(C, f32(1.0), {vi, vj}));
  auto f = funcWithBuffers({C}, rootBlock(loop(i, 16, loop(j, 16, loop(k, 16, block)))));
  CHECK(printPrimFunc(*f, "main", noHeader()) ==
        "@T.prim_func\n"
        "def main(C: T.Buffer((16, 16), \"float32\")):\n"
        "    # with T.block(\"root\"):\n"
        "    for i, j, k in T.grid(16, 16, 16):\n"
        "        with T.block(\"C\"):\n"
        "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
        "            T.reads()\n"
        "            T.writes(C[0:16, 0:16])\n"
        "            C[vi, vj] = T.float32(1.0)\n");
}

TEST_CASE("symbolic shapes: T.handle parameters with T.match_buffer", "[ir][printer]") {
  VarRef n = makeVar("n", DataType::int64());
  BufferRef X = makeBuffer("X", DataType::float32(), {intImm(1, DataType::int64()), n});
  BufferRef Y = makeBuffer("Y", DataType::intTy(8), {n}, "local.acc_buffer");
  auto f = funcWithBuffers({X, Y}, eval(i32(0)));
  // The parameters keep the buffers' names; the buffers then get X_1 / Y_1.
  CHECK(printPrimFunc(*f, "f", noHeader()) ==
        "@T.prim_func\n"
        "def f(X: T.handle, Y: T.handle):\n"
        "    n = T.int64()\n"
        "    X_1 = T.match_buffer(X, (T.int64(1), n))\n"
        "    Y_1 = T.match_buffer(Y, (n,), \"int8\", scope=\"local.acc_buffer\")\n"
        "    T.evaluate(0)\n");
}

TEST_CASE("allocations: decl_buffer pairs, allocate with a buffer view, lets", "[ir][printer]") {
  BufferRef out = buffer("out", {64}, DataType::intTy(8));
  // Allocate + DeclBuffer of the same variable: one T.decl_buffer line.
  BufferRef tmp = buffer("tmp", {64}, DataType::intTy(8));
  Stmt decl = make<Allocate>(tmp->data, DataType::intTy(8), std::vector<Expr>{i32(64)}, nullptr,
                             make<DeclBuffer>(tmp, store(tmp, intImm(1, DataType::intTy(8)), {i32(0)})));
  // Allocate alone; the buffer over it is declared where it is used.
  VarRef raw = make<Var>("raw", PointerType{DataType::int32(), "local.acc_buffer"});
  BufferRef view = make<Buffer>("view", raw, DataType::int32(), std::vector<Expr>{i32(16)});
  VarRef x = makeVar("x");
  Stmt let = make<LetStmt>(x, mulExpr(i32(2), i32(4)), store(view, x, {x}));
  Stmt alloc = make<Allocate>(raw, DataType::int32(), std::vector<Expr>{i32(16)}, boolImm(true), let);
  auto f = funcWithBuffers({out}, seq({decl, alloc}));
  CHECK(printPrimFunc(*f, "f", noHeader()) ==
        "@T.prim_func\n"
        "def f(out: T.Buffer((64,), \"int8\")):\n"
        "    with T.decl_buffer((64,), \"int8\") as tmp:\n"
        "        tmp[0] = T.int8(1)\n"
        "    raw = T.allocate([16], \"int32\", \"local.acc_buffer\")\n"
        "    x: T.int32 = 8\n"
        "    view = T.Buffer((16,), \"int32\", data=raw, scope=\"local.acc_buffer\")\n"
        "    view[x] = x\n");
}

TEST_CASE("if/else, while, evaluate and assert", "[ir][printer]") {
  VarRef c = makeVar("c");
  Stmt sync = eval(call(DataType::int32(), "tir.vta.coproc_sync", {}));
  Stmt ifElse = make<IfThenElse>(makeBinary(NodeKind::GT, c, i32(0)), sync, eval(i32(1)));
  Stmt loopWhile = make<While>(makeBinary(NodeKind::LT, c, i32(4)), sync);
  Stmt check = make<AssertStmt>(makeBinary(NodeKind::GE, c, i32(0)), make<StringImm>("negative"), sync);
  auto f = make<PrimFunc>(std::vector<VarRef>{c}, std::vector<std::pair<VarRef, BufferRef>>{},
                          seq({ifElse, loopWhile, check}));
  CHECK(printPrimFunc(*f, "f", noHeader()) ==
        "@T.prim_func\n"
        "def f(c: T.int32):\n"
        "    if c > 0:\n"
        "        T.tir.vta.coproc_sync()\n"
        "    else:\n"
        "        T.evaluate(1)\n"
        "    while c < 4:\n"
        "        T.tir.vta.coproc_sync()\n"
        "    assert c >= 0, \"negative\"\n"
        "    T.tir.vta.coproc_sync()\n");
}

TEST_CASE("modules: header, prim_funcs by name with main last, blank lines between", "[ir][printer]") {
  IRModule m;
  auto empty = [] {
    return make<PrimFunc>(std::vector<VarRef>{}, std::vector<std::pair<VarRef, BufferRef>>{}, eval(i32(0)));
  };
  m.add("main", empty());
  m.add("b", empty());
  m.add("a", empty());
  CHECK(printModule(m) ==
        "# from tvm.script import ir as I\n"
        "# from tvm.script import tir as T\n"
        "\n"
        "@I.ir_module\n"
        "class Module:\n"
        "    @T.prim_func\n"
        "    def a():\n"
        "        T.evaluate(0)\n"
        "\n"
        "    @T.prim_func\n"
        "    def b():\n"
        "        T.evaluate(0)\n"
        "\n"
        "    @T.prim_func\n"
        "    def main():\n"
        "        T.evaluate(0)\n");
}

TEST_CASE("printStmt declares free variables first", "[ir][printer]") {
  BufferRef A = buffer("A", {8}, DataType::int32());
  VarRef n = makeVar("n");
  CHECK(printStmt(store(A, n, {i32(0)})) ==
        "A = T.Buffer((8,), \"int32\")\n"
        "n = T.int32()\n"
        "A[0] = n\n");
}

TEST_CASE("loop kinds, non-zero starts, thread bindings and annotations", "[ir][printer]") {
  BufferRef A = buffer("A", {64});
  VarRef i = makeVar("i"), t = makeVar("t"), v = makeVar("v"), s = makeVar("s");
  IterVarRef block = make<IterVar>(makeVar("blockIdx.x"), rangeFromExtent(i32(8)), IterType::ThreadIndex, "blockIdx.x");
  AttrMap ann;
  ann.set("pragma_unroll_explicit", int64_t(1));
  ann.set("list", AttrValue::Array{int64_t(1), "x"});
  Stmt body = seq({
      make<For>(i, i32(2), i32(8), ForKind::Serial, store(A, f32(0.0), {i})),
      make<For>(t, i32(0), i32(8), ForKind::ThreadBinding, store(A, f32(1.0), {t}), block),
      make<For>(v, i32(0), i32(4), ForKind::Vectorized, store(A, f32(2.0), {v})),
      make<For>(s, i32(0), i32(4), ForKind::Serial, store(A, f32(3.0), {s}), nullptr, ann),
  });
  auto f = funcWithBuffers({A}, body);
  CHECK(printPrimFunc(*f, "f", noHeader()) ==
        "@T.prim_func\n"
        "def f(A: T.Buffer((64,), \"float32\")):\n"
        "    for i in range(2, 10):\n"
        "        A[i] = T.float32(0.0)\n"
        "    for t in T.thread_binding(8, thread=\"blockIdx.x\"):\n"
        "        A[t] = T.float32(1.0)\n"
        "    for v in T.vectorized(4):\n"
        "        A[v] = T.float32(2.0)\n"
        "    for s in T.serial(4, annotations={\"list\": [1, \"x\"], \"pragma_unroll_explicit\": 1}):\n"
        "        A[s] = T.float32(3.0)\n");
}
