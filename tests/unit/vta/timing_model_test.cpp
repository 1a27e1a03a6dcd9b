// The timing model on hand-built programs: module overlap, token waits, fetch's bounded
// command queues, deadlock; and the instruction costs from the timing parameters.
#include <catch2/catch.hpp>

#include "insn_cycles.h"
#include "timing_model.h"

using namespace vta;
using namespace vta::sim;

namespace {

// An instruction fetched for free, so that times are the execution costs alone.
TimedInsn insn(int module, uint64_t cycles, isa::DepFlags deps = {}) {
  return {module, deps, /*fetchCycles=*/0, cycles};
}

std::vector<uint64_t> starts(const ProgramTiming& timing) {
  std::vector<uint64_t> result;
  for (const ProgramTiming::Insn& insn : timing.insns) result.push_back(insn.start);
  return result;
}

constexpr isa::DepFlags kPushNext{false, false, false, true};
constexpr isa::DepFlags kPopPrev{true, false, false, false};
constexpr isa::DepFlags kPopPrevPushNext{true, false, false, true};

}  // namespace

TEST_CASE("a load -> compute -> store chain takes the sum of its costs", "[vta][timing]") {
  const ProgramTiming timing = timeProgram({insn(kLoadModule, 10, kPushNext),
                                            insn(kComputeModule, 20, kPopPrevPushNext),
                                            insn(kStoreModule, 5, kPopPrev)},
                                           512);
  REQUIRE(timing.complete);
  CHECK(timing.cycles == 10 + 20 + 5);
  CHECK(starts(timing) == std::vector<uint64_t>{0, 10, 30});
  CHECK(timing.insns[2].end == 35);
  // Compute and store had their instructions from cycle 0 and waited for the tokens.
  CHECK(timing.modules[kComputeModule].stalled == 10);
  CHECK(timing.modules[kStoreModule].stalled == 30);
  CHECK(timing.modules[kLoadModule].busy == 10);
}

TEST_CASE("a second load overlaps with the first compute", "[vta][timing]") {
  // load A, compute A, load B, compute B: B's load runs while A computes.
  const ProgramTiming timing = timeProgram({insn(kLoadModule, 10, kPushNext),
                                            insn(kComputeModule, 20, kPopPrev),
                                            insn(kLoadModule, 10, kPushNext),
                                            insn(kComputeModule, 20, kPopPrev)},
                                           512);
  REQUIRE(timing.complete);
  CHECK(starts(timing) == std::vector<uint64_t>{0, 10, 10, 30});
  CHECK(timing.cycles == 50);  // not 60, as one module doing everything would take
  CHECK(timing.modules[kLoadModule].busy == 20);
  CHECK(timing.modules[kComputeModule].busy == 40);
  CHECK(timing.modules[kComputeModule].stalled == 10);  // only the first waits
}

TEST_CASE("a token pushed back lets the producer run again only when it is popped", "[vta][timing]") {
  // The load of the second tile waits for compute to free the buffer (compute -> load token).
  const isa::DepFlags popNextPushNext{false, true, false, true};
  const isa::DepFlags popPrevPushPrev{true, false, true, false};
  const ProgramTiming timing = timeProgram({insn(kLoadModule, 10, kPushNext),
                                            insn(kComputeModule, 20, popPrevPushPrev),
                                            insn(kLoadModule, 10, popNextPushNext),
                                            insn(kComputeModule, 20, kPopPrev)},
                                           512);
  REQUIRE(timing.complete);
  CHECK(starts(timing) == std::vector<uint64_t>{0, 10, 30, 40});
  CHECK(timing.cycles == 60);
  CHECK(timing.modules[kLoadModule].stalled == 20);
}

TEST_CASE("fetch stalls while the command queue of the next instruction is full", "[vta][timing]") {
  // Queues of one instruction: fetching the third compute instruction waits until the second
  // leaves its queue (when the first ends, at 101), and the load behind it in program order
  // waits with it.
  std::vector<TimedInsn> program = {{kComputeModule, {}, 1, 100},
                                    {kComputeModule, {}, 1, 100},
                                    {kComputeModule, {}, 1, 100},
                                    {kLoadModule, {}, 1, 1}};
  const ProgramTiming timing = timeProgram(program, 1);
  REQUIRE(timing.complete);
  // The third is fetched at 101 (when the second leaves the queue), the load at 102.
  CHECK(timing.insns[2].start == 201);
  CHECK(timing.insns[3].start == 103);
  CHECK(timing.modules[kFetchModule].stalled == 99);
  CHECK(timing.modules[kFetchModule].busy == 4);
  // Deep queues: the load runs at once.
  CHECK(timeProgram(program, 512).insns[3].start == 4);
}

