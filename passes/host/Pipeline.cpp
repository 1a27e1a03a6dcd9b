#include "host/Pipeline.h"

namespace vtac::passes {

// What a function goes through on its way to the emitters, after the --passes pipeline (vtac
// compile, the JIT): the last IR-to-IR steps before code generation, shown by
// `vtac opt --passes=...,host-lower --print-after-all` like any other.
void buildHostLower(PipelineBuilder &pipeline) {
  pipeline.add("hoist-reduction-init")    // `if k == 0: init` out of the reduction loops
      .add("vectorize-outer-loops")       // independent loops around a reduction -> vector lanes
      .add("uop-kernel-closures")         // micro-kernels capture what TVM's runtime takes
      .add("lower-vta-intrinsics")        // tir.vta.* -> VTA runtime calls on the thread's command handle
      .add("combine-context-call")        // that handle asked for once, at entry (the emitters read it there)
      .add("declare-micro-kernels")       // each micro-kernel's closure, of the body the emitters outline (so last)
      .add("declare-parallel-tasks")      // each parallel loop's closure, as declare-micro-kernels
      .add("bind-entry-parameters");      // DLTensor parameters checked and bound at entry (the ABI)
}

}  // namespace vtac::passes
