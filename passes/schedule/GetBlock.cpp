// get_block(name, func_name): the block called `name` in the function (the step's default:
// "main", or the module's only prim_func). The name must be unique in the function.
#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

llvm::Expected<BlockRV> getBlock(Schedule &sch, const Located<std::string> &name, const Located<std::string> &funcName) {
  if (llvm::Expected<ir::PrimFuncRef> f = sch.function(funcName.value, funcName.at); !f) return f.takeError();
  BlockRV rv{funcName.value, name.value};
  if (llvm::Expected<StmtPath> path = sch.findBlock(rv, name.at); !path) return path.takeError();
  return rv;
}

}  // namespace vtac::passes::schedule
