// Properties of the TensorIR -> flat TIR passes that golden files do not show: every pass
// returns the very same function when it has nothing to do (what --print-changed relies on),
// tir-lower is idempotent, and the TensorIR-only passes leave TE-lowered functions alone.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "vtac/frontend/Frontend.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/passes/PassManager.h"

namespace vtac::passes {
namespace {

const char *const kTirPasses[] = {"lower-init-block",   "plan-buffer-allocation", "convert-blocks-to-opaque",
                                  "compact-buffer-allocation", "lower-match-buffer", "lower-opaque-block",
                                  "flatten-buffer"};

ir::PrimFuncRef loadMain(const std::string &path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  frontend::SourceFile file(path, text.str());
  frontend::DiagnosticEngine diagnostics;
  auto parsed = frontend::parseModule(file, diagnostics);
  REQUIRE(parsed.has_value());
  REQUIRE(!diagnostics.hasErrors());
  ir::FunctionRef main = parsed->module.lookup("main");
  REQUIRE(main);
  return ir::PrimFuncRef(main->as<ir::PrimFunc>());
}

ir::PrimFuncRef run(const char *pipeline, const ir::PrimFuncRef &func) {
  auto steps = parsePipeline(pipeline, PassRegistry::builtin());
  REQUIRE(static_cast<bool>(steps));
  PassManager manager(std::move(*steps));
  PassContext context;
  auto result = manager.run(func, "main", context);
  if (!result) FAIL(ir::errorMessage(result.takeError()));
  return *result;
}

TEST_CASE("every TIR pass returns the same function when given flat TIR", "[passes][tir-lower]") {
  ir::PrimFuncRef lowered = run("tir-lower", loadMain("samples/conv2d_tensorir.tvm"));
  for (const char *pass : kTirPasses) {
    INFO(pass);
    CHECK(run(pass, lowered) == lowered);
  }
}

TEST_CASE("tir-lower is idempotent", "[passes][tir-lower]") {
  ir::PrimFuncRef once = run("tir-lower", loadMain("samples/matmul_1024_local_blocking.tvm"));
  ir::PrimFuncRef twice = run("tir-lower", once);
  CHECK(twice == once);
}

TEST_CASE("the TensorIR-only passes leave a TE-lowered function alone", "[passes][tir-lower]") {
  // from_legacy_te_schedule: TVM's PlanAndUpdateBufferAllocationLocation, ConvertBlocksToOpaque,
  // CompactBufferAllocation, LowerOpaqueBlock and FlattenBuffer return it unchanged.
  ir::PrimFuncRef te = loadMain("samples/conv2d_default_schedule.tvm");
  for (const char *pass : {"plan-buffer-allocation", "convert-blocks-to-opaque", "compact-buffer-allocation",
                           "lower-opaque-block", "flatten-buffer"}) {
    INFO(pass);
    CHECK(run(pass, te) == te);
  }
}

TEST_CASE("a pass that changes the function leaves its input untouched", "[passes][tir-lower]") {
  ir::PrimFuncRef tensorIr = loadMain("samples/conv2d_tensorir.tvm");
  ir::PrimFuncRef again = loadMain("samples/conv2d_tensorir.tvm");
  ir::PrimFuncRef lowered = run("tir-lower", tensorIr);
  CHECK(lowered != tensorIr);
  CHECK(ir::structuralEqual(*tensorIr, *again));
}

}  // namespace
}  // namespace vtac::passes
