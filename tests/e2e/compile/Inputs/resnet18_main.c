/*
 * The compiled VTA part of ResNet-18 (samples/models/resnet18_vta.tvm, symbol resnet18) called
 * as a plain C program calls it: host DLTensors for the input, the 19 weights and the result,
 * read from the .npy files of one directory (x.npy, <weight>.npy: the generator's weights.npz
 * unpacked, expected.npy: its numpy reference); then the weights uploaded once into VTA buffers
 * (kDLExtDev), which resnet18 reads in place instead of copying ~11 MB on every call.
 *
 *   resnet18_main DIR [RUNS]
 *       calls resnet18 twice on DIR's tensors with host weights, then twice with the weights
 *       as VTA buffers, and compares each result byte for byte with DIR/expected.npy; exit
 *       status 0 when all equal it. With RUNS (bench/graph/resnet18.sh), then times RUNS more
 *       inferences each way: CPU and wall milliseconds per inference (the simulator runs on the
 *       calling thread, whose CPU time a shared machine disturbs least).
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99 */
#include <string.h>
#include <time.h>

#include "harness.h"

#define NUM_WEIGHTS 19
#define MAX_NDIM 6

int32_t resnet18(DLTensor *x, DLTensor *w_l1_0_conv1, DLTensor *w_l1_0_conv2, DLTensor *w_l1_1_conv1,
                 DLTensor *w_l1_1_conv2, DLTensor *w_l2_0_conv1, DLTensor *w_l2_0_downsample, DLTensor *w_l2_0_conv2,
                 DLTensor *w_l2_1_conv1, DLTensor *w_l2_1_conv2, DLTensor *w_l3_0_conv1, DLTensor *w_l3_0_downsample,
                 DLTensor *w_l3_0_conv2, DLTensor *w_l3_1_conv1, DLTensor *w_l3_1_conv2, DLTensor *w_l4_0_conv1,
                 DLTensor *w_l4_0_downsample, DLTensor *w_l4_0_conv2, DLTensor *w_l4_1_conv1, DLTensor *w_l4_1_conv2,
                 DLTensor *gv);

/* main's parameters after x, in order */
static const char *weight_names[NUM_WEIGHTS] = {
    "w_l1_0_conv1", "w_l1_0_conv2", "w_l1_1_conv1",      "w_l1_1_conv2", "w_l2_0_conv1",
    "w_l2_0_downsample", "w_l2_0_conv2", "w_l2_1_conv1", "w_l2_1_conv2", "w_l3_0_conv1",
    "w_l3_0_downsample", "w_l3_0_conv2", "w_l3_1_conv1", "w_l3_1_conv2", "w_l4_0_conv1",
    "w_l4_0_downsample", "w_l4_0_conv2", "w_l4_1_conv1", "w_l4_1_conv2"};

struct array {
  int64_t shape[MAX_NDIM];
  DLTensor tensor;
};

/* An int8 C-order .npy file (format 1.0, numpy's header) as a host tensor; 0 on success. */
static int load_int8(const char *dir, const char *name, struct array *a) {
  char path[4096], header[1024];
  unsigned char preamble[10];
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  FILE *file = fopen(path, "rb");
  if (!file) return fprintf(stderr, "cannot open %s\n", path), -1;
  size_t length = 0;
  int ok = fread(preamble, 1, 10, file) == 10 && preamble[0] == 0x93 && preamble[6] == 1 &&
           (length = preamble[8] + 256u * preamble[9]) < sizeof header && fread(header, 1, length, file) == length;
  header[ok ? length : 0] = '\0';
  const char *shape = strstr(header, "'shape': (");
  ok = ok && strstr(header, "'descr': '|i1'") && strstr(header, "'fortran_order': False") && shape;
  int ndim = 0;
  for (const char *p = ok ? shape + 10 : ")"; *p != ')' && ndim < MAX_NDIM; ++ndim) {
    char *end;
    a->shape[ndim] = strtoll(p, &end, 10);
    ok = ok && end != p;
    p = end + (*end == ',') + (end[*end == ','] == ' ');
  }
  a->tensor = make_tensor(NULL, a->shape, ndim, kDLInt, 8, kDLCPU);
  size_t bytes = ok ? (size_t)tensor_bytes(&a->tensor) : 0;
  a->tensor.data = malloc(bytes ? bytes : 1);
  ok = ok && fread(a->tensor.data, 1, bytes, file) == bytes;
  fclose(file);
  if (!ok) fprintf(stderr, "%s: not an int8 C-order .npy file\n", path);
  return ok ? 0 : -1;
}

