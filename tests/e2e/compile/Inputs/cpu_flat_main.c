/*
 * Links the compiled Inputs/cpu_flat.tvm (symbol LAYER) with host-memory tensors, checks its
 * outputs against the same computation written in C, then calls it with arguments that break
 * each entry check (symbolic size, dtype, strides) and prints the messages.
 */
#include <math.h>

#include "harness.h"

int32_t LAYER(DLTensor *a, DLTensor *b, DLTensor *c, DLTensor *d);

static int32_t floordiv(int32_t a, int32_t b) { return (a - (((a % b) + b) % b)) / b; }

int main(void) {
  enum { N = 7 };
  float a[32], c[32];
  int32_t b[N], d[N], a_ints[32];
  fill(a_ints, 32, 32, 5, 200);
  for (int i = 0; i < 32; ++i) a[i] = (float)a_ints[i] / 8.0f;
  fill(b, N, 32, 6, 40);
  int64_t matrix[2] = {4, 8}, vector[1] = {N}, other[1] = {N - 1}, strides[2] = {1, 4};
  DLTensor ta = make_tensor(a, matrix, 2, kDLFloat, 32, kDLCPU), tb = make_tensor(b, vector, 1, kDLInt, 32, kDLCPU);
  DLTensor tc = make_tensor(c, matrix, 2, kDLFloat, 32, kDLCPU), td = make_tensor(d, vector, 1, kDLInt, 32, kDLCPU);
  CALL_LAYER(LAYER(&ta, &tb, &tc, &td));

  int mismatches = 0;
  for (int j = 0; j < 8; ++j) {
    float sum = 0.0f;
    for (int i = 0; i < 4; ++i) sum += a[i * 8 + j];
    for (int i = 0; i < 4; ++i) {
      float centred = a[i * 8 + j] - sum * 0.25f;
      mismatches += c[i * 8 + j] != (centred > 0.0f ? centred : 0.0f) + sqrtf((float)j);
    }
  }
  for (int k = 0; k < N; ++k) {
    int32_t q = floordiv(b[k], 3);
    mismatches += d[k] != q * 100 + (b[k] - 3 * q) + (k + 1 < N ? b[k + 1] : 0) * 10000;
  }
  printf("mismatches: %d\n", mismatches);

  td.shape = other;
  CALL_LAYER(LAYER(&ta, &tb, &tc, &td));
  td.shape = vector;
  tc.dtype.bits = 64;
  CALL_LAYER(LAYER(&ta, &tb, &tc, &td));
  tc.dtype.bits = 32;
  ta.strides = strides;
  CALL_LAYER(LAYER(&ta, &tb, &tc, &td));
  return mismatches != 0;
}
