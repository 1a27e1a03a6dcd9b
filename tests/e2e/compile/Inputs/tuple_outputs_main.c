/*
 * The graph of tests/lit/relax/call_tir_tuple_output_run.test compiled: `main` calls a prim_func
 * of two outputs, then one call on each field, and returns the tuple of their results (two
 * output parameters); `whole` returns the two-output call's tuple itself. Each is run on seeded
 * data and compared with this program's own computation of the same values.
 */
#include <string.h>

#include "harness.h"

int32_t graph_main(DLTensor *x, DLTensor *b, DLTensor *c);
int32_t graph_whole(DLTensor *x, DLTensor *p0, DLTensor *p1);

static int mismatches(const float *got, const float *want, int count) {
  int bad = 0;
  for (int i = 0; i < count; ++i) bad += memcmp(&got[i], &want[i], sizeof(float)) != 0;
  return bad;
}

int main(void) {
  float x[2][8], left[2][3], right[2][5], twice[2][3], plus_one[2][5];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 8; ++j) x[i][j] = (float)((i * 8 + j) * 37 % 19) - 9.5f;
  int64_t xs[2] = {2, 8}, ls[2] = {2, 3}, rs[2] = {2, 5};
  DLTensor tx = make_tensor(x, xs, 2, kDLFloat, 32, kDLCPU);
  DLTensor tl = make_tensor(left, ls, 2, kDLFloat, 32, kDLCPU), tr = make_tensor(right, rs, 2, kDLFloat, 32, kDLCPU);
  DLTensor tt = make_tensor(twice, ls, 2, kDLFloat, 32, kDLCPU), tp = make_tensor(plus_one, rs, 2, kDLFloat, 32, kDLCPU);
  printf("main returned %d\n", graph_main(&tx, &tt, &tp));
  printf("whole returned %d\n", graph_whole(&tx, &tl, &tr));
  float want_left[2][3], want_right[2][5], want_twice[2][3], want_plus_one[2][5];
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      want_left[i][j] = x[i][j];
      want_twice[i][j] = x[i][j] * 2.0f;
    }
    for (int j = 0; j < 5; ++j) {
      want_right[i][j] = x[i][j + 3];
      want_plus_one[i][j] = x[i][j + 3] + 1.0f;
    }
  }
  printf("mismatches: main %d of 16, whole %d of 16\n",
         mismatches(&twice[0][0], &want_twice[0][0], 6) + mismatches(&plus_one[0][0], &want_plus_one[0][0], 10),
         mismatches(&left[0][0], &want_left[0][0], 6) + mismatches(&right[0][0], &want_right[0][0], 10));
  return 0;
}
