#include "vta/AnnotateAluCoprocScope.h"

#include "vta/VtaTarget.h"
#include "vtac/ir/Mutator.h"

namespace vtac::passes {
namespace {

class AluScopeAnnotator : public ir::StmtExprMutator {
public:
  explicit AluScopeAnnotator(ir::IterVarRef axis) : axis_(std::move(axis)) {}

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    ir::Stmt visited = StmtExprMutator::visitAttrStmt(op);
    if (vta::isPragma(op, "skip_alu")) return vta::evaluate(ir::intImm(0));
    if (!vta::isPragma(op, "alu")) return visited;
    ir::Stmt kernel = ir::make<ir::AttrStmt>(axis_, "coproc_uop_scope",
                                             ir::make<ir::StringImm>(vta::kAluPush), visited,
                                             op.loc());
    return ir::make<ir::AttrStmt>(axis_, "coproc_scope", ir::intImm(vta::kQueueCompute), kernel,
                                  op.loc());
  }

private:
  ir::IterVarRef axis_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> annotateAluCoprocScope(const ir::PrimFuncRef &func, PassContext &) {
  return withBody(func, AluScopeAnnotator(vta::coprocAxis(func->body)).visitStmt(func->body));
}

}  // namespace vtac::passes
