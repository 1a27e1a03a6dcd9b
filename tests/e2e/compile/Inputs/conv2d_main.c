/*
 * Links a compiled seed-001 conv2d layer (symbol LAYER) and checks it against a direct
 * convolution in C: res = clip((sum data * kernel) >> 8, 0, 127), zero padding 1. Then one
 * call with a wrong shape, which must fail with a message.
 */
#include "harness.h"

int32_t LAYER(DLTensor *data, DLTensor *kernel, DLTensor *res);

static int8_t data_host[16 * 14 * 14 * 16], kernel_host[16 * 16 * 3 * 3 * 16 * 16], res_host[16 * 14 * 14 * 16];

static int reference(int co, int i, int j, int ci) {
  int32_t sum = 0;
  for (int ic = 0; ic < 16; ++ic)
    for (int dy = 0; dy < 3; ++dy)
      for (int dx = 0; dx < 3; ++dx) {
        int y = i + dy - 1, x = j + dx - 1;
        if (y < 0 || y >= 14 || x < 0 || x >= 14) continue;
        for (int k = 0; k < 16; ++k)
          sum += (int32_t)data_host[((ic * 14 + y) * 14 + x) * 16 + k] *
                 (int32_t)kernel_host[((((co * 16 + ic) * 3 + dy) * 3 + dx) * 16 + ci) * 16 + k];
      }
  sum >>= 8;
  return sum < 0 ? 0 : sum > 127 ? 127 : sum;
}

int main(void) {
  int64_t data_shape[6] = {1, 16, 14, 14, 1, 16}, kernel_shape[6] = {16, 16, 3, 3, 16, 16};
  int64_t res_shape[6] = {1, 16, 14, 14, 1, 16};
  DLTensor data = vta_tensor(data_shape, 6, 8), kernel = vta_tensor(kernel_shape, 6, 8);
  DLTensor res = vta_tensor(res_shape, 6, 8);
  fill(data_host, (int64_t)sizeof data_host, 8, 1, 64);
  fill(kernel_host, (int64_t)sizeof kernel_host, 8, 2, 64);
  to_device(&data, data_host);
  to_device(&kernel, kernel_host);

  VTASimClearStats();
  CALL_LAYER(LAYER(&data, &kernel, &res));
  print_stats();
  from_device(&res, res_host);
  int mismatches = 0, in_range = 0;
  for (int co = 0; co < 16; ++co)
    for (int i = 0; i < 14; ++i)
      for (int j = 0; j < 14; ++j)
        for (int ci = 0; ci < 16; ++ci) {
          int expected = reference(co, i, j, ci);
          mismatches += res_host[((co * 14 + i) * 14 + j) * 16 + ci] != expected;
          in_range += expected > 0 && expected < 127;
        }
  printf("mismatches: %d of %d (%d references strictly inside the clip range)\n", mismatches,
         (int)sizeof res_host, in_range);

  res_shape[2] = 13;
  CALL_LAYER(LAYER(&data, &kernel, &res));
  return mismatches != 0;
}
