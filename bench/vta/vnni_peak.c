/*
 * The int8 peak of one core of this machine, measured: 16 independent chains of AVX-512 VNNI
 * vpdpbusd (64 int8 multiply-accumulates each) on registers, no memory traffic. This is the
 * ceiling for the simulator's GEMM kernel; bench/RESULTS.md relates the conv2d time to it and
 * to the figure computed from the clock in /proc/cpuinfo.
 *
 * Usage: vta_vnni_peak   (prints MAC/s of CPU time; exit 0, or 1 if the CPU lacks VNNI)
 */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Named registers, not an array: an array of accumulators ends up in memory. */
#define EACH_CHAIN(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
enum { kChains = 16, kMacsPerInstruction = 64 };

__attribute__((target("avx512f,avx512vnni"))) static double measure(long iterations, int* sink) {
#define DECLARE(i) __m512i chain##i = _mm512_set1_epi32(i);
  EACH_CHAIN(DECLARE)
  __m512i x = _mm512_set1_epi8(1), w = _mm512_set1_epi8(3);
  __asm__("" : "+v"(x), "+v"(w)); /* not constants the compiler could fold */
  const double start = cpu_seconds();
  for (long k = 0; k < iterations; ++k) {
#define STEP(i) chain##i = _mm512_dpbusd_epi32(chain##i, x, w);
    EACH_CHAIN(STEP)
  }
  const double seconds = cpu_seconds() - start;
  __m512i sum = _mm512_setzero_si512();
#define ADD(i) sum = _mm512_add_epi32(sum, chain##i);
  EACH_CHAIN(ADD)
  *sink = _mm512_reduce_add_epi32(sum);
  return (double)iterations * kChains * kMacsPerInstruction / seconds;
}

int main(void) {
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512vnni")) {
    printf("vnni_peak: this CPU has no AVX-512 VNNI\n");
    return 1;
  }
  int sink = 0;
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    const double rate = measure(20000000, &sink);
    if (rate > best) best = rate;
  }
  printf("vnni_peak int8_macs_per_s=%.3e (best of 3; %d)\n", best, sink & 1);
  return 0;
}
