// get_child_blocks(block_or_loop): the blocks directly under a block or a loop (blocks nested in
// those are not included), in program order. TVM's trace passes the argument positionally.
#include "BlockTree.h"

#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<BlockRV>> getChildBlocks(Schedule &sch, const Located<BlockOrLoop> &parent) {
  std::string func;
  ir::Stmt body;
  if (const auto *block = std::get_if<BlockRV>(&parent.value)) {
    llvm::Expected<StmtPath> path = sch.findBlock(*block, parent.at);
    if (!path) return path.takeError();
    func = block->func;
    body = path->back().as<ir::BlockRealize>()->block->body;
  } else {
    const auto &loop = std::get<LoopRV>(parent.value);
    llvm::Expected<StmtPath> path = sch.findLoop(loop, parent.at);
    if (!path) return path.takeError();
    func = loop.func;
    body = path->back().as<ir::For>()->body;
  }
  std::vector<BlockRV> blocks;
  for (const StmtPath &child : childBlockPaths(body))
    blocks.push_back(BlockRV{func, child.back().as<ir::BlockRealize>()->block->name});
  return blocks;
}

}  // namespace vtac::passes::schedule
