/*
 * A compiled Relax main (symbol LAYER) whose calls run VTA code, called as a plain C program
 * calls it: host DLTensors (kDLCPU, malloc'd data) for both inputs and the result, as the
 * generated header allows; the function moves what its VTA functions touch to VTA memory itself.
 * The inputs may also be VTA buffers (kDLExtDev), which it reads in place.
 *
 *   vta_graph_main inputs DIR   writes the two inputs as DIR/in0.npy and DIR/in1.npy
 *   vta_graph_main compare DIR  calls LAYER on them twice and compares each result byte for
 *                               byte with DIR/out.npy (what `vtac run` computed from the inputs);
 *                               then twice with the inputs uploaded once into VTA buffers
 *                               (kDLExtDev, used in place), once with one of each, once with
 *                               the result a VTA buffer (written in place, read back after);
 *                               then with VTA tensors it must refuse (not a live handle, too
 *                               small, ...)
 *
 * -DCONV: seed 001's conv2d twice (data (1, 16, 14, 14, 1, 16) and kernel (16, 16, 3, 3, 16, 16)
 * int8 -> int8); -DWIDE_RESULT: A and B (16, 64, 1, 16) int32 -> int32; otherwise the vector add
 * chain (A and B (16, 64, 1, 16) int32 -> int8).
 */
#include <string.h>

#include "harness.h"

int32_t LAYER(DLTensor *in0, DLTensor *in1, DLTensor *out);

struct spec {
  int bits, ndim, range;  // range: inputs hold values in [-range/2, range/2)
  int64_t shape[6];
};

#ifdef CONV
static struct spec specs[3] = {{8, 6, 64, {1, 16, 14, 14, 1, 16}}, {8, 6, 64, {16, 16, 3, 3, 16, 16}},
                               {8, 6, 0, {1, 16, 14, 14, 1, 16}}};
#elif defined(WIDE_RESULT)
static struct spec specs[3] = {{32, 4, 64, {16, 64, 1, 16}}, {32, 4, 256, {16, 64, 1, 16}}, {32, 4, 0, {16, 64, 1, 16}}};
#else
static struct spec specs[3] = {{32, 4, 64, {16, 64, 1, 16}}, {32, 4, 256, {16, 64, 1, 16}}, {8, 4, 0, {16, 64, 1, 16}}};
#endif

/* A host tensor of specs[i], its data malloc'd (the inputs filled, seeded by i). */
static DLTensor host_tensor(int i) {
  struct spec *s = &specs[i];
  int64_t count = 1;
  for (int d = 0; d < s->ndim; ++d) count *= s->shape[d];
  DLTensor t = make_tensor(calloc((size_t)count, (size_t)s->bits / 8), s->shape, s->ndim, kDLInt, s->bits, kDLCPU);
  if (s->range) fill(t.data, count, s->bits, (uint64_t)(i + 1), s->range);
  return t;
}

/* A VTA buffer holding a copy of host tensor `t`'s data (same shape). */
static DLTensor vta_copy(const DLTensor *t) {
  DLTensor v = vta_tensor(t->shape, t->ndim, t->dtype.bits);
  to_device(&v, t->data);
  return v;
}

/* Runs LAYER with `out` as its result (`host` itself, or a VTA buffer read back into `host`'s
 * data after the call); returns how many bytes of the result differ from `expected`. */
static int64_t run_and_compare(DLTensor *in0, DLTensor *in1, DLTensor *out, DLTensor *host, const int8_t *expected) {
  memset(host->data, 0x55, (size_t)tensor_bytes(host));
  if (out != host) to_device(out, host->data);
  CALL_LAYER(LAYER(in0, in1, out));
  if (out != host) from_device(out, host->data);
  int64_t bytes = tensor_bytes(host), mismatches = 0, nonzero = 0;
  for (int64_t i = 0; i < bytes; ++i) {
    mismatches += ((int8_t *)host->data)[i] != expected[i];
    nonzero += expected[i] != 0;
  }
  printf("mismatches against vtac run: %lld of %lld bytes (%lld non-zero)\n", (long long)mismatches, (long long)bytes,
         (long long)nonzero);
  return mismatches;
}

/* The `inputs` or `compare` step; main frees the tensors after it (ASan's leak check runs
 * this program). */
static int run_step(const char *step, const char *dir, DLTensor *in0, DLTensor *in1, DLTensor *out) {
  char path[4096];
  if (strcmp(step, "inputs") == 0) {
    DLTensor *inputs[2] = {in0, in1};
    for (int i = 0; i < 2; ++i) {
      snprintf(path, sizeof path, "%s/in%d.npy", dir, i);
      if (write_npy(path, specs[i].bits == 8 ? "|i1" : "<i4", inputs[i]->data, (size_t)specs[i].bits / 8, specs[i].shape, specs[i].ndim) != 0) return 1;
    }
    printf("wrote 2 inputs\n");
    return 0;
  }
  int8_t *expected = malloc((size_t)tensor_bytes(out));
  snprintf(path, sizeof path, "%s/out.npy", dir);
  if (read_npy(path, expected, (size_t)tensor_bytes(out)) != 0) {
    printf("cannot read %s\n", path);
    free(expected);
    return 1;
  }
  int64_t mismatches = run_and_compare(in0, in1, out, out, expected);
  mismatches += run_and_compare(in0, in1, out, out, expected);
  printf("inputs as VTA buffers:\n");
  DLTensor vta0 = vta_copy(in0), vta1 = vta_copy(in1);
  mismatches += run_and_compare(&vta0, &vta1, out, out, expected);
  mismatches += run_and_compare(&vta0, &vta1, out, out, expected);
  printf("a host tensor and a VTA buffer:\n");
  mismatches += run_and_compare(in0, &vta1, out, out, expected);
  printf("the result as a VTA buffer:\n");
  DLTensor vta_out = vta_tensor(specs[2].shape, specs[2].ndim, specs[2].bits);
  mismatches += run_and_compare(in0, &vta1, &vta_out, out, expected);
  free(expected);

  printf("refused:\n");
  DLTensor host_handle = *in0; /* host memory claimed to be a VTA buffer */
  host_handle.device.device_type = kDLExtDev;
  CALL_LAYER(LAYER(&host_handle, in1, out));
  DLTensor offset = vta0;
  offset.byte_offset = 64;
  CALL_LAYER(LAYER(&offset, in1, out));
  DLTensor small = vta_tensor(specs[0].shape, 1, specs[0].bits); /* the first dimension's elements only */
  small.ndim = specs[0].ndim;
  CALL_LAYER(LAYER(&small, in1, out));
  VTABufferFree(small.data);
  DLTensor freed = vta_tensor(specs[0].shape, specs[0].ndim, specs[0].bits);
  VTABufferFree(freed.data);
  CALL_LAYER(LAYER(&freed, in1, out));
  DLTensor other_device = *in0;
  other_device.device.device_type = kDLCUDA;
  CALL_LAYER(LAYER(&other_device, in1, out));
  DLTensor freed_out = vta_tensor(specs[2].shape, specs[2].ndim, specs[2].bits);
  VTABufferFree(freed_out.data);
  CALL_LAYER(LAYER(in0, in1, &freed_out));
  VTABufferFree(vta_out.data);
  VTABufferFree(vta0.data);
  VTABufferFree(vta1.data);
  return mismatches != 0;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  DLTensor in0 = host_tensor(0), in1 = host_tensor(1), out = host_tensor(2);
  int status = run_step(argv[1], argv[2], &in0, &in1, &out);
  free(in0.data);
  free(in1.data);
  free(out.data);
  return status;
}
