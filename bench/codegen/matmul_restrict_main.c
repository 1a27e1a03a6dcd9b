/*
 * Times seed 004's unscheduled 1024^3 float32 matmul compiled by vtac (symbol matmul, linked
 * object) against the same matmul as a C programmer writes it, restrict pointers, compiled with
 * this file (-O2): CPU seconds of each and their ratio, and whether the results are equal.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dlpack/dlpack.h>

int32_t matmul(DLTensor *a, DLTensor *b, DLTensor *c);

enum { N = 1024 };

__attribute__((noinline)) static void matmul_restrict(const float *restrict a, const float *restrict b,
                                                      float *restrict c) {
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < N; ++j) {
      c[i * N + j] = 0.0f;
      for (int64_t k = 0; k < N; ++k) c[i * N + j] = c[i * N + j] + a[i * N + k] * b[k * N + j];
    }
}

static double cpu_seconds(void) { return (double)clock() / CLOCKS_PER_SEC; }

int main(void) {
  float *a = malloc(sizeof(float) * N * N), *b = malloc(sizeof(float) * N * N);
  float *c = malloc(sizeof(float) * N * N), *reference = malloc(sizeof(float) * N * N);
  uint64_t state = 4;
  for (int64_t i = 0; i < N * N; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    a[i] = (float)((state >> 40) % 1000) / 1000.0f;
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    b[i] = (float)((state >> 40) % 1000) / 1000.0f;
  }
  int64_t shape[2] = {N, N};
  DLTensor ta = {a, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0}, tb = ta, tc = ta;
  tb.data = b;
  tc.data = c;

  double start = cpu_seconds();
  matmul_restrict(a, b, reference);
  double c_seconds = cpu_seconds() - start;
  start = cpu_seconds();
  int32_t status = matmul(&ta, &tb, &tc);
  double vtac_seconds = cpu_seconds() - start;
  printf("C loop, restrict (-O2): %.3f s CPU\n", c_seconds);
  printf("vtac object: %.3f s CPU (status %d), %.2fx the C loop\n", vtac_seconds, (int)status,
         vtac_seconds / c_seconds);
  printf("results %s\n", memcmp(c, reference, sizeof(float) * N * N) == 0 ? "equal" : "DIFFER");
  return status != 0;
}
