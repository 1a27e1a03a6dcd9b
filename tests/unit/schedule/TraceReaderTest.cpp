// The schedule reader: TVM's trace text -> ir::Trace -> the same text.
#include <catch2/catch.hpp>

#include "ScheduleTestSupport.h"
#include "vtac/frontend/Frontend.h"
#include "vtac/frontend/TraceReader.h"

using namespace vtac;
using vtac::passes::schedule::testing::readTraceText;

namespace {

std::string readError(const std::string &text) {
  frontend::SourceFile file("schedule.py", text);
  frontend::DiagnosticEngine diagnostics;
  std::optional<ir::Trace> trace = frontend::readTrace(file, diagnostics);
  CHECK_FALSE(trace);
  return diagnostics.render();
}

}  // namespace

TEST_CASE("TVM's printed trace reads back to the same text", "[trace]") {
  std::string text = "# from tvm import tir\n"
                     "def apply_trace(sch: tir.Schedule) -> None:\n"
                     "  b0 = sch.get_block(name=\"B\", func_name=\"main\")\n"
                     "  l1, = sch.get_loops(block=b0)\n"
                     "  l2, l3 = sch.split(loop=l1, factors=[None, 32], preserve_unit_iters=True, disable_predication=False)\n"
                     "  l4 = sch.fuse(l2, l3, preserve_unit_iters=True)\n"
                     "  sch.annotate(block_or_loop=l4, ann_key=\"pragma_dma_copy\", ann_val=1)\n"
                     "  sch.storage_align(block=b0, buffer_index=0, axis=0, factor=16, offset=-1)\n"
                     "  sch.annotate(block_or_loop=b0, ann_key=\"meta\", ann_val={\"a\": 0.5, \"b\": \"x\"})\n";
  ir::Trace trace = readTraceText(text);
  REQUIRE(trace.steps.size() == 7);
  CHECK(trace.steps[1].resultsAreList);
  CHECK(trace.steps[1].results == std::vector<std::string>{"l1"});
  CHECK(trace.steps[2].arguments[1].value.items[0].kind == ir::TraceValue::Kind::None);
  CHECK(trace.steps[3].arguments[0].keyword.empty());
  CHECK(trace.steps[5].arguments[4].value.intValue == -1);
  CHECK(ir::printTrace(trace) == text);
}

TEST_CASE("hand-written schedules: positional arguments, nested calls, an indexed result", "[trace]") {
  ir::Trace trace = readTraceText("def s(sch):\n"
                                  "    sch.compute_inline(sch.get_block(\"B\"))\n"
                                  "    b = sch.get_block(\"C\")\n"
                                  "    ax = sch.get_loops(b)[-1]\n"
                                  "    i, j = sch.get_loops(b)\n"
                                  "    pass\n");
  REQUIRE(trace.steps.size() == 5);
  CHECK(trace.steps[0].primitive == "get_block");
  CHECK(trace.steps[1].primitive == "compute_inline");
  CHECK(trace.steps[1].arguments[0].value.text == trace.steps[0].results[0]);
  CHECK(trace.steps[3].resultIndex == -1);
  CHECK(trace.steps[3].results == std::vector<std::string>{"ax"});
  CHECK_FALSE(trace.steps[3].resultsAreList);
  CHECK(trace.steps[4].results.size() == 2);
  CHECK(trace.steps[0].loc.line == 2);
  CHECK(trace.steps[0].loc.column == 24);
}

TEST_CASE("Python runs as it is read: loops, conditions, helpers and arithmetic unroll into steps", "[trace]") {
  ir::Trace trace = readTraceText("def s(sch):\n"
                                  "    def tile(block, n):\n"
                                  "        *outer, inner = sch.get_loops(block)\n"
                                  "        return sch.split(inner, factors=[None, n * 2])\n"
                                  "    for name in [\"B\", \"C\"]:\n"
                                  "        if name == \"B\":\n"
                                  "            tile(name, 4)\n"
                                  "    loops = sch.get_loops(\"C\")\n"
                                  "    sch.fuse(*loops[1:])\n");
  REQUIRE(trace.steps.size() == 4);
  CHECK(trace.steps[0].starredResult == 0u);
  CHECK(trace.steps[1].arguments[1].value.items[1].intValue == 8);
  // The helper's names are its own: a second binding of `inner` would get another trace name.
  CHECK(trace.steps[1].arguments[0].value.text == "inner");
  const ir::TraceValue &unpacked = trace.steps[3].arguments[0].value;
  CHECK(unpacked.starred);
  CHECK(unpacked.slice->start == 1);
  CHECK(ir::printTraceValue(unpacked) == "*loops[1:]");
}

