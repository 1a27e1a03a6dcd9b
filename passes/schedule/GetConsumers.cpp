// get_consumers(block): the later blocks of its scope that read or write a buffer it writes
// (TVM's RAW and WAW dependencies), in program order.
#include "BlockAnalysis.h"

#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<BlockRV>> getConsumers(Schedule &sch, const Located<BlockRV> &block) {
  return dependentBlocks(sch, block.value, block.at, /*producers=*/false);
}

}  // namespace vtac::passes::schedule
