#include <catch2/catch.hpp>

#include "RelaxTestSupport.h"
#include "vtac/ir/Relax.h"

using namespace vtac;
using relax_test::parseText;

namespace {

// The diagnostics of a function body placed in a bare @R.function with parameter x: (1, "n").
std::string errorsOf(const std::string &body) {
  return parseText("bad.tvm", "@R.function\ndef main(x: R.Tensor((1, \"n\"), \"float32\")):\n" + body)
      .diagnostics;
}

}  // namespace

TEST_CASE("relax frontend: every seed-004 Relax listing parses", "[relax][frontend]") {
  for (const char *sample : {"mlp_module.tvm", "mlp_extern_call.tvm", "mlp_mixture.tvm",
                             "mlp_main_two_dataflow_blocks.tvm", "mlp_mixture_static.tvm",
                             "mlp_mixture_params_bound.tvm", "blockbuilder_matmul_relu.tvm"}) {
    relax_test::ParsedFile parsed = relax_test::parseSample(sample);
    INFO(sample << ": " << parsed.diagnostics);
    CHECK(parsed.diagnostics.empty());
    CHECK(ir::asRelaxFunction(parsed.module.lookup("main")));
  }
}

TEST_CASE("relax frontend: R.output outside a dataflow block", "[relax][frontend]") {
  CHECK(errorsOf("    R.output(x)\n    return x\n") ==
        "bad.tvm:3:5: error: R.output is only allowed inside a dataflow block\n"
        "    R.output(x)\n"
        "    ^\n");
}

TEST_CASE("relax frontend: R.output must close its dataflow block", "[relax][frontend]") {
  CHECK(errorsOf("    with R.dataflow():\n"
                 "        lv = R.call_dps_packed(\"env.relu\", (x,), R.Tensor((1, n), \"float32\"))\n"
                 "        R.output(lv)\n"
                 "        lv2 = R.call_dps_packed(\"env.relu\", (lv,), R.Tensor((1, n), \"float32\"))\n"
                 "    return lv\n")
            .find("bad.tvm:5:9: error: R.output must be the last statement of its dataflow block") == 0);
}

TEST_CASE("relax frontend: a dataflow variable is not visible outside its block", "[relax][frontend]") {
  CHECK(errorsOf("    with R.dataflow():\n"
                 "        lv = R.call_dps_packed(\"env.relu\", (x,), R.Tensor((1, n), \"float32\"))\n"
                 "        gv = R.call_dps_packed(\"env.relu\", (lv,), R.Tensor((1, n), \"float32\"))\n"
                 "        R.output(gv)\n"
                 "    return lv\n") ==
        "bad.tvm:7:12: error: 'lv' is bound inside a dataflow block and not exposed by its R.output\n"
        "    return lv\n"
        "           ^\n");
}

TEST_CASE("relax frontend: undefined names and sizes", "[relax][frontend]") {
  CHECK(errorsOf("    with R.dataflow():\n"
                 "        lv = R.call_dps_packed(\"env.relu\", (y,), R.Tensor((1, n), \"float32\"))\n"
                 "        R.output(lv)\n"
                 "    return lv\n")
            .find("bad.tvm:4:45: error: undefined variable 'y'") == 0);
  CHECK(errorsOf("    with R.dataflow():\n"
                 "        lv = R.call_dps_packed(\"env.relu\", (x,), R.Tensor((1, q), \"float32\"))\n"
                 "        R.output(lv)\n"
                 "    return lv\n")
            .find("bad.tvm:4:63: error: undefined symbolic size 'q'") == 0);
  CHECK(errorsOf("    pass\n").find("error: Relax function 'main' has no return statement") !=
        std::string::npos);
}

TEST_CASE("relax frontend: call_tir output that does not match the callee", "[relax][frontend]") {
  std::string text = relax_test::readSample("blockbuilder_matmul_relu.tvm");
  std::string good = "lv = R.call_tir(cls.te_matmul, (A, B), out_sinfo=R.Tensor((128, 128), dtype=\"float32\"))";
  size_t at = text.find(good);
  REQUIRE(at != std::string::npos);
  text.replace(at, good.size(),
               "lv = R.call_tir(cls.te_matmul, (A, B), out_sinfo=R.Tensor((128, 64), dtype=\"float32\"))");
  std::string errors = parseText("bad.tvm", text).diagnostics;
  INFO(errors);
  CHECK(errors.find("bad.tvm:35:62: error: the output of 'te_matmul' (buffer matmul) needs dimension 1 = 128, got 64\n") == 0);
  // The next call receives that (128, 64) tensor where te_relu needs (128, 128).
  CHECK(errors.find("bad.tvm:36:44: error: argument 0 of 'te_relu' (buffer rxplaceholder) needs dimension 1 = 128, got 64\n") != std::string::npos);
}

TEST_CASE("relax frontend: symbolic sizes of a callee unify per call", "[relax][frontend]") {
  // linear0's n is bound by W (n = n of the caller); an output of (1, m) contradicts it.
  std::string text = relax_test::readSample("mlp_module.tvm");
  std::string good = "lv0 = R.call_dps_packed(\"linear0\", (x, w0, b0), R.Tensor((1, n), \"float32\"))";
  size_t at = text.find(good);
  REQUIRE(at != std::string::npos);
  text.replace(at, good.size(), "lv0 = R.call_dps_packed(\"linear0\", (x, w0, b0), R.Tensor((1, m), \"float32\"))");
  std::string errors = parseText("bad.tvm", text).diagnostics;
  CHECK(errors.find("error: the output of 'linear0' (buffer Z) needs dimension 1 = n, got m (its size n is n from an earlier argument)") != std::string::npos);
}

TEST_CASE("relax frontend: call_tir of something that is not a prim_func", "[relax][frontend]") {
  std::string text = relax_test::readSample("blockbuilder_matmul_relu.tvm");
  size_t at = text.find("cls.te_relu");
  text.replace(at, 11, "cls.te_gelu");
  CHECK(parseText("bad.tvm", text).diagnostics.find("error: 'te_gelu' is not a prim_func of the module") !=
        std::string::npos);
}
