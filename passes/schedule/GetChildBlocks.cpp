// get_child_blocks(block_or_loop): the blocks directly under a block or a loop (blocks nested in
// those are not included), in program order. TVM's trace passes the argument positionally.
#include "BlockTree.h"
#include "Primitive.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<RV>> applyGetChildBlocks(Schedule &sch, StepArgs &args) {
  llvm::Expected<RV> parent = args.blockOrLoop("block_or_loop");
  if (!parent) return parent.takeError();
  ir::SourceLoc at = args.at("block_or_loop");
  std::string func;
  ir::Stmt body;
  if (const auto *block = std::get_if<BlockRV>(&*parent)) {
    llvm::Expected<StmtPath> path = sch.findBlock(*block, at);
    if (!path) return path.takeError();
    func = block->func;
    body = path->back().as<ir::BlockRealize>()->block->body;
  } else {
    const auto &loop = std::get<LoopRV>(*parent);
    llvm::Expected<StmtPath> path = sch.findLoop(loop, at);
    if (!path) return path.takeError();
    func = loop.func;
    body = path->back().as<ir::For>()->body;
  }
  std::vector<RV> blocks;
  for (const StmtPath &child : childBlockPaths(body))
    blocks.push_back(BlockRV{func, child.back().as<ir::BlockRealize>()->block->name});
  return blocks;
}

}  // namespace vtac::passes::schedule
