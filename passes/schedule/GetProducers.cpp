// get_producers(block): the earlier blocks of its scope that write a buffer it reads or writes
// (TVM's RAW and WAW dependencies), in program order. get_consumers shares the step.
#include "BlockAnalysis.h"
#include "Primitive.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<RV>> applyDependentBlocks(Schedule &sch, StepArgs &args, bool producers) {
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  llvm::Expected<std::vector<BlockRV>> blocks = dependentBlocks(sch, *block, args.at("block"), producers);
  if (!blocks) return blocks.takeError();
  return std::vector<RV>(blocks->begin(), blocks->end());
}

llvm::Expected<std::vector<RV>> applyGetProducers(Schedule &sch, StepArgs &args) {
  return applyDependentBlocks(sch, args, /*producers=*/true);
}

}  // namespace vtac::passes::schedule
