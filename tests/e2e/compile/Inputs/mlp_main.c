/*
 * Seed 004's MLP graph (samples/mlp_extern_call.tvm: env.linear, env.relu, env.linear) compiled
 * into one function LAYER, linked with this program, which provides the two registered
 * functions as C symbols (env_linear, env_relu) in destination-passing style.
 *
 *   mlp_main inputs DIR   writes x, w0, b0, w1, b1 (784-128-10, seeded) as DIR/NAME.npy
 *   mlp_main compare DIR  runs the compiled graph on the same data and compares its output with
 *                         DIR/out.npy (what `vtac run` computed from DIR's inputs)
 */
#include <math.h>
#include <string.h>

#include "harness.h"

enum { M = 784, N = 128, K = 10 };

int32_t LAYER(DLTensor *x, DLTensor *w0, DLTensor *b0, DLTensor *w1, DLTensor *b1, DLTensor *out);

/* out (b, n) = x (b, m) @ w (n, m)^T + b (n,) */
int32_t env_linear(DLTensor *x, DLTensor *w, DLTensor *b, DLTensor *out) {
  int64_t rows = x->shape[0], m = x->shape[1], n = w->shape[0];
  if (w->shape[1] != m || b->shape[0] != n || out->shape[0] != rows || out->shape[1] != n) return -10;
  const float *xs = x->data, *ws = w->data, *bs = b->data;
  float *os = out->data;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int64_t i = 0; i < m; ++i) sum += xs[r * m + i] * ws[j * m + i];
      os[r * n + j] = sum + bs[j];
    }
  return 0;
}

int32_t env_relu(DLTensor *x, DLTensor *out) {
  int64_t count = 1;
  for (int i = 0; i < x->ndim; ++i) count *= x->shape[i];
  const float *xs = x->data;
  float *os = out->data;
  for (int64_t i = 0; i < count; ++i) os[i] = xs[i] > 0.0f ? xs[i] : 0.0f;
  return 0;
}

static float x[M], w0[N * M], b0[N], w1[K * N], b1[K], out[K], expected[K];

static void make_inputs(void) {
  int32_t ints[N * M];
  float *arrays[5] = {x, w0, b0, w1, b1};
  int64_t counts[5] = {M, N * M, N, K * N, K};
  for (int a = 0; a < 5; ++a) {
    fill(ints, counts[a], 32, (uint64_t)(10 + a), 2001);
    for (int64_t i = 0; i < counts[a]; ++i) arrays[a][i] = (float)ints[i] / 1000.0f;
  }
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  make_inputs();
  char path[4096];
  int64_t sx[2] = {1, M}, sw0[2] = {N, M}, sb0[1] = {N}, sw1[2] = {K, N}, sb1[1] = {K}, sout[2] = {1, K};
  if (strcmp(argv[1], "inputs") == 0) {
    const char *names[5] = {"x", "w0", "b0", "w1", "b1"};
    const float *arrays[5] = {x, w0, b0, w1, b1};
    const int64_t *shapes[5] = {sx, sw0, sb0, sw1, sb1};
    int ndims[5] = {2, 2, 1, 2, 1};
    for (int a = 0; a < 5; ++a) {
      snprintf(path, sizeof path, "%s/%s.npy", argv[2], names[a]);
      if (write_npy_f32(path, arrays[a], shapes[a], ndims[a]) != 0) return 1;
    }
    printf("wrote 5 inputs\n");
    return 0;
  }
  DLTensor tx = make_tensor(x, sx, 2, kDLFloat, 32, kDLCPU), tw0 = make_tensor(w0, sw0, 2, kDLFloat, 32, kDLCPU);
  DLTensor tb0 = make_tensor(b0, sb0, 1, kDLFloat, 32, kDLCPU), tw1 = make_tensor(w1, sw1, 2, kDLFloat, 32, kDLCPU);
  DLTensor tb1 = make_tensor(b1, sb1, 1, kDLFloat, 32, kDLCPU), tout = make_tensor(out, sout, 2, kDLFloat, 32, kDLCPU);
  CALL_LAYER(LAYER(&tx, &tw0, &tb0, &tw1, &tb1, &tout));
  snprintf(path, sizeof path, "%s/out.npy", argv[2]);
  if (read_npy_f32(path, expected, K) != 0) {
    printf("cannot read %s\n", path);
    return 1;
  }
  int mismatches = 0, nonzero = 0;
  for (int i = 0; i < K; ++i) {
    mismatches += fabsf(out[i] - expected[i]) > 1e-5f * (1.0f + fabsf(expected[i]));
    nonzero += expected[i] != 0.0f;
  }
  printf("mismatches against vtac run: %d of %d (%d non-zero outputs)\n", mismatches, K, nonzero);
  sout[1] = K + 1;
  CALL_LAYER(LAYER(&tx, &tw0, &tb0, &tw1, &tb1, &tout));
  return mismatches != 0;
}