static int32_t call_resnet18(struct array *x, DLTensor **t, struct array *out) {
  return resnet18(&x->tensor, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13],
                  t[14], t[15], t[16], t[17], t[18], &out->tensor);
}

/* Runs resnet18 on x and the weights t; returns how many bytes of its result differ from
 * `expected`. */
static int64_t run_and_compare(struct array *x, DLTensor **t, struct array *out, const struct array *expected) {
  memset(out->tensor.data, 0x55, (size_t)tensor_bytes(&out->tensor));
  int32_t status = call_resnet18(x, t, out);
  printf("resnet18 returned %d\n", (int)status);
  if (status != 0) printf("message: %s\n", VTARuntimeLastError());
  int64_t bytes = tensor_bytes(&out->tensor), mismatches = 0, nonzero = 0;
  for (int64_t i = 0; i < bytes; ++i) {
    int8_t want = ((const int8_t *)expected->tensor.data)[i];
    mismatches += ((const int8_t *)out->tensor.data)[i] != want;
    nonzero += want != 0;
  }
  printf("resnet18: mismatches against the numpy reference: %lld of %lld bytes (%lld non-zero)\n",
         (long long)mismatches, (long long)bytes, (long long)nonzero);
  return mismatches;
}

static double seconds_of(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void time_inferences(const char *weights, int runs, struct array *x, DLTensor **t, struct array *out) {
  uint64_t validations = VTASimProgramValidations();
  double cpu = seconds_of(CLOCK_THREAD_CPUTIME_ID), wall = seconds_of(CLOCK_MONOTONIC);
  int failed = 0;
  for (int r = 0; r < runs; ++r) failed += call_resnet18(x, t, out) != 0;
  cpu = seconds_of(CLOCK_THREAD_CPUTIME_ID) - cpu;
  wall = seconds_of(CLOCK_MONOTONIC) - wall;
  validations = VTASimProgramValidations() - validations;
  printf("weights=%s runs=%d failed=%d cpu_ms_per_inference=%.3f wall_ms_per_inference=%.3f programs_validated=%llu\n",
         weights, runs, failed, 1e3 * cpu / runs, 1e3 * wall / runs, (unsigned long long)validations);
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) return 2;
  struct array x, w[NUM_WEIGHTS], expected, out;
  int loaded = 0, status = 1;
  if (load_int8(argv[1], "x", &x) != 0) return 1;
  while (loaded < NUM_WEIGHTS && load_int8(argv[1], weight_names[loaded], &w[loaded]) == 0) ++loaded;
  if (loaded == NUM_WEIGHTS && load_int8(argv[1], "expected", &expected) == 0) {
    out = expected;
    out.tensor.shape = out.shape;
    out.tensor.data = malloc((size_t)tensor_bytes(&expected.tensor));
    DLTensor *host[NUM_WEIGHTS], vta[NUM_WEIGHTS], *device[NUM_WEIGHTS];
    for (int i = 0; i < NUM_WEIGHTS; ++i) {
      host[i] = &w[i].tensor;
      vta[i] = vta_tensor(w[i].shape, w[i].tensor.ndim, 8);
      to_device(&vta[i], w[i].tensor.data);
      device[i] = &vta[i];
    }
    int64_t mismatches = run_and_compare(&x, host, &out, &expected);
    mismatches += run_and_compare(&x, host, &out, &expected);
    printf("weights as VTA buffers:\n");
    mismatches += run_and_compare(&x, device, &out, &expected);
    mismatches += run_and_compare(&x, device, &out, &expected);
    status = mismatches != 0;
    if (argc == 3 && status == 0) {
      time_inferences("host", atoi(argv[2]), &x, host, &out);
      time_inferences("vta", atoi(argv[2]), &x, device, &out);
    }
    for (int i = 0; i < NUM_WEIGHTS; ++i) VTABufferFree(vta[i].data);
    free(out.tensor.data);
    free(expected.tensor.data);
  }
  for (int i = 0; i < loaded; ++i) free(w[i].tensor.data);
  free(x.tensor.data);
  return status;
}
