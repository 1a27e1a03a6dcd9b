#pragma once

#include "vtac/passes/PassManager.h"

namespace vtac::passes {

void buildHostLower(PipelineBuilder &pipeline);

}  // namespace vtac::passes
