#include "tir/Pipeline.h"

namespace vtac::passes {

// TVM's phase 1 for a TensorIR function, minus the passes that only matter for GPUs or TE.
void buildTirLower(PipelineBuilder &pipeline) {
  pipeline.add("lower-init-block");  // T.init() -> guarded statement inside the reduction loops
}

}  // namespace vtac::passes
