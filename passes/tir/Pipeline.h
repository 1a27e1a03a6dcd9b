// tir-lower: TensorIR (blocks, N-d buffers) -> flat lowered TIR, TVM's phase-1 order for
// TensorIR input (driver_api.cc CreatePassList); see Pipeline.cpp.
#pragma once

#include "vtac/passes/PassManager.h"

namespace vtac::passes {

void buildTirLower(PipelineBuilder &pipeline);

}  // namespace vtac::passes
