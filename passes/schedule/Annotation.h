// What annotate and unannotate share: editing the annotations of the block or loop argument.
#pragma once

#include <functional>

#include "Primitive.h"

namespace vtac::passes::schedule {

// Applies `edit` to the annotations of the block or loop argument `param` and replaces the node.
llvm::Expected<std::vector<RV>> editAnnotations(Schedule &sch, StepArgs &args, const char *param,
                                                const std::function<void(ir::AttrMap &)> &edit);

}  // namespace vtac::passes::schedule
