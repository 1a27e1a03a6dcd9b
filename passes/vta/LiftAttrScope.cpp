#include "vta/LiftAttrScope.h"

#include "vta/VtaTarget.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"

namespace vtac::passes {
namespace {

// The attribute being lifted out of the statement just visited.
struct Lifted {
  ir::NodeRef node;
  ir::Expr value;
  explicit operator bool() const { return bool(node); }
  bool sameAs(const Lifted &other) const {
    if (!node || node != other.node) return false;
    auto a = ir::asConstInt(value), b = ir::asConstInt(other.value);
    if (a && b) return *a == *b;
    return value == other.value;
  }
};

class AttrScopeLifter : public FirstErrorMutator {
public:
  explicit AttrScopeLifter(std::string key) : key_(std::move(key)) {}

  ir::Stmt lift(const ir::Stmt &body) {
    ir::Stmt result = visitStmt(body);
    return wrap(lifted_, result);
  }

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    if (op.key != key_) return StmtExprMutator::visitAttrStmt(op);
    lifted_ = {op.node, op.value};
    return op.body;
  }

  ir::Stmt visitAllocate(const ir::Allocate &op) override {
    ir::Stmt visited = StmtExprMutator::visitAllocate(op);
    if (!lifted_) return visited;
    const auto *alloc = visited.as<ir::Allocate>();
    ir::Stmt body = wrap(lifted_, alloc->body);
    lifted_ = {};
    ir::Allocate *copy = ir::copyNode(*alloc);
    copy->body = body;
    return ir::Stmt(copy);
  }

  ir::Stmt visitSeqStmt(const ir::SeqStmt &op) override {
    std::vector<ir::Stmt> groups;
    std::vector<Lifted> attrs;
    for (const ir::Stmt &stmt : op.stmts) {
      lifted_ = {};
      ir::Stmt rest = visitStmt(stmt);
      if (lifted_ && !attrs.empty() && attrs.back().sameAs(lifted_)) {
        groups.back() = ir::seq({groups.back(), rest});
      } else {
        groups.push_back(rest);
        attrs.push_back(lifted_);
      }
    }
    lifted_ = {};
    bool allSame = std::all_of(attrs.begin(), attrs.end(),
                               [&](const Lifted &a) { return a.sameAs(attrs.front()); });
    if (allSame) {
      lifted_ = attrs.front();
      return ir::seq(groups, op.loc());
    }
    for (size_t i = 0; i < groups.size(); ++i) groups[i] = wrap(attrs[i], groups[i]);
    return ir::seq(groups, op.loc());
  }

  ir::Stmt visitIfThenElse(const ir::IfThenElse &op) override {
    if (!op.elseCase) return StmtExprMutator::visitIfThenElse(op);
    lifted_ = {};
    ir::Stmt thenCase = visitStmt(op.thenCase);
    Lifted first = lifted_;
    lifted_ = {};
    ir::Stmt elseCase = visitStmt(op.elseCase);
    if (!(first && first.sameAs(lifted_))) {
      thenCase = wrap(first, thenCase);
      elseCase = wrap(lifted_, elseCase);
      lifted_ = {};
    }
    if (thenCase == op.thenCase && elseCase == op.elseCase) return ir::Stmt(&op);
    return ir::make<ir::IfThenElse>(op.condition, thenCase, elseCase, op.loc());
  }

  ir::Stmt visitWhile(const ir::While &op) override {
    fail(op, "cannot lift '" + key_ + "' out of a while loop");
    return ir::Stmt(&op);
  }

private:
  ir::Stmt wrap(const Lifted &attr, const ir::Stmt &body) const {
    if (!attr) return body;
    return ir::make<ir::AttrStmt>(attr.node, key_, attr.value, body, body->loc());
  }

  std::string key_;
  Lifted lifted_;
};

llvm::Expected<ir::PrimFuncRef> liftAttrScope(const ir::PrimFuncRef &func, const char *key) {
  AttrScopeLifter lifter(key);
  ir::Stmt body = lifter.lift(func->body);
  if (llvm::Error error = lifter.takeError(func->loc())) return error;
  return vta::withRebuiltBody(func, body);
}

}  // namespace

llvm::Expected<ir::PrimFuncRef> liftCoprocUopScope(const ir::PrimFuncRef &func, PassContext &) {
  return liftAttrScope(func, "coproc_uop_scope");
}

llvm::Expected<ir::PrimFuncRef> liftCoprocScope(const ir::PrimFuncRef &func, PassContext &) {
  return liftAttrScope(func, "coproc_scope");
}

}  // namespace vtac::passes
