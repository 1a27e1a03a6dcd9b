#include "TestSupport.h"

#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/RandomFill.h"
#include "vtac/frontend/Frontend.h"

namespace vtac::backend::test {

namespace {

ir::PrimFuncRef parseNamed(const std::string &fileName, const std::string &text, const std::string &name) {
  frontend::SourceFile file(fileName, text);
  frontend::DiagnosticEngine diagnostics;
  auto parsed = frontend::parseModule(file, diagnostics);
  INFO(diagnostics.render());
  REQUIRE(parsed);
  ir::FunctionRef function = parsed->module.lookup(name);
  REQUIRE(function);
  REQUIRE(function.isa<ir::PrimFunc>());
  return ir::cast<ir::PrimFunc>(function);
}

}  // namespace

ir::PrimFuncRef parseFunction(const std::string &text, const std::string &name) {
  return parseNamed("test.tvm", text, name);
}

ir::PrimFuncRef loadSample(const std::string &file, const std::string &name) {
  std::ifstream in("samples/" + file);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return parseNamed("samples/" + file, text.str(), name);
}

std::unique_ptr<CompiledFunction> compile(const ir::PrimFuncRef &function, const ExternRegistry &registry) {
  auto compiled = CompiledFunction::compile(function, "main", registry);
  if (!compiled) FAIL(renderError(compiled.takeError()));
  return std::move(*compiled);
}

std::string runError(const ir::PrimFuncRef &function, std::vector<Tensor> &arguments,
                     const ExternRegistry &registry) {
  auto compiled = CompiledFunction::compile(function, "main", registry);
  if (!compiled) return renderError(compiled.takeError());
  if (llvm::Error error = (*compiled)->run(arguments)) return renderError(std::move(error));
  return "";
}

Tensor randomTensor(ir::DataType dtype, std::vector<int64_t> shape, const std::string &name, uint64_t seed) {
  Tensor tensor(dtype, std::move(shape));
  fillRandom(tensor, seed, name);
  return tensor;
}

Tensor tensorOf(ir::DataType dtype, std::vector<int64_t> shape, const std::vector<double> &values) {
  Tensor tensor(dtype, std::move(shape));
  REQUIRE(size_t(tensor.numElements()) == values.size());
  for (size_t i = 0; i < values.size(); ++i) tensor.setDouble(int64_t(i), values[i]);
  return tensor;
}

}  // namespace vtac::backend::test
