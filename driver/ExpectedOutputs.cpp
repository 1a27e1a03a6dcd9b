#include "ExpectedOutputs.h"

#include "vtac/backend/Npy.h"

namespace vtac::driver {

llvm::Expected<std::vector<ExpectedOutput>> readExpectedOutputs(
    const std::vector<std::pair<std::string, std::string>> &expectations) {
  std::vector<ExpectedOutput> expected;
  for (const auto &[name, path] : expectations) {
    llvm::Expected<backend::Tensor> tensor = backend::readNpy(path);
    if (!tensor) return tensor.takeError();
    expected.push_back({name, path, std::move(*tensor)});
  }
  return expected;
}

bool reportComparison(const std::string &name, const backend::Tensor &expected, const backend::Tensor &actual,
                      const std::string &against, backend::FloatTolerance tolerance, std::ostream &out) {
  backend::TensorComparison comparison = backend::compareTensors(expected, actual, 10, tolerance);
  if (!comparison.incompatibility.empty()) {
    out << name << ": cannot compare with " << against << ": " << comparison.incompatibility << "\n";
    return false;
  }
  if (comparison.equal()) {
    out << name << ": all " << comparison.numElements << " elements match " << against << "\n";
    return true;
  }
  out << name << ": " << comparison.numMismatches << " of " << comparison.numElements << " elements differ from "
      << against << "\n";
  for (const backend::Mismatch &mismatch : comparison.firstMismatches)
    out << "  " << name << backend::formatIndex(mismatch.index) << ": expected " << mismatch.expected << ", got "
        << mismatch.actual << "\n";
  return false;
}

}  // namespace vtac::driver
