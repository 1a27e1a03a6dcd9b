#include "ScheduleTestSupport.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "vtac/frontend/Frontend.h"
#include "vtac/frontend/TraceReader.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/passes/schedule/ApplyTrace.h"

namespace vtac::passes::schedule::testing {

ir::IRModule parseModuleText(const std::string &text) {
  frontend::SourceFile file("module.tvm", text);
  frontend::DiagnosticEngine diagnostics;
  std::optional<frontend::ParsedModule> parsed = frontend::parseModule(file, diagnostics);
  INFO(diagnostics.render());
  REQUIRE(parsed);
  return parsed->module;
}

std::string sampleText(const std::string &name) {
  std::ifstream in("samples/" + name);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

ir::Trace readTraceText(const std::string &text, const std::string &name) {
  frontend::SourceFile file(name, text);
  frontend::DiagnosticEngine diagnostics;
  std::optional<ir::Trace> trace = frontend::readTrace(file, diagnostics);
  INFO(diagnostics.render());
  REQUIRE(trace);
  return *trace;
}

Applied applyText(const std::string &moduleText, const std::string &traceText) {
  ir::IRModule module = parseModuleText(moduleText);
  ir::Trace trace = readTraceText(traceText);
  Applied applied;
  llvm::Expected<ir::Trace> result = applyTrace(module, trace);
  if (!result) {
    applied.error = ir::renderError(result.takeError());
    return applied;
  }
  applied.module = std::move(module);
  applied.printedTrace = ir::printTrace(*result);
  return applied;
}

static void requireEqual(const ir::IRModule &actual, const ir::IRModule &expected) {
  for (const ir::IRModule::Entry &entry : expected.functions()) {
    auto want = entry.function.as<ir::PrimFunc>();
    auto got = actual.lookup(entry.name->name);
    REQUIRE(got);
    INFO("got:\n" << ir::printPrimFunc(*got.as<ir::PrimFunc>(), entry.name->name));
    INFO("difference: " << ir::firstStructuralDifference(*got.as<ir::PrimFunc>(), *want));
    CHECK(ir::structuralEqual(*got.as<ir::PrimFunc>(), *want));
  }
}

void checkSchedule(const std::string &moduleText, const std::string &traceText, const std::string &expectedText) {
  Applied applied = applyText(moduleText, traceText);
  INFO(applied.error);
  REQUIRE(applied.module);
  requireEqual(*applied.module, parseModuleText(expectedText));

  INFO("printed trace:\n" << applied.printedTrace);
  Applied again = applyText(moduleText, applied.printedTrace);
  INFO(again.error);
  REQUIRE(again.module);
  CHECK(ir::structuralEqual(*again.module, *applied.module));
  CHECK(again.printedTrace == applied.printedTrace);
}

void checkScheduleError(const std::string &moduleText, const std::string &traceText, const std::string &message) {
  Applied applied = applyText(moduleText, traceText);
  CHECK_FALSE(applied.module);
  CHECK_THAT(applied.error, Catch::Matchers::Contains(message));
}

}  // namespace vtac::passes::schedule::testing
