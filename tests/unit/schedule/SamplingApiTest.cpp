// The schedule API below the text: applyTrace's seeds and decisions over many seeds, the module
// left alone by a failing schedule, and located errors as values from Schedule's lookups.
#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "ScheduleTestSupport.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/passes/schedule/ApplyTrace.h"

using namespace vtac;
using namespace vtac::passes::schedule;
using namespace vtac::passes::schedule::testing;

namespace {

const char *kElementwise2D = R"(@T.prim_func
def main(A: T.Buffer((128, 64), "float32"), C: T.Buffer((128, 64), "float32")):
    for i, j in T.grid(128, 64):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] + T.float32(1)
)";

// The printed trace of `traceText` applied with `seed`.
std::string traceWithSeed(const std::string &traceText, uint64_t seed) {
  ir::IRModule module = parseModuleText(kElementwise2D);
  llvm::Expected<ir::Trace> applied = applyTrace(module, readTraceText(traceText), {}, seed);
  REQUIRE(bool(applied));
  return ir::printTrace(*applied);
}

std::string decisionOf(const std::string &printed) {
  std::smatch match;
  REQUIRE(std::regex_search(printed, match, std::regex(R"(decision=(\[[^\]]*\]|\d+))")));
  return match[1];
}

}  // namespace

TEST_CASE("sample_categorical over 64 seeds draws every candidate of non-zero probability, never one of zero",
          "[schedule][sampling]") {
  std::set<std::string> drawn, drawnOfZero;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    drawn.insert(decisionOf(traceWithSeed(
        "def s(sch):\n    v = sch.sample_categorical(candidates=[1, 2, 3], probs=[0.25, 0.5, 0.25])\n", seed)));
    drawnOfZero.insert(decisionOf(traceWithSeed(
        "def s(sch):\n    v = sch.sample_categorical(candidates=[1, 2, 3], probs=[0.0, 1.0, 0.0])\n", seed)));
  }
  CHECK(drawn == std::set<std::string>{"0", "1", "2"});
  CHECK(drawnOfZero == std::set<std::string>{"1"});
}

TEST_CASE("sample_perfect_tile over 64 seeds: every decision is a perfect tile within the innermost bound, "
          "and they vary",
          "[schedule][sampling]") {
  std::set<std::string> decisions;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    std::string decision = decisionOf(traceWithSeed(
        "def s(sch):\n    i, j = sch.get_loops(\"C\")\n    a, b, c = sch.sample_perfect_tile(i, n=3, max_innermost_factor=8)\n",
        seed));
    std::smatch factors;
    REQUIRE(std::regex_match(decision, factors, std::regex(R"(\[(\d+), (\d+), (\d+)\])")));
    INFO("seed " << seed << ": " << decision);
    CHECK(std::stoi(factors[1]) * std::stoi(factors[2]) * std::stoi(factors[3]) == 128);
    CHECK(std::stoi(factors[3]) <= 8);
    decisions.insert(decision);
  }
  CHECK(decisions.size() > 1);
}

TEST_CASE("a schedule that fails at a later step leaves the module as it was", "[schedule][errors]") {
  ir::IRModule module = parseModuleText(kElementwise2D);
  ir::IRModule original = module;
  llvm::Expected<ir::Trace> applied = applyTrace(
      module, readTraceText("def s(sch):\n    i, j = sch.get_loops(\"C\")\n    sch.split(i, factors=[None, 16])\n"
                            "    sch.get_producers(i)\n"));
  REQUIRE(!applied);
  CHECK(ir::renderError(applied.takeError()).find("schedule.py:4:23: error:") != std::string::npos);
  CHECK(ir::structuralEqual(*module.lookup("main").as<ir::PrimFunc>(), *original.lookup("main").as<ir::PrimFunc>()));
}

TEST_CASE("Schedule's lookups return located errors as values", "[schedule][errors]") {
  Schedule sch(parseModuleText(kElementwise2D));
  ir::SourceLoc at{0, 3, 5};
  llvm::Expected<StmtPath> missing = sch.findBlock(BlockRV{"main", "D"}, at);
  REQUIRE(!missing);
  CHECK(ir::errorMessage(missing.takeError()) == "no block named 'D' in 'main'");
  llvm::Expected<ir::PrimFuncRef> noFunction = sch.function("other", at);
  REQUIRE(!noFunction);
  CHECK(ir::errorMessage(noFunction.takeError()) == "the module has no prim_func 'other'");
  llvm::Expected<StmtPath> block = sch.findBlock(BlockRV{"main", "C"}, at);
  REQUIRE(bool(block));
  CHECK(block->size() > 1);
}
