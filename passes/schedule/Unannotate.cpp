// unannotate(block_or_loop, ann_key): removes an annotation (an absent key is no error, as in TVM).
#include "Annotation.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<RV>> applyUnannotate(Schedule &sch, StepArgs &args) {
  llvm::Expected<std::string> key = args.string("ann_key");
  if (!key) return key.takeError();
  return editAnnotations(sch, args, "block_or_loop", [&](ir::AttrMap &annotations) { annotations.erase(*key); });
}

}  // namespace vtac::passes::schedule
