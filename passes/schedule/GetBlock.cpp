// get_block(name, func_name=None): the block called `name` in the function (default: "main",
// or the module's only prim_func). The name must be unique in the function.
#include "Primitive.h"

namespace vtac::passes::schedule {

llvm::Expected<std::vector<RV>> applyGetBlock(Schedule &sch, StepArgs &args) {
  llvm::Expected<std::string> name = args.string("name");
  if (!name) return name.takeError();
  std::string func;
  if (args.value("func_name").kind == ir::TraceValue::Kind::None) {
    llvm::Expected<std::string> fallback = sch.defaultFunction(args.stepLoc());
    if (!fallback) return fallback.takeError();
    func = *fallback;
    args.setValue("func_name", ir::TraceValue::ofString(func));
  } else {
    llvm::Expected<std::string> given = args.string("func_name");
    if (!given) return given.takeError();
    func = *given;
    if (llvm::Expected<ir::PrimFuncRef> f = sch.function(func, args.at("func_name")); !f) return f.takeError();
  }
  BlockRV rv{func, *name};
  if (llvm::Expected<StmtPath> path = sch.findBlock(rv, args.at("name")); !path) return path.takeError();
  return std::vector<RV>{rv};
}

}  // namespace vtac::passes::schedule
