#include "vta/LowerVtaIntrinsics.h"

#include "vta/VtaTarget.h"
#include "vtac/ir/Mutator.h"

namespace vtac::passes {
namespace {

class IntrinsicLowerer : public ir::StmtExprMutator {
public:
  ir::Expr visitCall(const ir::Call &op) override {
    ir::Expr visited = StmtExprMutator::visitCall(op);
    const auto *call = visited.as<ir::Call>();
    std::vector<ir::Expr> args = call->args;
    if (call->op == "tir.vta.coproc_sync")
      return vta::callExtern("VTASynchronize", {vta::commandHandle(), ir::intImm(int64_t(1) << 31, ir::DataType::int64())}, op.loc());
    if (call->op == "tir.vta.coproc_dep_push" || call->op == "tir.vta.coproc_dep_pop") {
      args.insert(args.begin(), vta::commandHandle());
      return vta::callExtern(call->op == "tir.vta.coproc_dep_push" ? "VTADepPush" : "VTADepPop",
                             args, op.loc());
    }
    if (call->op == "tir.vta.uop_push") return vta::callExtern("VTAUopPush", args, op.loc());
    return visited;
  }
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> lowerVtaIntrinsics(const ir::PrimFuncRef &func, PassContext &) {
  return withBody(func, IntrinsicLowerer().visitStmt(func->body));
}

}  // namespace vtac::passes
