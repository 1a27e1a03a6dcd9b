#include "host/DeclareMicroKernels.h"

#include "vtac/ir/UndefinedVars.h"
#include "vtac/passes/HostLowered.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {
namespace {

class MicroKernelDeclarer : public FirstErrorMutator {
public:
  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    if (op.key != "coproc_uop_scope") return StmtExprMutator::visitAttrStmt(op);
    auto *push = op.value.as<ir::StringImm>();
    if (!push || (push->value != "VTAPushGEMMOp" && push->value != "VTAPushALUOp")) {
      fail(op.loc(), "coproc_uop_scope needs \"VTAPushGEMMOp\" or \"VTAPushALUOp\" as its value");
      return ir::Stmt(&op);
    }
    if (insideKernel_) {
      fail(op.loc(), "a coproc_uop_scope inside another micro-kernel");
      return ir::Stmt(&op);
    }
    insideKernel_ = true;
    ir::Stmt body = visitStmt(op.body);
    insideKernel_ = false;
    std::vector<ir::Expr> closure;
    for (const ir::VarRef &var : ir::undefinedVars(body)) {
      if (var->dtype.isHandle() || !var->dtype.isScalar()) {
        fail(op.loc(), "micro-kernel reads '" + var->name + "' (" + var->dtype.str() +
                           "): only scalar variables can be captured in its closure");
        return ir::Stmt(&op);
      }
      closure.push_back(var);
    }
    if (body == op.body && declares(op, closure)) return ir::Stmt(&op);
    return ir::make<ir::AttrStmt>(ir::make<ir::Call>(ir::DataType::handle(), kTupleOp, std::move(closure), op.loc()),
                                  op.key, op.value, body, op.loc());
  }

private:
  // `scope` already declares `closure` (a second run of host-lower).
  static bool declares(const ir::AttrStmt &scope, const std::vector<ir::Expr> &closure) {
    const ir::Call *declared = declaredMicroKernelClosure(scope);
    if (!declared || declared->args.size() != closure.size()) return false;
    for (size_t i = 0; i < closure.size(); ++i)
      if (declared->args[i] != closure[i]) return false;
    return true;
  }

  bool insideKernel_ = false;
};

}  // namespace

const ir::Call *declaredMicroKernelClosure(const ir::AttrStmt &scope) {
  auto *tuple = scope.node.as<ir::Call>();
  return scope.key == "coproc_uop_scope" && scope.value.isa<ir::StringImm>() && isClosure(tuple) ? tuple : nullptr;
}

llvm::Expected<ir::PrimFuncRef> declareMicroKernels(const ir::PrimFuncRef &func, PassContext &) {
  MicroKernelDeclarer declarer;
  return mutateBody(func, declarer);
}

}  // namespace vtac::passes
