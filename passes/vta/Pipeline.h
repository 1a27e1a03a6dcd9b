// vta-lower: the VTA lowering passes on flat TIR, in the order of TVM's VTA build_config; see
// Pipeline.cpp.
#pragma once

#include "vtac/passes/PassManager.h"

namespace vtac::passes {

void buildVtaLower(PipelineBuilder &pipeline);

}  // namespace vtac::passes
