// Editing block and loop annotations (annotate / unannotate / storage_align).
#include "Annotation.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Expected<std::vector<RV>> editAnnotations(Schedule &sch, StepArgs &args, const char *param,
                                                const AnnotationEdit &edit) {
  llvm::Expected<RV> target = args.blockOrLoop(param);
  if (!target) return target.takeError();
  if (const auto *block = std::get_if<BlockRV>(&*target)) {
    llvm::Expected<StmtPath> path = sch.findBlock(*block, args.at(param));
    if (!path) return path.takeError();
    const auto &realize = *path->back().as<BlockRealize>();
    Block *copy = copyNode(*realize.block);
    BlockRef edited(copy);
    if (llvm::Error error = edit(copy->annotations, "the block '" + block->name + "'")) return error;
    BlockRealize *newRealize = copyNode(realize);
    newRealize->block = edited;
    sch.replace(block->func, *path, Stmt(newRealize));
    return std::vector<RV>{};
  }
  const auto &loop = std::get<LoopRV>(*target);
  llvm::Expected<StmtPath> path = sch.findLoop(loop, args.at(param));
  if (!path) return path.takeError();
  For *copy = copyNode(*path->back().as<For>());
  Stmt edited(copy);
  if (llvm::Error error = edit(copy->annotations, "the loop '" + copy->loopVar->name + "'")) return error;
  sch.replace(loop.func, *path, edited);
  return std::vector<RV>{};
}

}  // namespace vtac::passes::schedule
