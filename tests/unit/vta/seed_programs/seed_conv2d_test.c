/*
 * Runs seed 001's lowered conv2d (seed_conv2d.c) on random data and checks, in plain C with
 * nothing but libvta_runtime and libvta_sim:
 *  - the output equals a direct conv2d (shift right 8, clip to [0, 127]),
 *  - the simulator statistics equal the seed's table exactly, and are per call (two calls
 *    report twice the counts).
 * Exit status 0 on success; each failure is printed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vta/runtime.h>
#include <vta/sim.h>

#include "seed_conv2d.h"
#include "sim_stats.h"

enum { kChannelBlocks = 16, kBlock = 16, kHeight = 14, kWidth = 14, kKernel = 3 };
enum {
  kDataBytes = kChannelBlocks * kHeight * kWidth * kBlock,
  kKernelBytes = kChannelBlocks * kChannelBlocks * kKernel * kKernel * kBlock * kBlock,
};

static uint32_t lcg_state = 12345u;
static int8_t random_int8(void) {
  lcg_state = lcg_state * 1664525u + 1013904223u;
  return (int8_t)(lcg_state >> 24);
}

/* res[oc][h][w][oci] of the NCHWnc layouts, computed directly. */
static void reference_conv2d(const int8_t* data, const int8_t* kernel, int8_t* res) {
  for (int oc = 0; oc < kChannelBlocks; ++oc)
    for (int h = 0; h < kHeight; ++h)
      for (int w = 0; w < kWidth; ++w)
        for (int oci = 0; oci < kBlock; ++oci) {
          int32_t sum = 0;
          for (int ic = 0; ic < kChannelBlocks; ++ic)
            for (int dy = 0; dy < kKernel; ++dy)
              for (int dx = 0; dx < kKernel; ++dx) {
                const int y = h + dy - 1, x = w + dx - 1;
                if (y < 0 || y >= kHeight || x < 0 || x >= kWidth) continue;
                for (int ici = 0; ici < kBlock; ++ici)
                  sum += data[((ic * kHeight + y) * kWidth + x) * kBlock + ici] *
                         kernel[((((oc * kChannelBlocks + ic) * kKernel + dy) * kKernel + dx) *
                                     kBlock + oci) * kBlock + ici];
              }
          int32_t value = sum >> 8;
          value = value < 0 ? 0 : value > 127 ? 127 : value;
          res[((oc * kHeight + h) * kWidth + w) * kBlock + oci] = (int8_t)value;
        }
}

static int failures = 0;

static void expect_stat(const char* json, const char* name, long long expected) {
  const long long actual = vta_stat(json, name);
  if (actual != expected) {
    fprintf(stderr, "FAIL: %s = %lld, expected %lld\n", name, actual, expected);
    ++failures;
  }
}

/* Seed 001's table, `calls` times. */
static void expect_seed_stats(long long calls) {
  const char* json = VTASimStatsJSON();
  expect_stat(json, "inp_load_nbytes", 114688 * calls);
  expect_stat(json, "wgt_load_nbytes", 1179648 * calls);
  expect_stat(json, "acc_load_nbytes", 0);
  expect_stat(json, "uop_load_nbytes", 1144 * calls);
  expect_stat(json, "out_store_nbytes", 50176 * calls);
  expect_stat(json, "gemm_counter", 451584 * calls);
  expect_stat(json, "alu_counter", 9408 * calls);
}

int main(void) {
  int8_t* data = malloc(kDataBytes);
  int8_t* kernel = malloc(kKernelBytes);
  int8_t* expected = malloc(kDataBytes);
  int8_t* actual = malloc(kDataBytes);
  for (int i = 0; i < kDataBytes; ++i) data[i] = random_int8();
  for (int i = 0; i < kKernelBytes; ++i) kernel[i] = random_int8();
  reference_conv2d(data, kernel, expected);

  void* data_buffer = VTABufferAlloc(kDataBytes);
  void* kernel_buffer = VTABufferAlloc(kKernelBytes);
  void* res_buffer = VTABufferAlloc(kDataBytes);
  VTABufferCopy(data, 0, data_buffer, 0, kDataBytes, VTA_MEMCPY_H2D);
  VTABufferCopy(kernel, 0, kernel_buffer, 0, kKernelBytes, VTA_MEMCPY_H2D);

  VTASimClearStats();
  if (vta_seed_conv2d(data_buffer, kernel_buffer, res_buffer) != 0) {
    fprintf(stderr, "FAIL: the runtime rejected the program: %s\n", VTARuntimeLastError());
    ++failures;
  }
  expect_seed_stats(1);
  VTABufferCopy(res_buffer, 0, actual, 0, kDataBytes, VTA_MEMCPY_D2H);
  int mismatches = 0;
  for (int i = 0; i < kDataBytes; ++i) mismatches += actual[i] != expected[i];
  if (mismatches) {
    fprintf(stderr, "FAIL: %d of %d outputs differ from the direct conv2d\n", mismatches, kDataBytes);
    ++failures;
  }

  /* Every call reloads its micro-kernels: a second call doubles every counter. */
  vta_seed_conv2d(data_buffer, kernel_buffer, res_buffer);
  expect_seed_stats(2);
  if (VTARuntimeErrorCount() != 0) {
    fprintf(stderr, "FAIL: runtime errors: %s\n", VTARuntimeLastError());
    ++failures;
  }
  if (*VTASimLastError()) {
    fprintf(stderr, "FAIL: simulator error: %s\n", VTASimLastError());
    ++failures;
  }

  VTABufferFree(data_buffer);
  VTABufferFree(kernel_buffer);
  VTABufferFree(res_buffer);
  VTARuntimeShutdown();
  free(data), free(kernel), free(expected), free(actual);
  if (failures == 0) printf("seed conv2d: output and statistics match seed 001\n%s", VTASimStatsJSON());
  return failures == 0 ? 0 : 1;
}
