#include "RelaxTestSupport.h"

#include "ReferenceMlp.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "vtac/backend/RandomFill.h"
#include "vtac/frontend/Frontend.h"

namespace vtac::relax_test {

ParsedFile parseText(const std::string &name, const std::string &text) {
  ParsedFile result;
  frontend::SourceFile file(name, text);
  frontend::DiagnosticEngine diagnostics;
  std::optional<frontend::ParsedModule> parsed = frontend::parseModule(file, diagnostics);
  result.diagnostics = diagnostics.render();
  if (!parsed) return result;
  result.module = std::move(parsed->module);
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
  return referenceMlp(get("x"), get("w0"), get("b0"), get("w1"), get("b1"));
}

double maxAbsDifference(const backend::Tensor &a, const backend::Tensor &b) {
  double worst = 0;
  for (int64_t i = 0; i < a.numElements(); ++i)
    worst = std::max(worst, std::abs(a.doubleAt(i) - b.doubleAt(i)));
  return worst;
}

}  // namespace vtac::relax_test
