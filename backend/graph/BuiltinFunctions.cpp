#include "vtac/graph/BuiltinFunctions.h"

#include <mutex>
#include <string>

#include "vtac/func_registry.h"

namespace vtac::graph {

namespace {

bool isFloat32(const vtac_tensor &t) {
  return t.dtype.code == VTAC_DTYPE_FLOAT && t.dtype.bits == 32 && t.dtype.lanes == 1;
}

int fail(const std::string &message) {
  vtac_set_last_error(message.c_str());
  return -1;
}

int envLinear(const vtac_tensor *args, int32_t numArgs, void *) {
  if (numArgs != 4) return fail("env.linear takes (x, w, b, out), got " + std::to_string(numArgs) + " tensors");
  const vtac_tensor &x = args[0], &w = args[1], &b = args[2], &out = args[3];
  for (int i = 0; i < 4; ++i)
    if (!isFloat32(args[i])) return fail("env.linear works on float32 tensors");
  if (x.ndim != 2 || w.ndim != 2 || b.ndim != 1 || out.ndim != 2 || x.shape[1] != w.shape[1] ||
      b.shape[0] != w.shape[0] || out.shape[0] != x.shape[0] || out.shape[1] != w.shape[0])
    return fail("env.linear needs x (b, m), w (n, m), b (n,) and out (b, n)");
  const float *xd = static_cast<const float *>(x.data), *wd = static_cast<const float *>(w.data),
              *bd = static_cast<const float *>(b.data);
  float *od = static_cast<float *>(out.data);
  int64_t rows = x.shape[0], inner = x.shape[1], cols = w.shape[0];
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      float sum = 0;
      for (int64_t k = 0; k < inner; ++k) sum += xd[i * inner + k] * wd[j * inner + k];
      od[i * cols + j] = sum + bd[j];
    }
  return 0;
}

int envRelu(const vtac_tensor *args, int32_t numArgs, void *) {
  if (numArgs != 2) return fail("env.relu takes (x, out), got " + std::to_string(numArgs) + " tensors");
  const vtac_tensor &x = args[0], &out = args[1];
  if (!isFloat32(x) || !isFloat32(out)) return fail("env.relu works on float32 tensors");
  int64_t count = vtac_tensor_num_elements(&x);
  if (x.ndim != out.ndim || count != vtac_tensor_num_elements(&out))
    return fail("env.relu needs x and out of the same shape");
  for (int32_t d = 0; d < x.ndim; ++d)
    if (x.shape[d] != out.shape[d]) return fail("env.relu needs x and out of the same shape");
  const float *xd = static_cast<const float *>(x.data);
  float *od = static_cast<float *>(out.data);
  for (int64_t i = 0; i < count; ++i) od[i] = xd[i] > 0.0f ? xd[i] : 0.0f;
  return 0;
}

}  // namespace

void registerBuiltinFunctions() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Without override: a library that registered these names first keeps them.
    vtac_register_func("env.linear", envLinear, nullptr, 0);
    vtac_register_func("env.relu", envRelu, nullptr, 0);
  });
}

}  // namespace vtac::graph
