// Seed 004's schedules (the MLC course) reproduce its printed results, structurally, with the
// trace round trip.
#include <catch2/catch.hpp>

#include "ScheduleTestSupport.h"

using namespace vtac::passes::schedule::testing;

namespace {

const std::string kWindowThreads = "def s(sch):\n"
                                   "    block_C = sch.get_block(\"C\")\n"
                                   "    i, = sch.get_loops(block=block_C)\n"
                                   "    i0, i1 = sch.split(i, [None, 128])\n"
                                   "    sch.bind(i0, \"blockIdx.x\")\n"
                                   "    sch.bind(i1, \"threadIdx.x\")\n";
const std::string kWindowShared = kWindowThreads +
                                  "    A_shared = sch.cache_read(block_C, read_buffer_index=0, storage_scope=\"shared\")\n"
                                  "    sch.compute_at(A_shared, i1)\n";

}  // namespace

TEST_CASE("seed 004: compute_inline(B) gives before_inline_scheduled", "[schedule][seed]") {
  checkSchedule(sampleText("before_inline.tvm"), "def s(sch):\n    sch.compute_inline(sch.get_block(\"B\"))\n",
                sampleText("before_inline_scheduled.tvm"));
}

TEST_CASE("seed 004: the window sum bound to blocks and threads", "[schedule][seed]") {
  checkSchedule(sampleText("window_sum.tvm"), kWindowThreads, sampleText("window_sum_thread_bound.tvm"));
}

TEST_CASE("seed 004: the window sum with a shared cache computed at the thread loop", "[schedule][seed]") {
  checkSchedule(sampleText("window_sum.tvm"), kWindowShared, sampleText("window_sum_shared_cache.tvm"));
}

TEST_CASE("seed 004: the window sum with cooperative fetching", "[schedule][seed]") {
  checkSchedule(sampleText("window_sum.tvm"),
                kWindowShared + "    ax = sch.get_loops(A_shared)[-1]\n"
                                "    ax0, ax1 = sch.split(ax, [None, 128])\n"
                                "    sch.bind(ax1, \"threadIdx.x\")\n",
                sampleText("window_sum_cooperative_fetch.tvm"));
}

TEST_CASE("seed 004: the 1024 matmul with local blocking", "[schedule][seed]") {
  checkSchedule(sampleText("matmul_1024.tvm"),
                "def blocking(sch):\n"
                "    block_C = sch.get_block(\"C\")\n"
                "    C_local = sch.cache_write(block_C, 0, \"local\")\n"
                "    i, j, k = sch.get_loops(block=block_C)\n"
                "    i0, i1, i2 = sch.split(loop=i, factors=[None, 8, 8])\n"
                "    j0, j1, j2 = sch.split(loop=j, factors=[None, 8, 8])\n"
                "    k0, k1 = sch.split(loop=k, factors=[None, 4])\n"
                "    sch.unroll(k1)\n"
                "    sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)\n"
                "    sch.reverse_compute_at(C_local, j1)\n"
                "    sch.bind(i0, \"blockIdx.y\")\n"
                "    sch.bind(j0, \"blockIdx.x\")\n"
                "    sch.bind(i1, \"threadIdx.y\")\n"
                "    sch.bind(j1, \"threadIdx.x\")\n"
                "    sch.decompose_reduction(block_C, k0)\n",
                sampleText("matmul_1024_local_blocking.tvm"));
}
