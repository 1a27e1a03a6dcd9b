/*
 * Links a compiled seed-002 vector add (symbol LAYER) and calls it with a freed buffer, which
 * fails, then with live buffers, which must add correctly: a failed call leaves nothing queued
 * that spoils the next one.
 */
#include "harness.h"

int32_t LAYER(DLTensor *a, DLTensor *b, DLTensor *c);

static int32_t a_host[16384], b_host[16384];
static int8_t c_host[16384];

int main(void) {
  int64_t shape[4] = {16, 64, 1, 16};
  DLTensor a = vta_tensor(shape, 4, 32), b = vta_tensor(shape, 4, 32), c = vta_tensor(shape, 4, 8);
  DLTensor freed = vta_tensor(shape, 4, 32);
  VTABufferFree(freed.data);
  fill(a_host, 16384, 32, 3, 1 << 20);
  fill(b_host, 16384, 32, 4, 1 << 20);
  to_device(&a, a_host);
  to_device(&b, b_host);
  CALL_LAYER(LAYER(&a, &freed, &c));
  CALL_LAYER(LAYER(&a, &b, &c));
  from_device(&c, c_host);
  int mismatches = 0;
  for (int i = 0; i < 16384; ++i) mismatches += c_host[i] != (int8_t)(a_host[i] + b_host[i]);
  printf("mismatches: %d\n", mismatches);
  return mismatches != 0;
}
