#include "vta/Pipeline.h"

namespace vtac::passes {

// TVM's VTA build_config (phases 1-3 of vta.lower) after tir-lower: a scheduled TensorIR function
// (blocks, cthread bindings, pragma annotations, tensorized vta_gemm calls) becomes flat TIR first;
// flat TIR as TE's phase 1 leaves it goes through tir-lower unchanged. TVM's last pass, CommonSubexprElimTIR, is not here: executed code is built without it, and
// `--passes=vta-lower,cse` reproduces the printed cse_var_* form.
void buildVtaLower(PipelineBuilder &pipeline) {
  pipeline.add("tir-lower");                  // blocks -> flat TIR, cthread -> virtual_thread
  // phase 1: DMA, ALU scopes, micro-kernels, dependence tokens
  pipeline.add("unify-coproc-axis")           // one coprocessor axis; one GEMM kernel identity
      .add("inject-dma-copies")                // pragma_dma_copy -> VTALoadBuffer2D/StoreBuffer2D
      .add("annotate-alu-coproc-scope")        // pragma_alu -> compute queue + ALU micro-kernel
      .add("lift-coproc-uop-scope")            // one micro-kernel around each GEMM nest
      .add("lift-alloc-to-scope-begin")        // allocations to the top of their loop
      .add("lift-coproc-scope")                // group statements of one queue
      .add("coproc-sync")                      // dependence push/pop, final coproc_sync
      .add("storage-rewrite")                  // EarlyRewrite: ALU stages in place on the accumulator
      // phase 2: virtual threads, storage, ALU micro-ops
      .add("inject-virtual-thread")            // cthread: one copy of each queue statement per thread
      .add("storage-rewrite")                  // per-scope merge, SRAM size check
      .add("inject-alu-intrin")                // ALU nests -> micro-op loops + uop_push
      // phase 3: canonical forms, SRAM indices, micro-op loops, CPU pointers
      .add("simplify")
      .add("remove-no-op")
      .add("lower-device-storage-access")      // drop SRAM allocations, access_ptr -> tile index
      .add("fold-uop-loop")                    // GEMM loops -> VTAUopLoopBegin/End
      .add("cpu-access-rewrite");              // CPU accesses through VTABufferCPUPtr
}

}  // namespace vtac::passes
