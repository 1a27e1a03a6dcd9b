// vtac opt --check-equivalence's oracle on graphs: modules whose Relax functions compute the same
// results agree, and one computing something else is reported at the function, naming the result.
#include "vtac/driver/Equivalence.h"

#include <catch2/catch.hpp>

#include <sstream>

#include "vtac/frontend/Frontend.h"
#include "vtac/ir/Diagnostic.h"

using namespace vtac;

namespace {

ir::IRModule parse(const std::string &text) {
  frontend::DiagnosticEngine diagnostics(1);
  auto parsed = frontend::parseModule(frontend::SourceFile("graph.tvm", text), diagnostics);
  REQUIRE(parsed);
  return parsed->module;
}

std::string graph(const std::string &operation) {
  return "@R.function\n"
         "def main(x: R.Tensor((2, 4), \"float32\"), y: R.Tensor((2, 4), \"float32\")) -> R.Tensor((2, 4), \"float32\"):\n"
         "    gv = " + operation + "\n"
         "    return gv\n";
}

// The rendered error, or "" on success.
std::string failure(llvm::Error error) { return error ? ir::renderError(std::move(error)) : ""; }

}  // namespace

TEST_CASE("check-equivalence compares graphs on seeded random inputs", "[driver][equivalence]") {
  ir::IRModule before = parse(graph("R.add(x, y)"));
  std::ostringstream report;

  SECTION("the same results agree") {
    ir::IRModule swapped = parse(graph("R.add(y, x)"));
    REQUIRE(failure(driver::checkEquivalence(before, swapped, 7, {}, report)).empty());
    CHECK(report.str() == "check-equivalence: graph 'main' agrees bit for bit (seed 7)\n");
  }

  SECTION("a different result is an error at the function") {
    ir::IRModule different = parse(graph("R.subtract(x, y)"));
    std::string message = failure(driver::checkEquivalence(before, different, 7, {}, report));
    CHECK(message.find("graph.tvm:2:1: error: --check-equivalence: graph 'main' computes a different 'gv': ") !=
          std::string::npos);
    CHECK(message.find("8 of 8 elements differ") != std::string::npos);
  }

  SECTION("a graph that cannot run is an error, not a pass") {
    ir::IRModule symbolic = parse(
        "@R.function\n"
        "def main(x: R.Tensor((\"n\",), \"float32\")) -> R.Tensor((\"n\",), \"float32\"):\n"
        "    n = T.int64()\n"
        "    gv = R.nn.relu(x)\n"
        "    return gv\n");
    std::string message = failure(driver::checkEquivalence(symbolic, symbolic, 7, {}, report));
    CHECK(message.find("--check-equivalence: running graph 'main' before the pipeline failed: ") != std::string::npos);
    CHECK(failure(driver::checkEquivalence(symbolic, symbolic, 7, {{"n", 5}}, report)).empty());
  }
}
