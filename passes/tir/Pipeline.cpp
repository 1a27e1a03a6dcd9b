#include "tir/Pipeline.h"

namespace vtac::passes {

// TVM's phase 1 for a TensorIR function (driver_api.cc CreatePassList), minus the passes that
// only matter for GPUs (LowerCrossThreadReduction, LiftThreadBinding,
// ManifestSharedMemoryLocalStage, LowerAutoCopy, UnifyThreadBinding, InjectPermutedLayout,
// InjectSoftwarePipeline, TransformMmaBufferLayout) or for other dtypes (FP8/BF16 legalization,
// NarrowDataType).
void buildTirLower(PipelineBuilder &pipeline) {
  pipeline.add("lower-init-block");           // T.init() -> guarded statement inside the reduction loops
  pipeline.add("plan-buffer-allocation");     // each alloc_buffer moves to where it is used
  pipeline.add("convert-blocks-to-opaque");   // block iteration variables -> loop expressions
  pipeline.add("compact-buffer-allocation");  // needs opaque blocks: regions in loop variables
  pipeline.add("lower-match-buffer");         // tensorized views -> accesses of their sources
  pipeline.add("lower-opaque-block");         // blocks -> allocate + decl_buffer, thread/pragma attrs
  pipeline.add("flatten-buffer");             // N-d -> 1-d, parameters through flat views
}

}  // namespace vtac::passes
