// get_producers/get_consumers/get_child_blocks, reverse_compute_inline and cache_write's
// consumer_blocks through the trace applier: what the navigation steps return (as later steps
// use it), round trip, and misuses as error values.
#include <catch2/catch.hpp>

#include "ScheduleTestSupport.h"

using namespace vtac::passes::schedule::testing;

namespace {

const char *kTwoProducers = R"(@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), D: T.Buffer((128, 128), "float32")):
    B = T.alloc_buffer((128, 128))
    C = T.alloc_buffer((128, 128))
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(128, 128):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(128, 128):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = B[vi, vj] + C[vi, vj]
)";

}  // namespace

TEST_CASE("get_producers of a block with two producers gives both, in program order", "[schedule][navigation]") {
  Applied applied = applyText(kTwoProducers,
                              "def s(sch):\n    b, c = sch.get_producers(sch.get_block(\"D\"))\n"
                              "    sch.compute_inline(b)\n    sch.compute_inline(c)\n");
  INFO(applied.error);
  REQUIRE(applied.module);
  CHECK(applied.printedTrace.find("b1, b2 = sch.get_producers(block=b0)") != std::string::npos);
  checkSchedule(kTwoProducers, applied.printedTrace, R"(@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), D: T.Buffer((128, 128), "float32")):
    for i, j in T.grid(128, 128):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = A[vi, vj] * T.float32(2) + (A[vi, vj] + T.float32(1))
)");
}

TEST_CASE("get_consumers and get_child_blocks name the blocks a later step can use", "[schedule][navigation]") {
  Applied applied = applyText(kTwoProducers,
                              "def s(sch):\n    d, = sch.get_consumers(sch.get_block(\"B\"))\n"
                              "    x, y, z = sch.get_child_blocks(sch.get_block(\"root\"))\n"
                              "    i, j = sch.get_loops(d)\n");
  INFO(applied.error);
  REQUIRE(applied.module);
  CHECK(applied.printedTrace.find("b1, = sch.get_consumers(block=b0)") != std::string::npos);
  CHECK(applied.printedTrace.find("b3, b4, b5 = sch.get_child_blocks(b2)") != std::string::npos);
  CHECK(applied.printedTrace.find("l6, l7 = sch.get_loops(block=b1)") != std::string::npos);
}

TEST_CASE("reverse_compute_inline errors: two producers, a load that is not one-to-one", "[schedule][reverse_compute_inline]") {
  checkScheduleError(kTwoProducers, "def s(sch):\n    sch.reverse_compute_inline(sch.get_block(\"D\"))\n",
                     "schedule.py:2:32: error: reverse_compute_inline: the block 'D' reads 2 buffers that blocks in "
                     "its scope write; it needs exactly one");
  std::string affineLoad = kTwoProducers;
  affineLoad.replace(affineLoad.find("B[vi, vj] + C"), 13, "B[vi // 2 * 2, vj] + C");
  checkScheduleError(affineLoad,
                     "def s(sch):\n    sch.compute_inline(sch.get_block(\"C\"))\n"
                     "    sch.reverse_compute_inline(sch.get_block(\"D\"))\n",
                     "does not load 'B' once per element, at one affine map of its iterators that is one-to-one into "
                     "the buffer");
}

TEST_CASE("cache_write's consumer_blocks must read the buffer", "[schedule][cache_write]") {
  checkScheduleError(kTwoProducers,
                     "def s(sch):\n    c = sch.get_block(\"C\")\n    sch.cache_write(sch.get_block(\"B\"), 0, \"local\", consumer_blocks=[c])\n",
                     "cache_write: consumer_blocks names 'C', which does not read the buffer 'B'");
}
