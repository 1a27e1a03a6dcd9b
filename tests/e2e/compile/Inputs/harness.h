/*
 * What the compiled-layer test programs share: DLTensors over VTA buffers (as TVM passes
 * them: data is a VTABufferAlloc handle), deterministic data, the simulator's statistics.
 * Plain C99 against vta/runtime.h, vta/sim.h and dlpack.h only.
 */
#ifndef VTAC_TEST_HARNESS_H_
#define VTAC_TEST_HARNESS_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <dlpack/dlpack.h>
#include <vta/runtime.h>
#include <vta/sim.h>

/* A compact tensor of shape[0..ndim) over `data`. */
static inline DLTensor make_tensor(void *data, int64_t *shape, int ndim, uint8_t code, int bits,
                                   DLDeviceType device) {
  DLTensor t;
  t.data = data;
  t.device.device_type = device;
  t.device.device_id = 0;
  t.ndim = ndim;
  t.dtype.code = code;
  t.dtype.bits = (uint8_t)bits;
  t.dtype.lanes = 1;
  t.shape = shape;
  t.strides = NULL;
  t.byte_offset = 0;
  return t;
}

/* A compact tensor of `bits`-bit signed integers whose data is a new VTA buffer. */
static inline DLTensor vta_tensor(int64_t *shape, int ndim, int bits) {
  int64_t count = 1;
  for (int i = 0; i < ndim; ++i) count *= shape[i];
  return make_tensor(VTABufferAlloc((size_t)(count * bits / 8)), shape, ndim, kDLInt, bits, kDLExtDev);
}

static inline int64_t tensor_bytes(const DLTensor *t) {
  int64_t count = 1;
  for (int i = 0; i < t->ndim; ++i) count *= t->shape[i];
  return count * t->dtype.bits / 8;
}

/* Values in [-range/2, range/2) from a 64-bit LCG (the same sequence on every machine). */
static inline void fill(void *host, int64_t count, int bits, uint64_t seed, int range) {
  uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int64_t i = 0; i < count; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    int value = (int)((state >> 33) % (uint64_t)range) - range / 2;
    if (bits == 8) ((int8_t *)host)[i] = (int8_t)value;
    else ((int32_t *)host)[i] = value;
  }
}

static inline void to_device(DLTensor *t, const void *host) {
  VTABufferCopy(host, 0, t->data, 0, (size_t)tensor_bytes(t), VTA_MEMCPY_H2D);
}

static inline void from_device(const DLTensor *t, void *host) {
  VTABufferCopy(t->data, 0, host, 0, (size_t)tensor_bytes(t), VTA_MEMCPY_D2H);
}

/* Calls the layer; prints its status and, on failure, the runtime's message. */
#define CALL_LAYER(call)                                                                    \
  do {                                                                                      \
    int32_t status_ = (call);                                                               \
    printf("%s returned %d\n", #call, (int)status_);                                        \
    if (status_ != 0) printf("message: %s\n", VTARuntimeLastError());                       \
  } while (0)

/* Writes a C-order array of `count` elements of `element_bytes` each as a .npy file (format
 * 1.0) whose dtype is `descr` ('<f4', '|i1', '<i4'); returns 0 on success. */
static inline int write_npy(const char *path, const char *descr, const void *data, size_t element_bytes,
                            const int64_t *shape, int ndim) {
  char header[128];
  int64_t count = 1;
  int used = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int i = 0; i < ndim; ++i) {
    used += snprintf(header + used, sizeof header - (size_t)used, "%lld,%s", (long long)shape[i], i + 1 < ndim ? " " : "");
    count *= shape[i];
  }
  used += snprintf(header + used, sizeof header - (size_t)used, "), }");
  while ((10 + used + 1) % 64 != 0) header[used++] = ' ';
  header[used++] = '\n';
  FILE *file = fopen(path, "wb");
  if (!file) return -1;
  unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(used & 0xff), (unsigned char)(used >> 8)};
  int ok = fwrite(preamble, 1, 10, file) == 10 && fwrite(header, 1, (size_t)used, file) == (size_t)used &&
           fwrite(data, element_bytes, (size_t)count, file) == (size_t)count;
  return fclose(file) == 0 && ok ? 0 : -1;
}

/* Reads the first `bytes` bytes of the data of a .npy file (format 1.0); returns 0 on success. */
static inline int read_npy(const char *path, void *data, size_t bytes) {
  unsigned char preamble[10];
  FILE *file = fopen(path, "rb");
  if (!file) return -1;
  int ok = fread(preamble, 1, 10, file) == 10 && preamble[0] == 0x93 && preamble[6] == 1 &&
           fseek(file, 10 + preamble[8] + 256 * preamble[9], SEEK_SET) == 0 && fread(data, 1, bytes, file) == bytes;
  fclose(file);
  return ok ? 0 : -1;
}

static inline int write_npy_f32(const char *path, const float *data, const int64_t *shape, int ndim) {
  return write_npy(path, "<f4", data, sizeof(float), shape, ndim);
}

/* Reads the `count` float32 values of a .npy file ('<f4'); returns 0 on success. */
static inline int read_npy_f32(const char *path, float *data, int64_t count) {
  return read_npy(path, data, (size_t)count * sizeof(float));
}

static inline void print_stats(void) { printf("stats: %s\n", VTASimStatsJSON()); }

#endif
