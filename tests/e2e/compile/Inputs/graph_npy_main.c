/*
 * A compiled Relax graph LAYER of NUM_INPUTS tensor parameters and NUM_RESULTS results, run on
 * .npy files (host tensors):
 *
 *   graph_npy_main INPUT.npy... EXPECTED.npy...
 *
 * reads the inputs (float32, int32, int8, uint8 or bool), calls LAYER with result tensors of the
 * expected files' shapes and dtypes, prints its status and compares each result with its
 * expected file (what `vtac run` computed from the same inputs): floats within 1e-5 relative,
 * other types exactly. Exits non-zero on any failure or mismatch.
 */
#include <math.h>
#include <string.h>

#include "harness.h"

#define TENSORS (NUM_INPUTS + NUM_RESULTS)
enum { MAX_DIMS = 8 };

#if TENSORS == 2
int32_t LAYER(DLTensor *, DLTensor *);
#define CALL(t) LAYER(&t[0], &t[1])
#elif TENSORS == 3
int32_t LAYER(DLTensor *, DLTensor *, DLTensor *);
#define CALL(t) LAYER(&t[0], &t[1], &t[2])
#elif TENSORS == 4
int32_t LAYER(DLTensor *, DLTensor *, DLTensor *, DLTensor *);
#define CALL(t) LAYER(&t[0], &t[1], &t[2], &t[3])
#elif TENSORS == 5
int32_t LAYER(DLTensor *, DLTensor *, DLTensor *, DLTensor *, DLTensor *);
#define CALL(t) LAYER(&t[0], &t[1], &t[2], &t[3], &t[4])
#elif TENSORS == 6
int32_t LAYER(DLTensor *, DLTensor *, DLTensor *, DLTensor *, DLTensor *, DLTensor *);
#define CALL(t) LAYER(&t[0], &t[1], &t[2], &t[3], &t[4], &t[5])
#else
#error "NUM_INPUTS + NUM_RESULTS must be 2 to 6"
#endif

/* One .npy file: its dtype as DLPack describes it (bool: kDLUInt of 1 bit, a byte each), shape
 * and data. */
struct Array {
  uint8_t code;
  int bits;
  int64_t shape[MAX_DIMS];
  int ndim;
  int64_t count, element_bytes;
  void *data;
};

/* Reads a C-order .npy file (format 1.0); returns 0 on success. */
static int load(const char *path, struct Array *array) {
  unsigned char preamble[10];
  char header[1024];
  FILE *file = fopen(path, "rb");
  if (!file) return -1;
  size_t length = 0;
  int ok = fread(preamble, 1, 10, file) == 10 && preamble[0] == 0x93 && preamble[6] == 1 &&
           (length = preamble[8] + 256u * preamble[9]) < sizeof header && fread(header, 1, length, file) == length;
  header[ok ? length : 0] = '\0';
  const char *descr = strstr(header, "'descr': '"), *shape = strstr(header, "'shape': (");
  ok = ok && descr && shape && !strstr(header, "'fortran_order': True");
  if (ok) {
    descr += strlen("'descr': '");
    static const struct { const char *descr; uint8_t code; int bits, bytes; } types[] = {
        {"<f4'", kDLFloat, 32, 4}, {"<i4'", kDLInt, 32, 4}, {"|i1'", kDLInt, 8, 1}, {"|u1'", kDLUInt, 8, 1}, {"|b1'", kDLUInt, 1, 1}};
    ok = 0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
      if (strncmp(descr, types[i].descr, strlen(types[i].descr)) == 0) {
        array->code = types[i].code, array->bits = types[i].bits, array->element_bytes = types[i].bytes;
        ok = 1;
      }
  }
  array->ndim = 0;
  array->count = 1;
  for (const char *p = ok ? shape + strlen("'shape': (") : ")"; *p != ')' && ok;) {
    char *end;
    long long dim = strtoll(p, &end, 10);
    ok = end != p && array->ndim < MAX_DIMS;
    if (!ok) break;
    array->shape[array->ndim++] = dim;
    array->count *= dim;
    p = end;
    while (*p == ',' || *p == ' ') ++p;
  }
  array->data = ok ? malloc((size_t)(array->count * array->element_bytes) + 1) : NULL;
  ok = ok && array->data && fread(array->data, (size_t)array->element_bytes, (size_t)array->count, file) == (size_t)array->count;
  fclose(file);
  return ok ? 0 : -1;
}

/* Frees what main allocated: the first `loaded` files' data and the results'. */
static int release(struct Array *arrays, int loaded, struct Array *results, int status) {
  for (int i = 0; i < loaded; ++i) {
    free(arrays[i].data);
    if (i >= NUM_INPUTS) free(results[i - NUM_INPUTS].data);
  }
  return status;
}

int main(int argc, char **argv) {
  if (argc != 1 + TENSORS) return 2;
  struct Array arrays[TENSORS], results[NUM_RESULTS];
  DLTensor tensors[TENSORS];
  for (int i = 0; i < TENSORS; ++i) {
    if (load(argv[1 + i], &arrays[i]) != 0) {
      printf("cannot read %s\n", argv[1 + i]);
      return release(arrays, i, results, 1);
    }
    void *data = arrays[i].data;
    if (i >= NUM_INPUTS) {  /* a result: fresh memory of the expected file's shape, poisoned */
      results[i - NUM_INPUTS] = arrays[i];
      data = malloc((size_t)(arrays[i].count * arrays[i].element_bytes) + 1);
      memset(data, 0x5a, (size_t)(arrays[i].count * arrays[i].element_bytes));
      results[i - NUM_INPUTS].data = data;
    }
    tensors[i] = make_tensor(data, arrays[i].shape, arrays[i].ndim, arrays[i].code, arrays[i].bits, kDLCPU);
  }
  int32_t status = CALL(tensors);
  printf("LAYER returned %d\n", (int)status);
  if (status != 0) {
    printf("message: %s\n", VTARuntimeLastError());
    return release(arrays, TENSORS, results, 1);
  }
  int mismatches = 0;
  for (int r = 0; r < NUM_RESULTS; ++r) {
    const struct Array *expected = &arrays[NUM_INPUTS + r], *actual = &results[r];
    int differ = 0;
    for (int64_t i = 0; i < expected->count; ++i)
      if (expected->code == kDLFloat) {
        float e = ((const float *)expected->data)[i], a = ((const float *)actual->data)[i];
        differ += !(fabsf(a - e) <= 1e-5f * (1.0f + fabsf(e)));
      } else {
        differ += memcmp((const char *)expected->data + i * expected->element_bytes,
                         (const char *)actual->data + i * expected->element_bytes, (size_t)expected->element_bytes) != 0;
      }
    printf("result %d: %d of %lld elements differ from vtac run's\n", r, differ, (long long)expected->count);
    mismatches += differ;
  }
  return release(arrays, TENSORS, results, mismatches != 0);
}
