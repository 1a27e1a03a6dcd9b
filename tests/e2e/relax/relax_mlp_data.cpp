// Test data for the Relax end-to-end tests, made at test time rather than committed:
//
//   relax_mlp_data make DIR     writes DIR/x.npy (1, 784), DIR/params.npz (w0, b0, w1, b1;
//                               deflated), DIR/all.npz (x too; stored), DIR/expected.npy (the
//                               MLP computed here, independently of vtac), DIR/bad_x.npy
//                               (1, 785), DIR/partial.npz (no b1) and DIR/corrupt.npz
//   relax_mlp_data compare EXPECTED.npy ACTUAL.npy
//                               exit 0 when shapes match and every |a - b| <= 1e-4
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/Npy.h"
#include "vtac/backend/RandomFill.h"
#include "vtac/graph/Npz.h"
#include "ReferenceMlp.h"

using namespace vtac;

namespace {

backend::Tensor random(std::vector<int64_t> shape, const char *name) {
  backend::Tensor tensor(ir::DataType::float32(), std::move(shape));
  backend::fillRandom(tensor, 2024, name);
  return tensor;
}

bool check(llvm::Error error) {
  if (!error) return true;
  std::fprintf(stderr, "%s", backend::renderError(std::move(error)).c_str());
  return false;
}

int make(const std::string &dir) {
  backend::Tensor x = random({1, 784}, "x"), w0 = random({128, 784}, "w0"), b0 = random({128}, "b0"),
                  w1 = random({10, 128}, "w1"), b1 = random({10}, "b1");
  graph::NamedTensors params = {{"w0", w0}, {"b0", b0}, {"w1", w1}, {"b1", b1}};
  graph::NamedTensors all = {{"x", x}, {"w0", w0}, {"b0", b0}, {"w1", w1}, {"b1", b1}};
  graph::NamedTensors partial = {{"w0", w0}, {"b0", b0}, {"w1", w1}};
  bool ok = check(backend::writeNpy(dir + "/x.npy", x)) &&
            check(backend::writeNpy(dir + "/bad_x.npy", random({1, 785}, "x"))) &&
            check(backend::writeNpy(dir + "/expected.npy", relax_test::referenceMlp(x, w0, b0, w1, b1))) &&
            check(graph::writeNpz(dir + "/params.npz", params, true)) &&
            check(graph::writeNpz(dir + "/all.npz", all, false)) &&
            check(graph::writeNpz(dir + "/partial.npz", partial, true));
  // A zip whose central directory was cut off: what a truncated download looks like.
  std::ifstream in(dir + "/params.npz", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(dir + "/corrupt.npz", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  return ok ? 0 : 1;
}

int compare(const std::string &expectedPath, const std::string &actualPath) {
  llvm::Expected<backend::Tensor> expected = backend::readNpy(expectedPath);
  llvm::Expected<backend::Tensor> actual = backend::readNpy(actualPath);
  if (!expected || !actual) {
    if (!expected) check(expected.takeError());
    else llvm::consumeError(expected.takeError());
    if (!actual) check(actual.takeError());
    else llvm::consumeError(actual.takeError());
    return 1;
  }
  if (expected->shape() != actual->shape() || expected->dtype() != actual->dtype()) {
    std::fprintf(stderr, "%s: shape or dtype differs from %s\n", actualPath.c_str(), expectedPath.c_str());
    return 1;
  }
  double worst = 0;
  for (int64_t i = 0; i < expected->numElements(); ++i) {
    double difference = std::abs(expected->doubleAt(i) - actual->doubleAt(i));
    // std::max drops a NaN: a NaN in the output must fail the comparison, not be skipped.
    worst = std::isnan(difference) ? INFINITY : std::max(worst, difference);
  }
  std::printf("%s: max |difference| %.3g\n", actualPath.c_str(), worst);
  return worst <= 1e-4 ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  std::string command = argc > 1 ? argv[1] : "";
  if (command == "make" && argc == 3) return make(argv[2]);
  if (command == "compare" && argc == 4) return compare(argv[2], argv[3]);
  std::fprintf(stderr, "usage: relax_mlp_data make DIR | compare EXPECTED.npy ACTUAL.npy\n");
  return 2;
}
