// get_loops(block): the loops around the block, outermost first, up to the enclosing block.
#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<LoopRV>> getLoops(Schedule &sch, const Located<BlockRV> &block) {
  llvm::Expected<StmtPath> path = sch.findBlock(block.value, block.at);
  if (!path) return path.takeError();
  std::vector<LoopRV> loops;
  for (const ir::Stmt &stmt : *path) {
    if (stmt->isa<ir::Block>()) loops.clear();  // only the loops inside the parent block
    if (const auto *loop = stmt.as<ir::For>()) loops.push_back(LoopRV{block.value.func, loop->loopVar});
  }
  return loops;
}

}  // namespace vtac::passes::schedule
