#include "vta/CombineContextCall.h"

#include "vtac/ir/Mutator.h"
#include "vtac/passes/PassSupport.h"
#include "vtac/passes/Vta.h"

namespace vtac::passes {
namespace {

class ContextCallCombiner : public ir::StmtExprMutator {
public:
  explicit ContextCallCombiner(ir::VarRef commandHandle) : commandHandle_(std::move(commandHandle)) {}

  ir::Expr visitCall(const ir::Call &op) override {
    if (op.op == "tir.vta.command_handle") return commandHandle_;
    if (op.op == "tir.tvm_thread_context" && op.args.size() == 1) return visitExpr(op.args[0]);
    return StmtExprMutator::visitCall(op);
  }

private:
  ir::VarRef commandHandle_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> combineContextCall(const ir::PrimFuncRef &func, PassContext &) {
  if (!usesVta(func->body)) return withBody(func, ContextCallCombiner(ir::VarRef()).visitStmt(func->body));
  ir::VarRef bound = boundCommandHandle(func->body);
  ir::VarRef commandHandle = bound ? bound : ir::makeVar("cmd", ir::DataType::handle());
  ir::Stmt body = ContextCallCombiner(commandHandle).visitStmt(func->body);
  if (bound) return withBody(func, body);
  std::vector<ir::Expr> args{ir::make<ir::StringImm>("VTATLSCommandHandle")};
  ir::Expr handle = ir::make<ir::Call>(ir::DataType::handle(), "tir.call_extern", std::move(args), func->loc());
  return withBody(func, ir::make<ir::LetStmt>(commandHandle, handle, body));
}

}  // namespace vtac::passes
