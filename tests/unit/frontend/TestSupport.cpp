#include "TestSupport.h"

#include <catch2/catch.hpp>

#include <sstream>

namespace vtac::frontend::testing {

ParseOutcome parseText(const std::string &text, const std::string &name) {
  SourceFile file(name, text);
  DiagnosticEngine diagnostics;
  ParseOutcome outcome;
  outcome.parsed = parseModule(file, diagnostics);
  outcome.diagnostics = diagnostics.render();
  return outcome;
}

ir::PrimFuncRef parseSingleFunction(const std::string &text) {
  ParseOutcome outcome = parseText(text);
  INFO(outcome.diagnostics);
  REQUIRE(outcome.parsed);
  REQUIRE(outcome.parsed->module.size() == 1);
  auto func = ir::dynCast<ir::PrimFunc>(outcome.parsed->module.functions()[0].function);
  REQUIRE(func);
  return func;
}

std::string functionWithBody(const std::string &body) {
  std::string text = "@T.prim_func\n"
                     "def f(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"int32\"), "
                     "n: T.int64, C: T.Buffer((4, 4), \"float32\")):\n";
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);)
    text += "    " + line + "\n";
  return text;
}

} // namespace vtac::frontend::testing
