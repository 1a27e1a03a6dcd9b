/*
 * Benchmark of the VTA simulator on seed 001's conv2d (tests/unit/vta/seed_programs): runs the
 * lowered program repeatedly and reports milliseconds per run, simulated GEMM multiply-
 * accumulates per second and micro-ops executed per second, once per GEMM kernel the CPU
 * supports (AVX-512 VNNI, AVX2, portable), checking that all produce the same output, and
 * printing a checksum of the output to compare simulators. Rates are per second of CPU time.
 *
 * Only the runtime API is required: the simulator's own functions are weak, so the same source
 * links against another simulator behind the driver API (e.g. TVM's) and then reports the
 * single kernel that simulator has.
 *
 * Usage: vta_conv2d_bench [runs] [kernel]   (default 20 runs, every kernel; a kernel name
 * such as avx512vnni times that one alone, e.g. under a profiler)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vta/runtime.h>
#include <vta/sim.h>

#include "seed_conv2d.h"
#include "sim_stats.h"

#pragma weak VTASimStatsJSON
#pragma weak VTASimClearStats
#pragma weak VTASimSetGemmKernel
#pragma weak VTASimGemmKernel
#pragma weak VTASimClearError

enum { kDataBytes = 16 * 14 * 14 * 16, kKernelBytes = 16 * 16 * 3 * 3 * 16 * 16 };
/* Per run of the seed program (seed 001's table); a GEMM micro-op is a 1x16 by 16x16 product
 * in the default configuration the program is written for. */
enum { kGemmUopsPerRun = 451584, kAluUopsPerRun = 9408, kMacsPerGemmUop = 16 * 16 };

/* CPU time of this thread (the simulator runs on the calling thread): on a shared machine it
 * is less disturbed by other processes than wall time, which is reported too. */
static double seconds_of(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int8_t* run_and_time(const char* label, int runs, void* data, void* kernel, void* res) {
  if (VTASimClearStats) VTASimClearStats();
  vta_seed_conv2d(data, kernel, res); /* warm-up: first-call recording of micro-kernels */
  const double cpu_start = seconds_of(CLOCK_THREAD_CPUTIME_ID);
  const double wall_start = seconds_of(CLOCK_MONOTONIC);
  for (int i = 0; i < runs; ++i) vta_seed_conv2d(data, kernel, res);
  const double seconds = (seconds_of(CLOCK_THREAD_CPUTIME_ID) - cpu_start) / runs;
  const double wall_seconds = (seconds_of(CLOCK_MONOTONIC) - wall_start) / runs;
  if (VTASimStatsJSON) {
    const long long gemm = vta_stat(VTASimStatsJSON(), "gemm_counter");
    if (gemm != (long long)kGemmUopsPerRun * (runs + 1))
      fprintf(stderr, "warning: gemm_counter %lld, expected %lld\n", gemm,
              (long long)kGemmUopsPerRun * (runs + 1));
  }
  printf("%-12s runs=%d cpu_ms_per_run=%.3f wall_ms_per_run=%.3f gemm_macs_per_s=%.3e "
         "uops_per_s=%.3e\n",
         label, runs, seconds * 1e3, wall_seconds * 1e3,
         (double)kGemmUopsPerRun * kMacsPerGemmUop / seconds,
         (double)(kGemmUopsPerRun + kAluUopsPerRun) / seconds);
  int8_t* output = malloc(kDataBytes);
  VTABufferCopy(res, 0, output, 0, kDataBytes, VTA_MEMCPY_D2H);
  uint32_t checksum = 2166136261u; /* FNV-1a */
  for (int i = 0; i < kDataBytes; ++i) checksum = (checksum ^ (uint8_t)output[i]) * 16777619u;
  printf("%-12s output_checksum=%08x\n", label, checksum);
  return output;
}

int main(int argc, char** argv) {
  const int runs = argc > 1 ? atoi(argv[1]) : 20;
  const char* only_kernel = argc > 2 ? argv[2] : NULL;
  int8_t* host_data = malloc(kDataBytes);
  int8_t* host_kernel = malloc(kKernelBytes);
  uint32_t state = 1;
  for (int i = 0; i < kDataBytes; ++i) host_data[i] = (int8_t)((state = state * 1664525u + 1013904223u) >> 24);
  for (int i = 0; i < kKernelBytes; ++i) host_kernel[i] = (int8_t)((state = state * 1664525u + 1013904223u) >> 24);
  void* data = VTABufferAlloc(kDataBytes);
  void* kernel = VTABufferAlloc(kKernelBytes);
  void* res = VTABufferAlloc(kDataBytes);
  VTABufferCopy(host_data, 0, data, 0, kDataBytes, VTA_MEMCPY_H2D);
  VTABufferCopy(host_kernel, 0, kernel, 0, kKernelBytes, VTA_MEMCPY_H2D);

  int status = 0;
  if (VTASimSetGemmKernel && VTASimGemmKernel) {
    /* Every kernel this CPU supports, the portable one last; all must agree. */
    const char* kernels[] = {"avx512vnni", "avx2", "portable"};
    int8_t* first = NULL;
    for (int k = 0; k < 3; ++k) {
      if (only_kernel && strcmp(only_kernel, kernels[k]) != 0) continue;
      if (VTASimSetGemmKernel(kernels[k]) != 0) continue; /* not supported here */
      int8_t* output = run_and_time(VTASimGemmKernel(), runs, data, kernel, res);
      if (!first) {
        first = output;
        continue;
      }
      if (memcmp(first, output, kDataBytes) != 0) {
        fprintf(stderr, "error: the %s kernel disagrees with the first one\n", kernels[k]);
        status = 1;
      }
      free(output);
    }
    free(first);
    VTASimSetGemmKernel("auto");
    if (VTASimClearError) VTASimClearError(); /* unsupported kernels were reported */
  } else {
    free(run_and_time("simulator", runs, data, kernel, res));
  }
  if (VTASimStatsJSON) printf("statistics of the last %d runs:\n%s", runs + 1, VTASimStatsJSON());
  VTABufferFree(data), VTABufferFree(kernel), VTABufferFree(res);
  VTARuntimeShutdown();
  free(host_data), free(host_kernel);
  return status;
}
