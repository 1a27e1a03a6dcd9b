/* C functions that the load_library tests call from prim_funcs with T.call_extern. */
#include <stdint.h>

/* y[i] += a * x[i]: float32 buffers by pointer, a float32 and an int32 scalar by value. */
int axpy(float *y, const float *x, float a, int32_t n) {
  for (int32_t i = 0; i < n; ++i) y[i] += a * x[i];
  return 0;
}

/* The sum of n int8 values, widened: an int64 result. */
int64_t sum_i8(const int8_t *x, int16_t n) {
  int64_t sum = 0;
  for (int16_t i = 0; i < n; ++i) sum += x[i];
  return sum;
}

/* x * scale as a double result from a double and a uint8 argument. */
double scaled(double x, uint8_t scale) { return x * scale; }
