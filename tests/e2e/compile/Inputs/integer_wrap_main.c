/* Calls `wrap` (Inputs/integer_wrap.tvm) on INT32_MAX, 1, INT32_MIN, -1 / INT64_MIN, -1 /
 * 65535, 65535 (parameters, so that the C compiler cannot fold them) and prints the results. */
#include <inttypes.h>
#include <stdio.h>

#include "harness.h"

int32_t wrap(DLTensor *, DLTensor *, DLTensor *, DLTensor *, DLTensor *, DLTensor *);

int main(void) {
  int32_t a[4] = {INT32_MAX, 1, INT32_MIN, -1}, r32[6] = {0};
  int64_t l[2] = {INT64_MIN, -1}, r64[5] = {0};
  uint16_t u[2] = {65535, 65535}, r16[1] = {0};
  int64_t s4[1] = {4}, s2[1] = {2}, s6[1] = {6}, s5[1] = {5}, s1[1] = {1};
  DLTensor ta = make_tensor(a, s4, 1, kDLInt, 32, kDLCPU), tl = make_tensor(l, s2, 1, kDLInt, 64, kDLCPU);
  DLTensor tu = make_tensor(u, s2, 1, kDLUInt, 16, kDLCPU), tr32 = make_tensor(r32, s6, 1, kDLInt, 32, kDLCPU);
  DLTensor tr64 = make_tensor(r64, s5, 1, kDLInt, 64, kDLCPU), tr16 = make_tensor(r16, s1, 1, kDLUInt, 16, kDLCPU);
  printf("returned %d\n", (int)wrap(&ta, &tl, &tu, &tr32, &tr64, &tr16));
  for (int i = 0; i < 6; ++i) printf("R32[%d] = %" PRId32 "\n", i, r32[i]);
  for (int i = 0; i < 5; ++i) printf("R64[%d] = %" PRId64 "\n", i, r64[i]);
  printf("R16[0] = %u\n", (unsigned)r16[0]);
  return 0;
}
