#include "vtac/ir/LoopSteps.h"

#include <llvm/ADT/STLExtras.h>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Visitor.h"

namespace vtac::ir {

bool isLeafLoopBody(const Stmt &body, llvm::ArrayRef<llvm::StringRef> loopRunningCalls) {
  bool leaf = true;
  preOrderVisit(body, [&](const Node &node) {
    if (node.isa<For>() || node.isa<While>()) leaf = false;
    if (auto *attr = node.as<AttrStmt>())
      leaf &= attr->key != "thread_extent" && attr->key != "virtual_thread" && attr->key != "coproc_uop_scope";
    if (auto *call = node.as<Call>()) leaf &= !llvm::is_contained(loopRunningCalls, call->op);
  });
  return leaf;
}

namespace {

bool holdsLoop(const Stmt &stmt) {
  bool found = false;
  if (stmt) preOrderVisit(stmt, [&](const Node &node) { found |= node.isa<For>() || node.isa<While>(); });
  return found;
}

class StaticSteps : public StmtExprVisitor {
public:
  std::optional<uint64_t> total = 0;

  void visitExpr(const Expr &) override {}  // expressions hold no loops
  void visitFor(const For &op) override {
    std::optional<int64_t> extent = asConstInt(op.extent);
    if (!extent) return unknown();
    uint64_t iterations = uint64_t(std::max<int64_t>(*extent, 0));
    if (total) *total += iterations * multiplier_;
    uint64_t outer = multiplier_;
    multiplier_ *= iterations;
    visitStmt(op.body);
    multiplier_ = outer;
  }
  void visitWhile(const While &) override { unknown(); }  // its iterations depend on the data
  void visitIfThenElse(const IfThenElse &op) override {
    if (holdsLoop(op.thenCase) || holdsLoop(op.elseCase)) unknown();
  }
  void visitAttrStmt(const AttrStmt &op) override {
    if ((op.key == "thread_extent" || op.key == "virtual_thread" || op.key == "coproc_uop_scope") && holdsLoop(op.body))
      return unknown();
    StmtExprVisitor::visitAttrStmt(op);
  }
  void visitBlock(const Block &op) override {
    if (holdsLoop(op.init)) return unknown();
    visitStmt(op.body);
  }

private:
  void unknown() { total.reset(); }

  uint64_t multiplier_ = 1;
};

}  // namespace

std::optional<uint64_t> staticLoopSteps(const Stmt &body) {
  StaticSteps steps;
  steps.visitStmt(body);
  return steps.total;
}

}  // namespace vtac::ir
