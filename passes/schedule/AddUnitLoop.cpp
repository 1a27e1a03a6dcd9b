// add_unit_loop(block_or_loop): wraps the block (its BlockRealize) or the loop in a new loop
// `u` of extent 1 and returns it. The root block cannot be wrapped: a function's body is its root
// block, as in TVM.
#include "LoopUtils.h"
#include "Primitive.h"
#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Expected<std::vector<RV>> applyAddUnitLoop(Schedule &sch, StepArgs &args) {
  llvm::Expected<RV> target = args.blockOrLoop("block_or_loop");
  if (!target) return target.takeError();
  std::string func;
  llvm::Expected<StmtPath> path = [&]() -> llvm::Expected<StmtPath> {
    if (const auto *block = std::get_if<BlockRV>(&*target)) {
      func = block->func;
      return sch.findBlock(*block, args.at("block_or_loop"));
    }
    func = std::get<LoopRV>(*target).func;
    return sch.findLoop(std::get<LoopRV>(*target), args.at("block_or_loop"));
  }();
  if (!path) return path.takeError();
  if (path->size() == 1)
    return diagnosticError(args.at("block_or_loop"), "add_unit_loop: cannot add a loop above the root block");
  if (llvm::Error error = checkNestDepth(path->size() + 1, "add_unit_loop", args.at("block_or_loop"))) return error;
  VarRef unit = makeVar("u");
  sch.replace(func, *path, make<For>(unit, intImm(0), intImm(1), ForKind::Serial, path->back()));
  return std::vector<RV>{LoopRV{func, unit}};
}

}  // namespace vtac::passes::schedule
