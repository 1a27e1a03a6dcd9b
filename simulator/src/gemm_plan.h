// Regroups the micro-op executions of one GEMM instruction for register-blocked kernels.
//
// A GEMM instruction runs its micro-ops inside a two-level loop nest; each execution adds
// inp[src] . wgt[wgt]^T to acc[dst]. The products only read the input and weight SRAMs and only
// write the accumulator, and the additions wrap modulo 2^32, so the executions may run in any
// order with bit-identical results. buildGemmPlan lists every execution exactly once, ordered so
// that accumulator tiles that take products with the same weight tiles in the same order form
// blocks (a convolution's output pixels sharing a filter): a kernel keeps a block's accumulators
// in registers across all its steps and loads each weight tile once per block. Groups that
// read the same inputs with other weights (a convolution's output channel blocks) are paired
// block by block, so that a kernel can feed each input to two weight tiles. The plan
// depends only on the instruction's loop fields and micro-ops, so the simulator computes it
// once per distinct GEMM instruction and keeps it.
#ifndef VTA_SIM_GEMM_PLAN_H_
#define VTA_SIM_GEMM_PLAN_H_

#include <vector>

#include "gemm_kernel.h"

namespace vta::sim {

// `uops` run for y < iterOut, x < iterIn, shifted by y * factorOut + x * factorIn.
GemmPlan buildGemmPlan(const std::vector<GemmTile>& uops, uint32_t iterOut, uint32_t iterIn,
                       const GemmTile& factorOut, const GemmTile& factorIn);

}  // namespace vta::sim

#endif  // VTA_SIM_GEMM_PLAN_H_
