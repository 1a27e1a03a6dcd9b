/*
 * Runs LAYER (parallel_matmul.tvm compiled) once: its output must equal the same matmul
 * computed serially here, bit for bit (each row sums in the same order), and the rows must
 * have been computed by as many distinct threads as the pool has (record_thread notes which
 * thread ran each row).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>

#include <vtac/parallel.h>

#include "harness.h"
#include "record_thread.h"

enum { M = 64, K = 32, N = 16 };

static pthread_t row_thread[M];

int32_t record_thread(int32_t row) {
  row_thread[row] = pthread_self();
  return row;
}

int32_t LAYER(DLTensor *A, DLTensor *B, DLTensor *C, DLTensor *T_id);

int main(void) {
  static float a[M * K], b[K * N], c[M * N], expected[M * N];
  static int32_t ids[M];
  for (int i = 0; i < M * K; ++i) a[i] = (float)((i * 7) % 13) - 6.0f;
  for (int i = 0; i < K * N; ++i) b[i] = (float)((i * 5) % 11) * 0.25f;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float sum = 0.0f;
      for (int k = 0; k < K; ++k) sum = sum + a[i * K + k] * b[k * N + j];
      expected[i * N + j] = sum;
    }
  int64_t sa[2] = {M, K}, sb[2] = {K, N}, sc[2] = {M, N}, st[1] = {M};
  DLTensor ta = make_tensor(a, sa, 2, kDLFloat, 32, kDLCPU), tb = make_tensor(b, sb, 2, kDLFloat, 32, kDLCPU);
  DLTensor tc = make_tensor(c, sc, 2, kDLFloat, 32, kDLCPU), tt = make_tensor(ids, st, 1, kDLInt, 32, kDLCPU);
  printf("LAYER returned %d\n", (int)LAYER(&ta, &tb, &tc, &tt));
  printf("mismatches: %d\n", memcmp(c, expected, sizeof c) != 0);
  int rows_in_order = 1;
  for (int i = 0; i < M; ++i) rows_in_order &= ids[i] == i;
  printf("rows recorded: %s\n", rows_in_order ? "all" : "not all");
  int distinct = 0;
  for (int i = 0; i < M; ++i) {
    int seen = 0;
    for (int j = 0; j < i; ++j) seen |= pthread_equal(row_thread[i], row_thread[j]);
    distinct += !seen;
  }
  printf("pool threads: %d, distinct threads that ran rows: %d\n", (int)vtac_parallel_num_threads(), distinct);
  return 0;
}
