// What annotate and unannotate share: editing the annotations of the block or loop argument.
#pragma once

#include <functional>

#include "Primitive.h"

namespace vtac::passes::schedule {

// Applies `edit` to the annotations of the block or loop argument `param` (described to it as
// "the block 'B'" / "the loop 'i'", for its errors) and replaces the node.
using AnnotationEdit = std::function<llvm::Error(ir::AttrMap &, const std::string &target)>;
llvm::Expected<std::vector<RV>> editAnnotations(Schedule &sch, StepArgs &args, const char *param,
                                                const AnnotationEdit &edit);

}  // namespace vtac::passes::schedule
