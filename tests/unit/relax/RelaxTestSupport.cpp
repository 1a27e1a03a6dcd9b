#include "RelaxTestSupport.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "RelaxFunctionBuilder.h"
#include "SyntaxParser.h"
#include "vtac/backend/RandomFill.h"
#include "vtac/frontend/Frontend.h"

namespace vtac::relax_test {

using Grammar = grammar::TVMScriptParser;

namespace {

bool isRelaxDecorated(Grammar::DecoratedContext *decorated) {
  for (Grammar::DecoratorContext *decorator : decorated->decorator())
    if (decorator->expr()->getText().rfind("R.function", 0) == 0) return true;
  return false;
}

void addRelaxFunctions(const std::vector<Grammar::StmtContext *> &stmts,
                       const frontend::SourceFile &file, frontend::DiagnosticEngine &diagnostics,
                       const std::string &className, ir::IRModule &module) {
  for (Grammar::StmtContext *stmt : stmts) {
    Grammar::Compound_stmtContext *compound = stmt->compound_stmt();
    Grammar::DecoratedContext *decorated = compound ? compound->decorated() : nullptr;
    if (!decorated) continue;
    if (Grammar::ClassdefContext *cls = decorated->classdef()) {
      if (!cls->suite()->simple_stmt())
        addRelaxFunctions(cls->suite()->stmt(), file, diagnostics, cls->NAME()->getText(), module);
      continue;
    }
    if (!isRelaxDecorated(decorated)) continue;
    Grammar::FuncdefContext *def = decorated->funcdef();
    frontend::RelaxFunctionBuilder builder(file, diagnostics, className);
    if (ir::RelaxFunctionRef func = builder.build(def)) module.add(def->NAME()->getText(), func);
  }
}

}  // namespace

ParsedFile parseText(const std::string &name, const std::string &text) {
  ParsedFile result;
  frontend::SourceFile file(name, text);
  frontend::DiagnosticEngine diagnostics;
  std::optional<frontend::ParsedModule> parsed = frontend::parseModule(file, diagnostics);
  if (!parsed) {
    result.diagnostics = diagnostics.render();
    return result;
  }
  result.bare = parsed->className.empty();
  for (const ir::IRModule::Entry &entry : parsed->module.functions())
    result.module.add(entry.name->name, entry.function);
  frontend::SyntaxTree tree = frontend::parseSyntax(file, diagnostics);
  addRelaxFunctions(tree.root->stmt(), file, diagnostics, parsed->className, result.module);
  if (!diagnostics.hasErrors()) frontend::checkRelaxCalls(result.module, diagnostics);
  result.diagnostics = diagnostics.render();
  return result;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string readSample(const std::string &sampleName) { return readFile("samples/" + sampleName); }

ParsedFile parseSample(const std::string &sampleName) {
  return parseText("samples/" + sampleName, readSample(sampleName));
}

backend::Tensor randomTensor(std::vector<int64_t> shape, uint64_t seed) {
  backend::Tensor tensor(ir::DataType::float32(), std::move(shape));
  backend::fillRandom(tensor, seed, "relax-test");
  return tensor;
}

graph::NamedTensors mlpInputs(uint64_t seed) {
  return {{"x", randomTensor({1, 784}, seed)},
          {"w0", randomTensor({128, 784}, seed + 1)},
          {"b0", randomTensor({128}, seed + 2)},
          {"w1", randomTensor({10, 128}, seed + 3)},
          {"b1", randomTensor({10}, seed + 4)}};
}

backend::Tensor referenceMlp(const graph::NamedTensors &inputs) {
  auto get = [&](const char *name) -> const backend::Tensor & {
    for (const auto &[n, t] : inputs)
      if (n == name) return t;
    throw std::runtime_error(std::string("missing ") + name);
  };
  const backend::Tensor &x = get("x"), &w0 = get("w0"), &b0 = get("b0"), &w1 = get("w1"),
                        &b1 = get("b1");
  std::vector<double> hidden(128);
  for (int j = 0; j < 128; ++j) {
    double sum = b0.doubleAt(j);
    for (int k = 0; k < 784; ++k) sum += x.doubleAt(k) * w0.doubleAt(j * 784 + k);
    hidden[j] = std::max(sum, 0.0);
  }
  backend::Tensor out(ir::DataType::float32(), {1, 10});
  for (int j = 0; j < 10; ++j) {
    double sum = b1.doubleAt(j);
    for (int k = 0; k < 128; ++k) sum += hidden[k] * w1.doubleAt(j * 128 + k);
    out.setDouble(j, sum);
  }
  return out;
}

double maxAbsDifference(const backend::Tensor &a, const backend::Tensor &b) {
  double worst = 0;
  for (int64_t i = 0; i < a.numElements(); ++i)
    worst = std::max(worst, std::abs(a.doubleAt(i) - b.doubleAt(i)));
  return worst;
}

}  // namespace vtac::relax_test