TEST_CASE("a program whose pops are never pushed is not complete", "[vta][timing]") {
  const ProgramTiming timing =
      timeProgram({insn(kLoadModule, 10), insn(kComputeModule, 20, kPopPrev)}, 512);
  CHECK_FALSE(timing.complete);
  CHECK(timing.insns[0].end == 10);  // what could run did
}

TEST_CASE("instruction costs follow the timing parameters", "[vta][timing]") {
  Config config = Config::tvmDefault();
  const TimingParameters& t = config.timing;
  // One row of one 16-byte tile: a request and two 8-byte beats.
  CHECK(dmaCycles(1, 16, t) == t.dramLatency + 2);
  // A 4 KiB row is 512 beats, two bursts of 256: two requests.
  CHECK(dmaCycles(1, 4096, t) == 2 * t.dramLatency + 512);
  CHECK(dmaCycles(3, 16, t) == 3 * (t.dramLatency + 2));
  CHECK(dmaCycles(0, 16, t) == 0);

  isa::MemInsn load;
  load.opcode = isa::kOpLoad;
  load.memoryType = isa::kMemInp;
  load.ySize = 2, load.xSize = 3, load.xStride = 3;
  CHECK(memCycles(load, config) == dmaCycles(2, 3 * 16, t));
  // Padding: a row of 1 + 3 + 1 above and below, and 2 columns beside each of the 2 rows.
  load.yPad0 = load.yPad1 = load.xPad0 = load.xPad1 = 1;
  CHECK(memCycles(load, config) == dmaCycles(2, 3 * 16, t) + 2 * 5 + 2 * 2);
  load.memoryType = isa::kMemWgt;
  load.yPad0 = load.yPad1 = load.xPad0 = load.xPad1 = 0;
  CHECK(memCycles(load, config) == dmaCycles(2, 3 * 256, t));
  load.xSize = 0;
  CHECK(memCycles(load, config) == kDispatchCycles);

  isa::MemInsn store;
  store.opcode = isa::kOpStore;
  store.memoryType = isa::kMemOut;
  store.ySize = 4, store.xSize = 2, store.xStride = 2;
  CHECK(memCycles(store, config) == dmaCycles(4, 2 * 16, t));

  isa::UopLoops loops;
  loops.uopBgn = 2, loops.uopEnd = 5, loops.iterOut = 7, loops.iterIn = 11;
  CHECK(uopLoopCycles(loops, 1, 4) == 7 * 11 * 3 + 4);
  CHECK(uopLoopCycles(loops, 2, 4) == 2 * 7 * 11 * 3 + 4);

  // 16-byte instructions, 8 bytes a beat, bursts of 256 beats: 128 instructions a request.
  CHECK(fetchCycles(0, config) == t.dramLatency + 2);
  CHECK(fetchCycles(1, config) == 2);
  CHECK(fetchCycles(128, config) == t.dramLatency + 2);
}

TEST_CASE("timing parameters come from vta_config.json's timing object", "[vta][timing][config]") {
  auto config = Config::fromJSON(R"({"timing": {"mem_bus_bytes": 16, "dram_latency": 0, "alu_ii": 1}})");
  REQUIRE(static_cast<bool>(config));
  CHECK(config->timing.memBusBytes == 16);
  CHECK(config->timing.dramLatency == 0);
  CHECK(config->timing.aluII == 1);
  CHECK(config->timing.gemmII == TimingParameters{}.gemmII);
  auto again = Config::fromJSON(config->toJSON());
  REQUIRE(static_cast<bool>(again));
  CHECK(again->timing.memBusBytes == 16);

  auto expectError = [](const char* json, const std::string& fragment) {
    auto bad = Config::fromJSON(json);
    REQUIRE_FALSE(static_cast<bool>(bad));
    const std::string message = llvm::toString(bad.takeError());
    CAPTURE(message);
    CHECK(message.find(fragment) != std::string::npos);
  };
  expectError(R"({"timing": 3})", "timing must be a JSON object");
  expectError(R"({"timing": {"gem_ii": 1}})", "timing: unknown key 'gem_ii'");
  expectError(R"({"timing": {"gemm_ii": 0}})", "timing.gemm_ii must be an integer in [1, 1048576]");
  expectError(R"({"timing": {"dram_latency": -1}})", "timing.dram_latency must be an integer in [0,");
}
