/*
 * vtac function registry: the C analog of tvm.register_func.
 *
 * A graph function calls runtime functions by name (`R.call_dps_packed("env.relu", ...)`).
 * Whoever provides such a function — vtac's built-ins, or a user's shared library loaded with
 * `vtac run --load-library lib.so` — registers it here under that name; the graph executor
 * looks it up and calls it in destination-passing style: the inputs first, then the output
 * tensor(s) the executor allocated.
 *
 * A tensor is described by a DLTensor-like view (data pointer, dtype, shape; dense, row-major,
 * on the host). The library is plain C, knows nothing of the IR and keeps one process-wide
 * table guarded by a mutex.
 *
 * No C++ exception leaves these functions: out of memory (or another failure inside) makes one
 * return its failure value (-1, or NULL) with the reason in vtac_get_last_error.
 *
 * A shared library registers its functions when it is loaded, either from a constructor or
 * from an exported `int vtac_library_init(void)` that the loader calls (return 0 on success).
 */
#ifndef VTAC_FUNC_REGISTRY_H_
#define VTAC_FUNC_REGISTRY_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element type, laid out as DLPack's DLDataType: code, bits, lanes. */
typedef enum {
  VTAC_DTYPE_INT = 0,
  VTAC_DTYPE_UINT = 1,
  VTAC_DTYPE_FLOAT = 2,
  VTAC_DTYPE_BOOL = 6,
} vtac_dtype_code;

typedef struct {
  uint8_t code; /* a vtac_dtype_code */
  uint8_t bits;
  uint16_t lanes;
} vtac_dtype;

/* A dense row-major host tensor; the memory belongs to the caller. */
typedef struct {
  void *data;
  vtac_dtype dtype;
  int32_t ndim;
  const int64_t *shape;
} vtac_tensor;

/* A registered function: `args[0..num_args)` are the inputs followed by the outputs. Returns 0
 * on success; on failure returns non-zero after describing the problem with
 * vtac_set_last_error. `resource` is the pointer given at registration. */
typedef int (*vtac_packed_func)(const vtac_tensor *args, int32_t num_args, void *resource);

/* Registers `fn` under `name`. With override == 0 an existing name is an error (returns -1,
 * message in vtac_get_last_error); otherwise the new function replaces it. */
int vtac_register_func(const char *name, vtac_packed_func fn, void *resource, int override);

/* Looks `name` up: returns 0 and fills `fn` / `resource` (either may be NULL), or -1. */
int vtac_get_func(const char *name, vtac_packed_func *fn, void **resource);

/* Removes `name`; returns 0, or -1 when it was not registered. */
int vtac_remove_func(const char *name);

/* Number of registered functions, and the name of the i-th in sorted order (NULL when out of
 * range; valid until the registry next changes). */
int32_t vtac_num_funcs(void);
const char *vtac_func_name(int32_t index);

/* The calling thread's last error message ("" when none). Functions report failures with
 * vtac_set_last_error, which copies `message`. */
const char *vtac_get_last_error(void);
void vtac_set_last_error(const char *message);

/* Element count and byte size of a tensor view. */
int64_t vtac_tensor_num_elements(const vtac_tensor *tensor);
int64_t vtac_tensor_num_bytes(const vtac_tensor *tensor);

#ifdef __cplusplus
}
#endif

#endif /* VTAC_FUNC_REGISTRY_H_ */
