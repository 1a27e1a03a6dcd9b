// ir::staticLoopSteps: the steps a run counts, known before it starts, or nullopt.
#include <catch2/catch.hpp>

#include "IRTestUtil.h"
#include "vtac/ir/LoopSteps.h"

using namespace vtac::ir;
using namespace vtac::ir::test;

namespace {

Stmt storeOne() {
  BufferRef a = buffer("A", {4});
  return store(a, f32(1), {i32(0)});
}

}  // namespace

TEST_CASE("staticLoopSteps counts every loop's iterations times its parents'", "[ir][loopsteps]") {
  VarRef i = makeVar("i"), j = makeVar("j"), k = makeVar("k");
  // 4 outer iterations, each running 3 + 5 inner ones: 4 + 4 * 8
  Stmt nest = loop(i, 4, seq({loop(j, 3, storeOne()), loop(k, 5, storeOne())}));
  CHECK(staticLoopSteps(nest) == std::optional<uint64_t>(36));
  CHECK(staticLoopSteps(storeOne()) == std::optional<uint64_t>(0));
  // an empty loop counts nothing, nor do the loops inside it
  CHECK(staticLoopSteps(loop(i, 0, loop(j, 7, storeOne()))) == std::optional<uint64_t>(0));
}

TEST_CASE("staticLoopSteps is unknown where the data decides", "[ir][loopsteps]") {
  VarRef i = makeVar("i"), j = makeVar("j"), n = makeVar("n");
  Stmt symbolic = make<For>(i, i32(0), n, ForKind::Serial, storeOne());
  CHECK_FALSE(staticLoopSteps(symbolic).has_value());
  Stmt conditional = loop(i, 4, make<IfThenElse>(binary(NodeKind::LT, i, i32(2)), loop(j, 3, storeOne())));
  CHECK_FALSE(staticLoopSteps(conditional).has_value());
  // a condition around plain statements changes nothing
  Stmt guarded = loop(i, 4, make<IfThenElse>(binary(NodeKind::LT, i, i32(2)), storeOne()));
  CHECK(staticLoopSteps(guarded) == std::optional<uint64_t>(4));
  Stmt whileLoop = make<While>(binary(NodeKind::LT, n, i32(2)), storeOne());
  CHECK_FALSE(staticLoopSteps(whileLoop).has_value());
}
