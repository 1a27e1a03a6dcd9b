#include <catch2/catch.hpp>

#include "RelaxTestSupport.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/Relax.h"

using namespace vtac;
using relax_test::parseSample;
using relax_test::parseText;

namespace {

std::string printRelax(const relax_test::ParsedFile &parsed) { return ir::printModule(parsed.module); }

}  // namespace

TEST_CASE("relax print: seed 004 MyModuleWithExternCall in canonical form", "[relax][print]") {
  relax_test::ParsedFile parsed = parseSample("mlp_extern_call.tvm");
  REQUIRE(parsed.diagnostics.empty());
  CHECK(printRelax(parsed) ==
        "# from tvm.script import ir as I\n"
        "# from tvm.script import tir as T\n"
        "# from tvm.script import relax as R\n"
        "\n"
        "@I.ir_module\n"
        "class Module:\n"
        "    @R.function\n"
        "    def main(x: R.Tensor((1, \"m\"), dtype=\"float32\"), w0: R.Tensor((\"n\", \"m\"), dtype=\"float32\"), "
        "b0: R.Tensor((\"n\",), dtype=\"float32\"), w1: R.Tensor((\"k\", \"n\"), dtype=\"float32\"), "
        "b1: R.Tensor((\"k\",), dtype=\"float32\")) -> R.Tensor((1, \"k\"), dtype=\"float32\"):\n"
        "        k = T.int64()\n"
        "        m = T.int64()\n"
        "        n = T.int64()\n"
        "        with R.dataflow():\n"
        "            lv0 = R.call_dps_packed(\"env.linear\", (x, w0, b0), out_sinfo=R.Tensor((1, n), dtype=\"float32\"))\n"
        "            lv1 = R.call_dps_packed(\"env.relu\", (lv0,), out_sinfo=R.Tensor((1, n), dtype=\"float32\"))\n"
        "            out = R.call_dps_packed(\"env.linear\", (lv1, w1, b1), out_sinfo=R.Tensor((1, k), dtype=\"float32\"))\n"
        "            R.output(out)\n"
        "        return out\n");
}

TEST_CASE("relax print: printing is a fixed point of parse . print", "[relax][print]") {
  for (const char *sample : {"mlp_extern_call.tvm", "mlp_main_two_dataflow_blocks.tvm"}) {
    relax_test::ParsedFile parsed = parseSample(sample);
    REQUIRE(parsed.diagnostics.empty());
    std::string printed = printRelax(parsed);
    relax_test::ParsedFile reparsed = parseText("printed.tvm", printed);
    INFO(sample << "\n" << printed << reparsed.diagnostics);
    REQUIRE(reparsed.diagnostics.empty());
    CHECK(printRelax(reparsed) == printed);
  }
}

TEST_CASE("relax print: two dataflow blocks, output variables visible after the block",
          "[relax][print]") {
  relax_test::ParsedFile parsed = parseSample("mlp_main_two_dataflow_blocks.tvm");
  REQUIRE(parsed.diagnostics.empty());
  std::string printed = printRelax(parsed);
  CHECK(printed.find("            gv0 = R.call_dps_packed(\"relu0\", (lv0,), out_sinfo=R.Tensor((1, n), dtype=\"float32\"))\n"
                     "            R.output(gv0)\n"
                     "        with R.dataflow():\n"
                     "            out = R.call_dps_packed(\"linear0\", (gv0, w1, b1), out_sinfo=R.Tensor((1, k), dtype=\"float32\"))\n") != std::string::npos);
}

TEST_CASE("relax: annotated alias bindings and rebinding a name print like TVM", "[relax][print]") {
  relax_test::ParsedFile parsed = parseText("alias.tvm",
                                            "@R.function\n"
                                            "def f(a: R.Tensor((4,), \"float32\")):\n"
                                            "    with R.dataflow():\n"
                                            "        b = R.call_dps_packed(\"env.relu\", (a,), R.Tensor((4,), \"float32\"))\n"
                                            "        b = R.call_dps_packed(\"env.relu\", (b,), R.Tensor((4,), \"float32\"))\n"
                                            "        gv: R.Tensor((4,), dtype=\"float32\") = b\n"
                                            "        R.output(gv)\n"
                                            "    return gv\n");
  REQUIRE(parsed.diagnostics.empty());
  std::string printed = printRelax(parsed);
  CHECK(printed.find("            b_1 = R.call_dps_packed(\"env.relu\", (b,), out_sinfo=R.Tensor((4,), dtype=\"float32\"))\n"
                     "            gv: R.Tensor((4,), dtype=\"float32\") = b_1\n") != std::string::npos);
}

