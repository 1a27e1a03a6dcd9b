// annotate(block_or_loop, ann_key, ann_val): sets an annotation of a block (T.block_attr) or a
// loop (annotations=); ints, floats, strings, bools, lists and dicts of them (a sampled value is
// an int by the time it gets here).
#include "Annotation.h"

namespace vtac::passes::schedule {

llvm::Error annotate(Schedule &sch, const Located<BlockOrLoop> &target, const std::string &key,
                     const ir::AttrValue &value) {
  return editAnnotations(sch, target, [&](ir::AttrMap &annotations, const std::string &) {
    annotations.set(key, value);
    return llvm::Error::success();
  });
}

}  // namespace vtac::passes::schedule
