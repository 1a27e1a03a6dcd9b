/*
 * Runs vector_ops.tvm compiled (VECTOR) and vector_ops_scalar.tvm compiled (SCALAR) on the same
 * inputs: every output element must be equal, bit for bit.
 */
#include <string.h>

#include "harness.h"

int32_t VECTOR(DLTensor *A, DLTensor *B, DLTensor *C);
int32_t SCALAR(DLTensor *A, DLTensor *B, DLTensor *C);

int main(void) {
  static float a[64], b[64], b_ref[64];
  static int32_t c[64], c_ref[64];
  for (int i = 0; i < 64; ++i) a[i] = (float)((i * 37) % 23) * 0.75f - 8.0f;
  int64_t shape[1] = {64};
  DLTensor ta = make_tensor(a, shape, 1, kDLFloat, 32, kDLCPU);
  DLTensor tb = make_tensor(b, shape, 1, kDLFloat, 32, kDLCPU), tc = make_tensor(c, shape, 1, kDLInt, 32, kDLCPU);
  DLTensor rb = make_tensor(b_ref, shape, 1, kDLFloat, 32, kDLCPU), rc = make_tensor(c_ref, shape, 1, kDLInt, 32, kDLCPU);
  printf("vector returned %d, scalar returned %d\n", (int)VECTOR(&ta, &tb, &tc), (int)SCALAR(&ta, &rb, &rc));
  printf("B equal: %s, C equal: %s\n", memcmp(b, b_ref, sizeof b) ? "no" : "yes", memcmp(c, c_ref, sizeof c) ? "no" : "yes");
  printf("C[63] = %d, C[62] = %d\n", (int)c[63], (int)c[62]);
  return 0;
}
