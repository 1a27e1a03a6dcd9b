#include "vta/Pipeline.h"

namespace vtac::passes {

// TVM's VTA build_config (phases 1-3 of vta.lower), on flat TIR as tir-lower / TE's phase 1 leave
// it. Not yet here: storage-rewrite (its accumulator reuse must already be in the input, see
// samples/README.md) and the phase-3 simplify (each pass folds the arithmetic it creates).
void buildVtaLower(PipelineBuilder &pipeline) {
  // phase 1: DMA, ALU scopes, micro-kernels, dependence tokens
  pipeline.add("unify-coproc-axis")           // one coprocessor axis; one GEMM kernel identity
      .add("inject-dma-copies")                // pragma_dma_copy -> VTALoadBuffer2D/StoreBuffer2D
      .add("annotate-alu-coproc-scope")        // pragma_alu -> compute queue + ALU micro-kernel
      .add("lift-coproc-uop-scope")            // one micro-kernel around each GEMM nest
      .add("lift-alloc-to-scope-begin")        // allocations to the top of their loop
      .add("lift-coproc-scope")                // group statements of one queue
      .add("coproc-sync")                      // dependence push/pop, final coproc_sync
      // phase 2: virtual threads, ALU micro-ops
      .add("inject-virtual-thread")            // cthread: one copy of each queue statement per thread
      .add("inject-alu-intrin")                // ALU nests -> micro-op loops + uop_push
      // phase 3: SRAM indices, micro-op loops, CPU pointers
      .add("lower-device-storage-access")      // drop SRAM allocations, access_ptr -> tile index
      .add("fold-uop-loop")                    // GEMM loops -> VTAUopLoopBegin/End
      .add("cpu-access-rewrite");              // CPU accesses through VTABufferCPUPtr
}

}  // namespace vtac::passes
