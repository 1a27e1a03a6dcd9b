#include "vta/UnifyCoprocAxis.h"

#include "vta/VtaTarget.h"
#include <set>

#include "vtac/ir/Mutator.h"

namespace vtac::passes {
namespace {

class CoprocAxisUnifier : public ir::StmtExprMutator {
public:
  explicit CoprocAxisUnifier(ir::IterVarRef axis) : axis_(std::move(axis)) {}

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    ir::Stmt visited = StmtExprMutator::visitAttrStmt(op);
    if (op.key != "coproc_scope" && op.key != "coproc_uop_scope") return visited;
    const auto *attr = visited.as<ir::AttrStmt>();
    ir::Expr value = attr->value;
    if (const auto *name = value.as<ir::StringImm>(); name && op.key == "coproc_uop_scope") {
      if (name->value == vta::kGemmPush) {
        if (!gemmPush_) gemmPush_ = value;
        value = gemmPush_;
      } else if (aluPushes_.count(name)) {
        value = ir::make<ir::StringImm>(name->value, name->loc());  // shared: give this one its own
      }
      if (name->value == vta::kAluPush) aluPushes_.insert(value.get());
    }
    if (attr->node == axis_ && value == attr->value) return visited;
    return ir::make<ir::AttrStmt>(axis_, attr->key, value, attr->body, attr->loc());
  }

private:
  ir::IterVarRef axis_;
  ir::Expr gemmPush_;
  std::set<const ir::Node *> aluPushes_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> unifyCoprocAxis(const ir::PrimFuncRef &func, PassContext &) {
  return withBody(func, CoprocAxisUnifier(vta::coprocAxis(func->body)).visitStmt(func->body));
}

}  // namespace vtac::passes
