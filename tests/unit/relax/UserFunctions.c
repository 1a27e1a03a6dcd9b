/* A user library for --load-library tests: registers "user.scale3" (out = 3 * x, float32) from
 * vtac_library_init, as a library written against func_registry.h only would. */
#include "vtac/func_registry.h"

static int scale3(const vtac_tensor *args, int32_t num_args, void *resource) {
  (void)resource;
  if (num_args != 2) {
    vtac_set_last_error("user.scale3 takes (x, out)");
    return -1;
  }
  const float *x = (const float *)args[0].data;
  float *out = (float *)args[1].data;
  for (int64_t i = 0; i < vtac_tensor_num_elements(&args[0]); ++i) out[i] = 3.0f * x[i];
  return 0;
}

int vtac_library_init(void) { return vtac_register_func("user.scale3", scale3, 0, 1); }
