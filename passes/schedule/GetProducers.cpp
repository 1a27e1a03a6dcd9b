// get_producers(block): the earlier blocks of its scope that write a buffer it reads or writes
// (TVM's RAW and WAW dependencies), in program order.
#include "BlockAnalysis.h"

#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<BlockRV>> getProducers(Schedule &sch, const Located<BlockRV> &block) {
  return dependentBlocks(sch, block.value, block.at, /*producers=*/true);
}

}  // namespace vtac::passes::schedule
