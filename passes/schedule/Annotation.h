// What annotate, unannotate and storage_align share: editing the annotations of a block or a loop.
#pragma once

#include <functional>

#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

// Applies `edit` to the annotations of the block or loop `target` (described to it as "the block
// 'B'" / "the loop 'i'", for its errors) and replaces the node.
using AnnotationEdit = std::function<llvm::Error(ir::AttrMap &, const std::string &target)>;
llvm::Error editAnnotations(Schedule &sch, const Located<BlockOrLoop> &target, const AnnotationEdit &edit);

}  // namespace vtac::passes::schedule
