// unannotate(block_or_loop, ann_key): removes an annotation; an absent key is an error at
// ann_key, as TVM's "Cannot find annotation key".
#include "Annotation.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

llvm::Error unannotate(Schedule &sch, const Located<BlockOrLoop> &target, const Located<std::string> &key) {
  return editAnnotations(sch, target, [&](ir::AttrMap &annotations, const std::string &described) -> llvm::Error {
    if (!annotations.erase(key.value))
      return ir::diagnosticError(key.at, "unannotate: " + described + " has no annotation '" + key.value + "'");
    return llvm::Error::success();
  });
}

}  // namespace vtac::passes::schedule
