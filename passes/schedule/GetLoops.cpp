// get_loops(block): the loops around the block, outermost first, up to the enclosing block.
#include "Primitive.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<RV>> applyGetLoops(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  llvm::Expected<StmtPath> path = sch.findBlock(*block, args.at("block"));
  if (!path) return path.takeError();
  std::vector<RV> loops;
  for (const ir::Stmt &stmt : *path) {
    if (stmt->isa<ir::Block>()) loops.clear();  // only the loops inside the parent block
    if (const auto *loop = stmt.as<ir::For>()) loops.push_back(LoopRV{block->func, loop->loopVar});
  }
  return loops;
}

}  // namespace vtac::passes::schedule
