// get_block, get_loops, split, fuse, reorder: results compared structurally with TVM's printed
// results (seed 004's samples, transcriptions of tests/python/tir-schedule), trace round trip.
#include <catch2/catch.hpp>

#include "ScheduleTestSupport.h"

using namespace vtac::passes::schedule::testing;

namespace {

const char *kElementwise = R"(@T.prim_func
def elementwise(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
)";

}  // namespace

TEST_CASE("seed 004: fuse(i, j) gives the printed before_fuse_scheduled", "[schedule][fuse]") {
  checkSchedule(sampleText("before_fuse.tvm"),
                "def s(sch):\n    i, j = sch.get_loops(sch.get_block(\"B\"))\n    sch.fuse(i, j)\n",
                sampleText("before_fuse_scheduled.tvm"));
}

TEST_CASE("seed 004: three splits by 16 and a reorder give matmul_module_split", "[schedule][split][reorder]") {
  checkSchedule(sampleText("matmul_module.tvm"),
                "def s(sch):\n"
                "    i, j, k = sch.get_loops(\"matmul\")\n"
                "    i, ii = sch.split(i, factors=[None, 16])\n"
                "    j, ji = sch.split(j, factors=[None, 16])\n"
                "    k, ki = sch.split(k, factors=[None, 16])\n"
                "    sch.reorder(i, j, k, ii, ji, ki)\n",
                sampleText("matmul_module_split.tvm"));
}

TEST_CASE("split into three factors simplifies the binding as TVM does", "[schedule][split]") {
  checkSchedule(kElementwise,
                "def s(sch):\n    i, j, k = sch.get_loops(sch.get_block(\"B\"))\n    sch.split(i, factors=[2, None, 8])\n",
                R"(@T.prim_func
def elementwise(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    for i_0, i_1, i_2, j, k in T.grid(2, 8, 8, 128, 128):
        with T.block("B"):
            vi = T.axis.spatial(128, i_0 * 64 + i_1 * 8 + i_2)
            vj, vk = T.axis.remap("SS", [j, k])
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
)");
}

TEST_CASE("a split that does not divide the extent adds a predicate", "[schedule][split]") {
  checkSchedule(kElementwise,
                "def s(sch):\n    i, j, k = sch.get_loops(sch.get_block(\"B\"))\n    sch.split(k, factors=[None, 5])\n",
                R"(@T.prim_func
def elementwise(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    for i, j, k_0, k_1 in T.grid(128, 128, 26, 5):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            vk = T.axis.spatial(128, k_0 * 5 + k_1)
            T.where(k_0 * 5 + k_1 < 128)
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
)");
}

TEST_CASE("fuse of three loops (TVM's elementwise_fused)", "[schedule][fuse]") {
  checkSchedule(kElementwise,
                "def s(sch):\n    i, j, k = sch.get_loops(sch.get_block(\"B\"))\n    sch.fuse(i, j, k)\n",
                R"(@T.prim_func
def elementwise(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    for i_j_k_fused in range(2097152):
        with T.block("B"):
            vi = T.axis.spatial(128, i_j_k_fused // 16384)
            vj = T.axis.spatial(128, i_j_k_fused % 16384 // 128)
            vk = T.axis.spatial(128, i_j_k_fused % 128)
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
)");
}

TEST_CASE("reorder keeps loops that are not named in place", "[schedule][reorder]") {
  checkSchedule(kElementwise,
                "def s(sch):\n    i, j, k = sch.get_loops(sch.get_block(\"B\"))\n    sch.reorder(k, i)\n",
                R"(@T.prim_func
def elementwise(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    for k, j, i in T.grid(128, 128, 128):
        with T.block("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
)");
}

TEST_CASE("illegal loop steps are errors at the step", "[schedule][errors]") {
  std::string loops = "def s(sch):\n    i, j, k = sch.get_loops(sch.get_block(\"B\"))\n";
  checkScheduleError(kElementwise, "def s(sch):\n    sch.get_block(\"X\")\n",
                     "schedule.py:2:19: error: no block named 'X' in 'elementwise'");
  checkScheduleError(kElementwise, loops + "    sch.split(i, factors=[None, None])\n",
                     "schedule.py:3:33: error: split: at most one factor can be None");
  checkScheduleError(kElementwise, loops + "    sch.split(i, factors=[0, 4])\n",
                     "split: factor 0 is not positive");
  checkScheduleError(kElementwise, loops + "    a, b = sch.split(i, factors=[2, 64])\n    sch.split(i, [2, 64])\n",
                     "schedule.py:4:15: error: the loop 'i' is no longer in 'elementwise'");
  checkScheduleError(kElementwise, loops + "    sch.fuse(i, k)\n",
                     "schedule.py:3:17: error: fuse: the loop 'k' is not the only child of 'i'");
  checkScheduleError(kElementwise, loops + "    sch.reorder(i, i)\n",
                     "schedule.py:3:20: error: reorder: the loop 'i' is given twice");
  checkScheduleError(kElementwise, loops + "    sch.unknown_thing(i)\n",
                     "schedule.py:3:5: error: unknown schedule primitive 'sch.unknown_thing'");
  checkScheduleError(kElementwise, loops + "    sch.split(i, factors=[2, 64], bogus=1)\n",
                     "schedule.py:3:41: error: sch.split has no parameter 'bogus'");
  checkScheduleError(kElementwise, loops + "    sch.split(i)\n",
                     "schedule.py:3:5: error: sch.split needs the argument 'factors'");
  checkScheduleError(kElementwise, loops + "    a, b, c = sch.split(i, factors=[2, 64])\n",
                     "sch.split gives 2 results, 3 names bind them");
  checkScheduleError(kElementwise, loops + "    sch.split(sch.get_block(\"B\"), factors=[2, 64])\n",
                     "is not a loop");
}
