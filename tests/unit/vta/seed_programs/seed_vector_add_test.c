/*
 * Seed 002's vector add on the ALU (C = int8(A + B), A and B 16x1024 int32 in 1x16 tiles), as
 * the C code of its lowered program (samples/vector_add_vta_lowered.tvm), checked in plain C:
 * output, and per call 131072 acc bytes loaded, 4 micro-op bytes, 16384 bytes stored, 1024 ALU
 * operations (the seed runs it 21 times: 21 times these counts).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vta/runtime.h>
#include <vta/sim.h>

#include "sim_stats.h"

enum { kTiles = 1024, kLanes = 16, kElements = kTiles * kLanes };

static void* add_handle = NULL;

static int add_uops(void* signature) {
  VTAUopLoopBegin(1024, 1, 1, 0);
  VTAUopPush(1, 0, 0, 1024, 0, 2, 0, 0);
  VTAUopLoopEnd();
  return 0;
}

static int vector_add(void* a, void* b, void* c) {
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTALoadBuffer2D(cmd, a, 0, 1024, 1, 1024, 0, 0, 0, 0, 0, 3);
  VTALoadBuffer2D(cmd, b, 0, 1024, 1, 1024, 0, 0, 0, 0, 1024, 3);
  const int status = VTAPushALUOp(&add_handle, add_uops, NULL, 0);
  VTADepPush(cmd, 2, 3);
  VTADepPop(cmd, 2, 3);
  VTAStoreBuffer2D(cmd, 0, 4, c, 0, 1024, 1, 1024);
  VTASynchronize(cmd, 1u << 31);
  return status;
}

static int failures = 0;

static void expect_stat(const char* name, long long expected) {
  const long long actual = vta_stat(VTASimStatsJSON(), name);
  if (actual != expected) {
    fprintf(stderr, "FAIL: %s = %lld, expected %lld\n", name, actual, expected);
    ++failures;
  }
}

int main(void) {
  int32_t* a = malloc(sizeof(int32_t) * kElements);
  int32_t* b = malloc(sizeof(int32_t) * kElements);
  int8_t* c = malloc(kElements);
  uint32_t state = 7u;
  for (int i = 0; i < kElements; ++i) {
    state = state * 1664525u + 1013904223u;
    a[i] = (int32_t)(state >> 8) - (1 << 23);
    state = state * 1664525u + 1013904223u;
    b[i] = (int32_t)(state >> 8) - (1 << 23);
  }
  void* a_buffer = VTABufferAlloc(sizeof(int32_t) * kElements);
  void* b_buffer = VTABufferAlloc(sizeof(int32_t) * kElements);
  void* c_buffer = VTABufferAlloc(kElements);
  VTABufferCopy(a, 0, a_buffer, 0, sizeof(int32_t) * kElements, VTA_MEMCPY_H2D);
  VTABufferCopy(b, 0, b_buffer, 0, sizeof(int32_t) * kElements, VTA_MEMCPY_H2D);

  const int calls = 21;
  VTASimClearStats();
  for (int call = 0; call < calls; ++call)
    if (vector_add(a_buffer, b_buffer, c_buffer) != 0) ++failures;
  expect_stat("acc_load_nbytes", 131072LL * calls);
  expect_stat("uop_load_nbytes", 4LL * calls);
  expect_stat("out_store_nbytes", 16384LL * calls);
  expect_stat("alu_counter", 1024LL * calls);
  expect_stat("inp_load_nbytes", 0);
  expect_stat("wgt_load_nbytes", 0);
  expect_stat("gemm_counter", 0);

  VTABufferCopy(c_buffer, 0, c, 0, kElements, VTA_MEMCPY_D2H);
  int mismatches = 0;
  for (int i = 0; i < kElements; ++i)
    mismatches += c[i] != (int8_t)(uint32_t)((uint32_t)a[i] + (uint32_t)b[i]);
  if (mismatches) {
    fprintf(stderr, "FAIL: %d of %d sums differ\n", mismatches, kElements);
    ++failures;
  }
  if (VTARuntimeErrorCount() != 0 || *VTASimLastError()) {
    fprintf(stderr, "FAIL: errors: runtime '%s', simulator '%s'\n", VTARuntimeLastError(),
            VTASimLastError());
    ++failures;
  }
  VTABufferFree(a_buffer), VTABufferFree(b_buffer), VTABufferFree(c_buffer);
  VTARuntimeShutdown();
  free(a), free(b), free(c);
  if (failures == 0) printf("seed vector add: output and statistics match seed 002\n");
  return failures == 0 ? 0 : 1;
}
