// Editing block and loop annotations (annotate / unannotate / storage_align).
#include "Annotation.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Expected<std::vector<RV>> editAnnotations(Schedule &sch, StepArgs &args, const char *param,
                                                const std::function<void(AttrMap &)> &edit) {
  llvm::Expected<RV> target = args.blockOrLoop(param);
  if (!target) return target.takeError();
  if (const auto *block = std::get_if<BlockRV>(&*target)) {
    llvm::Expected<StmtPath> path = sch.findBlock(*block, args.at(param));
    if (!path) return path.takeError();
    const auto &realize = *path->back().as<BlockRealize>();
    Block *copy = copyNode(*realize.block);
    edit(copy->annotations);
    BlockRealize *newRealize = copyNode(realize);
    newRealize->block = BlockRef(copy);
    sch.replace(block->func, *path, Stmt(newRealize));
    return std::vector<RV>{};
  }
  const auto &loop = std::get<LoopRV>(*target);
  llvm::Expected<StmtPath> path = sch.findLoop(loop, args.at(param));
  if (!path) return path.takeError();
  For *copy = copyNode(*path->back().as<For>());
  edit(copy->annotations);
  sch.replace(loop.func, *path, Stmt(copy));
  return std::vector<RV>{};
}

}  // namespace vtac::passes::schedule
