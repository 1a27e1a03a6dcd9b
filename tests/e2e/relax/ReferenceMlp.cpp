#include "ReferenceMlp.h"

#include <vector>

namespace vtac::relax_test {

backend::Tensor referenceMlp(const backend::Tensor &x, const backend::Tensor &w0, const backend::Tensor &b0,
                             const backend::Tensor &w1, const backend::Tensor &b1) {
  int64_t m = w0.shape()[1], n = w0.shape()[0], k = w1.shape()[0];
  std::vector<double> hidden(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    double sum = b0.doubleAt(j);
    for (int64_t i = 0; i < m; ++i) sum += x.doubleAt(i) * w0.doubleAt(j * m + i);
    hidden[size_t(j)] = sum > 0 ? sum : 0;
  }
  backend::Tensor out(ir::DataType::float32(), {1, k});
  for (int64_t j = 0; j < k; ++j) {
    double sum = b1.doubleAt(j);
    for (int64_t i = 0; i < n; ++i) sum += hidden[size_t(i)] * w1.doubleAt(j * n + i);
    out.setDouble(j, sum);
  }
  return out;
}

}  // namespace vtac::relax_test
