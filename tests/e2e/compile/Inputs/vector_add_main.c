/*
 * Links a compiled seed-002 vector add (symbol LAYER: C = (int8)(A + B) on the VTA ALU) and
 * checks it against C, twice, printing the statistics of each call.
 */
#include "harness.h"

int32_t LAYER(DLTensor *a, DLTensor *b, DLTensor *c);

static int32_t a_host[16384], b_host[16384];
static int8_t c_host[16384];

int main(void) {
  int64_t shape[4] = {16, 64, 1, 16};
  DLTensor a = vta_tensor(shape, 4, 32), b = vta_tensor(shape, 4, 32), c = vta_tensor(shape, 4, 8);
  fill(a_host, 16384, 32, 3, 1 << 20);
  fill(b_host, 16384, 32, 4, 1 << 20);
  to_device(&a, a_host);
  to_device(&b, b_host);
  int mismatches = 0;
  for (int call = 0; call < 2; ++call) {
    VTASimClearStats();
    CALL_LAYER(LAYER(&a, &b, &c));
    print_stats();
    from_device(&c, c_host);
    for (int i = 0; i < 16384; ++i) mismatches += c_host[i] != (int8_t)(a_host[i] + b_host[i]);
  }
  printf("mismatches: %d\n", mismatches);
  return mismatches != 0;
}
