// unannotate(block_or_loop, ann_key): removes an annotation; an absent key is an error at
// ann_key, as TVM's "Cannot find annotation key".
#include "Annotation.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<RV>> applyUnannotate(Schedule &sch, StepArgs &args) {
  llvm::Expected<std::string> key = args.string("ann_key");
  if (!key) return key.takeError();
  return editAnnotations(sch, args, "block_or_loop", [&](ir::AttrMap &annotations, const std::string &target) -> llvm::Error {
    if (!annotations.erase(*key)) return diagnosticError(args.at("ann_key"), "unannotate: " + target + " has no annotation '" + *key + "'");
    return llvm::Error::success();
  });
}

}  // namespace vtac::passes::schedule