TEST_CASE("a schedule def in a module file is skipped by the module reader", "[trace]") {
  std::string text = "@T.prim_func\n"
                     "def f(A: T.Buffer((4,), \"float32\")):\n"
                     "    for i in range(4):\n"
                     "        with T.block(\"B\"):\n"
                     "            vi = T.axis.remap(\"S\", [i])\n"
                     "            A[vi] = T.float32(0)\n"
                     "def schedule(sch):\n"
                     "    sch.get_block(\"B\")\n";
  frontend::SourceFile file("m.tvm", text);
  frontend::DiagnosticEngine diagnostics;
  std::optional<frontend::ParsedModule> parsed = frontend::parseModule(file, diagnostics);
  INFO(diagnostics.render());
  REQUIRE(parsed);
  CHECK(parsed->module.size() == 1);
  std::optional<ir::Trace> trace = frontend::readTrace(file, diagnostics);
  REQUIRE(trace);
  CHECK(trace->name == "schedule");
  CHECK(trace->steps.size() == 1);
}

TEST_CASE("a file without a schedule def has no trace and no error", "[trace]") {
  frontend::SourceFile file("m.tvm", "@T.prim_func\ndef f():\n    T.evaluate(0)\n");
  frontend::DiagnosticEngine diagnostics;
  CHECK_FALSE(frontend::readTrace(file, diagnostics));
  CHECK_FALSE(diagnostics.hasErrors());
}

TEST_CASE("what a schedule cannot hold is an error at the offending token", "[trace]") {
  CHECK_THAT(readError("def s(sch):\n    while True:\n        pass\n"),
             Catch::Matchers::Contains("schedule.py:2:5: error: a schedule has no `while` loops"));
  CHECK_THAT(readError("def s(sch):\n    x = 3\n    x\n"),
             Catch::Matchers::Contains("schedule.py:3:5: error: expected a call `sch.<primitive>(...)`"));
  CHECK_THAT(readError("def s(sch):\n    l = sch.get_block(\"B\")\n    sch.split(l, factors=[l + 1, 4])\n"),
             Catch::Matchers::Contains("schedule.py:3:27: error: a schedule's arithmetic is on integers"));
  CHECK_THAT(readError("def s(sch):\n    sch.split(loop=1, [4])\n"),
             Catch::Matchers::Contains("schedule.py:2:23: error: positional argument follows keyword argument"));
  CHECK_THAT(readError("def s(sch, n):\n    pass\n"),
             Catch::Matchers::Contains("schedule.py:1:12: error: a schedule def takes one parameter, 'sch'"));
  CHECK_THAT(readError("def s(sch):\n    pass\ndef t(sch):\n    pass\n"),
             Catch::Matchers::Contains("schedule.py:3:5: error: a file holds one schedule def; the first is at line 1"));
  CHECK_THAT(readError("def s(sch):\n    a.b = sch.get_block(\"B\")\n"),
             Catch::Matchers::Contains("schedule.py:2:5: error: a step's results are bound to plain names"));
  CHECK_THAT(readError("def s(sch):\n    x = sch.get_loops(\"B\")[0][1]\n"),
             Catch::Matchers::Contains("schedule.py:2:9: error: one result of a step is not indexed"));
  CHECK_THAT(readError("def s(sch):\n    sch.vectorize(sch.get_loops(\"B\")[\"i\"])\n"),
             Catch::Matchers::Contains("schedule.py:2:38: error: an index is an integer"));
  CHECK_THAT(readError("def s(sch):\n    (l, a.b) = sch.get_loops(\"B\")\n"),
             Catch::Matchers::Contains("schedule.py:2:9: error: a step's results are bound to plain names"));
  CHECK_THAT(readError("def s(sch):\n    sch.get_block({1: 2})\n"),
             Catch::Matchers::Contains("schedule.py:2:20: error: a dictionary key in a schedule is a string"));
  CHECK_THAT(readError("def s(sch):\n    sch.get_block(x)\n"),
             Catch::Matchers::Contains("schedule.py:2:19: error: undefined name 'x'"));
}

TEST_CASE("the reader pauses where it needs how many results a step gave, and reads on when told", "[trace]") {
  frontend::SourceFile file("schedule.py", "def s(sch):\n"
                                           "    loops = sch.get_loops(\"B\")\n"
                                           "    for l in loops[1:]:\n"
                                           "        sch.parallel(l)\n");
  frontend::DiagnosticEngine diagnostics;
  std::optional<ir::Trace> trace = frontend::readTrace(file, diagnostics);
  REQUIRE(trace);
  CHECK_FALSE(diagnostics.hasErrors());
  CHECK(trace->steps.size() == 1);
  REQUIRE(trace->pause);
  CHECK(trace->pause->list == "loops");
  CHECK(trace->pause->loc == file.at(3, 14));
  llvm::Expected<ir::Trace> more = trace->pause->readOn({{"loops", 3}});
  REQUIRE(bool(more));
  CHECK_FALSE(more->pause);
  REQUIRE(more->steps.size() == 3);
  CHECK(more->steps[2].arguments[0].value.text == "loops");
  CHECK(more->steps[2].arguments[0].value.element == 2);
}
