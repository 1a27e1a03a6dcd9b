// add_unit_loop(block_or_loop): wraps the block (its BlockRealize) or the loop in a new loop
// `u` of extent 1 and returns it. The root block cannot be wrapped: a function's body is its root
// block, as in TVM.
#include "LoopUtils.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Expected<LoopRV> addUnitLoop(Schedule &sch, const Located<BlockOrLoop> &target) {
  std::string func;
  llvm::Expected<StmtPath> path = [&]() -> llvm::Expected<StmtPath> {
    if (const auto *block = std::get_if<BlockRV>(&target.value)) {
      func = block->func;
      return sch.findBlock(*block, target.at);
    }
    func = std::get<LoopRV>(target.value).func;
    return sch.findLoop(std::get<LoopRV>(target.value), target.at);
  }();
  if (!path) return path.takeError();
  if (path->size() == 1) return diagnosticError(target.at, "add_unit_loop: cannot add a loop above the root block");
  if (llvm::Error error = checkNestDepth(path->size() + 1, "add_unit_loop", target.at)) return error;
  VarRef unit = makeVar("u");
  sch.replace(func, *path, make<For>(unit, intImm(0), intImm(1), ForKind::Serial, path->back()));
  return LoopRV{func, unit};
}

}  // namespace vtac::passes::schedule
