// get_consumers(block): the later blocks of its scope that read or write a buffer it writes
// (TVM's RAW and WAW dependencies), in program order.
#include "Primitive.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<RV>> applyGetConsumers(Schedule &sch, StepArgs &args) {
  return applyDependentBlocks(sch, args, /*producers=*/false);
}

}  // namespace vtac::passes::schedule
