/*
 * The lowered program of seed 001, statement by statement (see seed_conv2d.h). Each
 * `coproc_uop_scope` body becomes a closure `int f(void* signature)` whose signature packs the
 * variables it uses (here `cthread_s`), registered under its own static handle, as TVM emits it.
 */
#include "seed_conv2d.h"

#include <stdint.h>
#include <vta/runtime.h>

typedef struct {
  int32_t cthread_s;
} captured_cthread;

static void* gemm_reset_handle = NULL;
static void* gemm_handle = NULL;
static void* alu_shr_handle = NULL;
static void* alu_max_handle = NULL;
static void* alu_min_handle = NULL;

static int gemm_reset_uops(void* signature) {
  const int32_t cthread_s = ((const captured_cthread*)signature)->cthread_s;
  VTAUopLoopBegin(8, 98, 0, 0);
  VTAUopLoopBegin(7, 14, 0, 0);
  for (int32_t j_init = 0; j_init < 14; ++j_init)
    VTAUopPush(0, 1, cthread_s * 784 + j_init, 0, 0, 0, 0, 0);
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  return 0;
}

static int gemm_uops(void* signature) {
  const int32_t cthread_s = ((const captured_cthread*)signature)->cthread_s;
  VTAUopLoopBegin(8, 98, 0, 9);
  VTAUopLoopBegin(7, 14, 16, 0);
  for (int32_t dy = 0; dy < 3; ++dy)
    for (int32_t dx = 0; dx < 3; ++dx)
      for (int32_t j = 0; j < 14; ++j)
        VTAUopPush(0, 0, cthread_s * 784 + j, cthread_s * 144 + dy * 16 + j + dx,
                   cthread_s * 72 + dy * 3 + dx, 0, 0, 0);
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  return 0;
}

/* One ALU micro-op with an immediate over the 784 accumulator tiles of a virtual thread. */
static void alu_imm_uops(int32_t cthread_s, uint32_t alu_opcode, int32_t imm) {
  VTAUopLoopBegin(784, 1, 1, 0);
  VTAUopPush(1, 0, cthread_s * 784, cthread_s * 784, 0, alu_opcode, 1, imm);
  VTAUopLoopEnd();
}

static int alu_shr_uops(void* signature) {
  alu_imm_uops(((const captured_cthread*)signature)->cthread_s, 3, 8);
  return 0;
}

static int alu_max_uops(void* signature) {
  alu_imm_uops(((const captured_cthread*)signature)->cthread_s, 1, 0);
  return 0;
}

static int alu_min_uops(void* signature) {
  alu_imm_uops(((const captured_cthread*)signature)->cthread_s, 0, 127);
  return 0;
}

static int32_t max_i32(int32_t a, int32_t b) { return a > b ? a : b; }

int vta_seed_conv2d(void* data, void* kernel, void* res) {
  VTACommandHandle cmd = VTATLSCommandHandle();
  int status = 0;
  VTADepPush(cmd, 3, 2);
  VTADepPush(cmd, 3, 2);
  for (int32_t i2_outer = 0; i2_outer < 2; ++i2_outer) {
    for (int32_t cthread_s = 0; cthread_s < 2; ++cthread_s) {
      captured_cthread closure = {cthread_s};
      VTADepPop(cmd, 3, 2);
      status |= VTAPushGEMMOp(&gemm_reset_handle, gemm_reset_uops, &closure, sizeof closure);
      VTADepPush(cmd, 2, 1);
    }
    for (int32_t ic_outer = 0; ic_outer < 16; ++ic_outer) {
      const int32_t cse_var_6 = i2_outer * 7;
      const int32_t cse_var_5 = ic_outer * 9;
      const int32_t cse_var_4 = max_i32(1 - cse_var_6, 0);
      const int32_t cse_var_3 = max_i32(cse_var_6 - 6, 0);
      const int32_t cse_var_2 = 9 - cse_var_4 - cse_var_3;
      const int32_t cse_var_1 = ic_outer * 196 + i2_outer * 98 + cse_var_4 * 14 - 14;
      VTADepPop(cmd, 2, 1);
      VTALoadBuffer2D(cmd, data, cse_var_1, 14, cse_var_2, 14, 1, cse_var_4, 1, cse_var_3, 0, 2);
      VTALoadBuffer2D(cmd, kernel, cse_var_5, 9, 8, 144, 0, 0, 0, 0, 0, 1);
      VTADepPush(cmd, 1, 2);
      VTADepPop(cmd, 2, 1);
      VTALoadBuffer2D(cmd, data, cse_var_1, 14, cse_var_2, 14, 1, cse_var_4, 1, cse_var_3, 144, 2);
      VTALoadBuffer2D(cmd, kernel, cse_var_5 + 1152, 9, 8, 144, 0, 0, 0, 0, 72, 1);
      VTADepPush(cmd, 1, 2);
      for (int32_t cthread_s = 0; cthread_s < 2; ++cthread_s) {
        captured_cthread closure = {cthread_s};
        VTADepPop(cmd, 1, 2);
        status |= VTAPushGEMMOp(&gemm_handle, gemm_uops, &closure, sizeof closure);
        VTADepPush(cmd, 2, 1);
      }
    }
    VTADepPop(cmd, 2, 1);
    VTADepPop(cmd, 2, 1);
    for (int32_t cthread_s = 0; cthread_s < 2; ++cthread_s) {
      captured_cthread closure = {cthread_s};
      status |= VTAPushALUOp(&alu_shr_handle, alu_shr_uops, &closure, sizeof closure);
      status |= VTAPushALUOp(&alu_max_handle, alu_max_uops, &closure, sizeof closure);
      status |= VTAPushALUOp(&alu_min_handle, alu_min_uops, &closure, sizeof closure);
      VTADepPush(cmd, 2, 3);
    }
    for (int32_t cthread_s = 0; cthread_s < 2; ++cthread_s) {
      VTADepPop(cmd, 2, 3);
      for (int32_t i1_inner = 0; i1_inner < 8; ++i1_inner)
        for (int32_t i2_inner = 0; i2_inner < 7; ++i2_inner)
          for (int32_t i3_inner = 0; i3_inner < 14; ++i3_inner) {
            const int32_t cse_var_8 = i2_inner * 14;
            VTAStoreBuffer2D(cmd, cthread_s * 784 + i1_inner * 98 + cse_var_8 + i3_inner, 4, res,
                             cthread_s * 1568 + i1_inner * 196 + i2_outer * 98 + cse_var_8 + i3_inner,
                             1, 1, 1);
          }
      VTADepPush(cmd, 3, 2);
    }
  }
  VTADepPop(cmd, 3, 2);
  VTADepPop(cmd, 3, 2);
  VTASynchronize(cmd, 1u << 31);
  return status == 0 ? 0 : -1;
}
