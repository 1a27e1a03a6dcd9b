// Editing block and loop annotations (annotate / unannotate / storage_align).
#include "Annotation.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Error editAnnotations(Schedule &sch, const Located<BlockOrLoop> &target, const AnnotationEdit &edit) {
  if (const auto *block = std::get_if<BlockRV>(&target.value)) {
    llvm::Expected<StmtPath> path = sch.findBlock(*block, target.at);
    if (!path) return path.takeError();
    const auto &realize = *path->back().as<BlockRealize>();
    Block *copy = copyNode(*realize.block);
    BlockRef edited(copy);
    if (llvm::Error error = edit(copy->annotations, "the block '" + block->name + "'")) return error;
    BlockRealize *newRealize = copyNode(realize);
    newRealize->block = edited;
    sch.replace(block->func, *path, Stmt(newRealize));
    return llvm::Error::success();
  }
  const auto &loop = std::get<LoopRV>(target.value);
  llvm::Expected<StmtPath> path = sch.findLoop(loop, target.at);
  if (!path) return path.takeError();
  For *copy = copyNode(*path->back().as<For>());
  Stmt edited(copy);
  if (llvm::Error error = edit(copy->annotations, "the loop '" + copy->loopVar->name + "'")) return error;
  sch.replace(loop.func, *path, edited);
  return llvm::Error::success();
}

}  // namespace vtac::passes::schedule