TEST_CASE("relax: BindParams turns parameters into metadata constants and fixes the sizes",
          "[relax][bind]") {
  relax_test::ParsedFile parsed = parseSample("mlp_extern_call.tvm");
  REQUIRE(parsed.diagnostics.empty());
  const ir::RelaxFunction *main = ir::asRelaxFunction(parsed.module.lookup("main"));
  REQUIRE(main);
  std::vector<std::pair<std::string, std::shared_ptr<const ir::relax::TensorData>>> params;
  for (auto [name, shape] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
           {"w0", {128, 784}}, {"b0", {128}}, {"w1", {10, 128}}, {"b1", {10}}}) {
    auto data = std::make_shared<ir::relax::TensorData>();
    data->dtype = ir::DataType::float32();
    data->shape = shape;
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    data->bytes.assign(size_t(count) * 4, 0);
    params.emplace_back(name, data);
  }
  ir::relax::RelaxDiagnostic diagnostic;
  ir::RelaxFunctionRef bound = ir::relax::bindParams(*main, params, diagnostic);
  REQUIRE(bound);
  ir::IRModule module;
  module.add("main", bound);
  // The form of seed 004's MyModuleWithParams listing (samples/mlp_mixture_params_bound.tvm).
  CHECK(ir::printModule(module) ==
        "# from tvm.script import ir as I\n"
        "# from tvm.script import relax as R\n"
        "\n"
        "@I.ir_module\n"
        "class Module:\n"
        "    @R.function\n"
        "    def main(x: R.Tensor((1, 784), dtype=\"float32\")) -> R.Tensor((1, 10), dtype=\"float32\"):\n"
        "        with R.dataflow():\n"
        "            lv0 = R.call_dps_packed(\"env.linear\", (x, metadata[\"relax.expr.Constant\"][0], metadata[\"relax.expr.Constant\"][1]), out_sinfo=R.Tensor((1, 128), dtype=\"float32\"))\n"
        "            lv1 = R.call_dps_packed(\"env.relu\", (lv0,), out_sinfo=R.Tensor((1, 128), dtype=\"float32\"))\n"
        "            out = R.call_dps_packed(\"env.linear\", (lv1, metadata[\"relax.expr.Constant\"][2], metadata[\"relax.expr.Constant\"][3]), out_sinfo=R.Tensor((1, 10), dtype=\"float32\"))\n"
        "            R.output(out)\n"
        "        return out\n"
        "# Metadata omitted. Use show_meta=True in script() method to show it.\n");

  // A tensor that contradicts the sizes the others fixed is rejected at the annotation.
  params[2].second = std::make_shared<ir::relax::TensorData>(
      ir::relax::TensorData{ir::DataType::float32(), {10, 64}, std::vector<uint8_t>(10 * 64 * 4)});
  CHECK(!ir::relax::bindParams(*main, params, diagnostic));
  CHECK(diagnostic.message == "bound data for parameter 'w1' does not fit: dimension 1 is 64 but 'n' is 128");
  CHECK(diagnostic.loc.line == 7);
}

TEST_CASE("relax: shape unification binds sizes and reports conflicts", "[relax][shapes]") {
  ir::VarRef n = ir::makeVar("n", ir::DataType::int64());
  ir::relax::TensorStructInfo square = ir::relax::TensorStructInfo::known(
      {n, n}, ir::DataType::float32());
  ir::relax::ShapeBindings sizes;
  CHECK(!ir::relax::unifyShape(square, {3, 3}, sizes));
  CHECK(sizes.at(n) == 3);
  ir::relax::ShapeBindings fresh;
  CHECK(ir::relax::unifyShape(square, {3, 4}, fresh) == std::optional<std::string>("dimension 1 is 4 but 'n' is 3"));
  ir::relax::TensorStructInfo doubled = ir::relax::TensorStructInfo::known(
      {n, ir::binary(ir::NodeKind::Mul, n, ir::intImm(2, ir::DataType::int64()))}, ir::DataType::float32());
  ir::relax::ShapeBindings more;
  CHECK(!ir::relax::unifyShape(doubled, {5, 10}, more));
  CHECK(ir::relax::unifyShape(doubled, {5, 11}, more) ==
        std::optional<std::string>("dimension 1 is 11 but the declared size is 10"));
  CHECK(ir::relax::printDim(doubled.shape->at(1)) == "n * 2");
}
