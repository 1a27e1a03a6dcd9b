// uop-kernel-closures (vtac; TVM's runtime contract, no TVM pass): what a micro-kernel captures.
//
// The code that pushes a micro-kernel (VTAPushGEMMOp / VTAPushALUOp) passes the values of the
// variables its body reads from outside, its closure, and the runtime records the kernel once
// per call site and closure value. TVM's runtime (UopKernelMap::Get) takes no closure or one
// int below 99 and aborts on anything else, so this pass rewrites each coproc_uop_scope body
// until its closure is that:
// - a variable a pure let binds outside the kernel (CSE's `cse_var_7 = cthread_s * 784`) is
//   bound again inside it, computed from the variables its value reads (and dropped outside
//   when nothing else reads it);
// - several loop variables (two virtual-thread axes), or one of another type than int32, become
//   one int32 `kernel_key`, bound just outside the scope to their mixed-radix number
//   (`a * extent_b + b`) and unpacked at the kernel's start, when they are loops from 0 whose
//   extents multiply to at most 99.
// What remains outside the contract is left as it is: vtac's runtime refuses it with an error,
// as TVM's aborts.
// The interpreter and the code generators run this on every function they execute, so the
// runtime sees the same closures from both.
#include "vtac/passes/Vta.h"

#include <algorithm>
#include <unordered_set>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/SideEffect.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/UndefinedVars.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {

namespace {

using ir::DataType;

class UopKernelCloser : public ir::StmtExprMutator {
public:
  ir::Stmt visitLetStmt(const ir::LetStmt &op) override {
    bool pure = ir::sideEffect(op.value) == ir::SideEffect::Pure;
    if (pure) lets_.push_back({op.var, op.value});
    ir::Stmt visited = StmtExprMutator::visitLetStmt(op);
    if (pure) lets_.pop_back();
    // A let only the kernels read is computed inside them now (and C compilers warn about an
    // unused variable).
    const auto &let = *visited.as<ir::LetStmt>();
    if (pure && &let != &op && !ir::usesVar(let.body, let.var.get())) return let.body;
    return visited;
  }

  ir::Stmt visitFor(const ir::For &op) override {
    loops_.push_back(&op);
    ir::Stmt visited = StmtExprMutator::visitFor(op);
    loops_.pop_back();
    return visited;
  }

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    if (op.key != "coproc_uop_scope") return StmtExprMutator::visitAttrStmt(op);
    ir::Stmt body = recomputeLets(op.body);
    ir::VarRef key = ir::makeVar("kernel_key", DataType::int32());
    ir::Expr packed = packLoopVariables(body, key);
    ir::Stmt scope = ir::make<ir::AttrStmt>(op.node, op.key, op.value, body, op.loc());
    return packed ? ir::make<ir::LetStmt>(key, packed, scope, op.loc()) : scope;
  }

private:
  struct Let {
    ir::VarRef var;
    ir::Expr value;
  };

  ir::Stmt recomputeLets(ir::Stmt body) {
    std::unordered_set<const ir::Var *> needed;
    std::vector<ir::VarRef> pending = ir::undefinedVars(body);
    while (!pending.empty()) {
      ir::VarRef var = pending.back();
      pending.pop_back();
      auto let = std::find_if(lets_.begin(), lets_.end(), [&](const Let &l) { return l.var.get() == var.get(); });
      if (let == lets_.end() || !needed.insert(var.get()).second) continue;
      for (const ir::VarRef &read : ir::undefinedVars(ir::make<ir::Evaluate>(let->value))) pending.push_back(read);
    }
    // Fresh variables: the outer ones stay bound around the kernel. Innermost first, so that
    // each let sits inside those of the variables its value reads.
    ir::VarMap fresh;
    for (const Let &let : lets_)
      if (needed.count(let.var.get())) fresh[let.var.get()] = ir::makeVar(let.var->name, let.var->dtype);
    body = ir::substitute(body, fresh);
    for (auto let = lets_.rbegin(); let != lets_.rend(); ++let)
      if (needed.count(let->var.get()))
        body = ir::make<ir::LetStmt>(ir::VarRef(fresh.at(let->var.get()).as<ir::Var>()),
                                     ir::substitute(let->value, fresh), body);
    return body;
  }

  // The key's value where the kernel is pushed, with `body` rewritten to unpack it; null when
  // the closure is already one int32 or cannot be packed.
  ir::Expr packLoopVariables(ir::Stmt &body, const ir::VarRef &key) {
    std::vector<ir::VarRef> closure;
    for (const ir::VarRef &var : ir::undefinedVars(body))
      if (var->dtype.isScalar() && !var->dtype.isHandle()) closure.push_back(var);
    if (closure.empty() || (closure.size() == 1 && closure[0]->dtype == DataType::int32())) return {};
    std::vector<int64_t> extents;
    int64_t keys = 1;
    for (const ir::VarRef &var : closure) {
      auto loop = std::find_if(loops_.begin(), loops_.end(), [&](const ir::For *l) { return l->loopVar.get() == var.get(); });
      if (loop == loops_.end() || !ir::isZero((*loop)->min)) return {};
      std::optional<int64_t> extent = ir::asConstInt((*loop)->extent);
      if (!extent || *extent < 1 || *extent > 99 / keys) return {};
      extents.push_back(*extent);
      keys *= *extent;
    }
    auto i32 = [](int64_t v) { return ir::intImm(v, DataType::int32()); };
    ir::VarMap fresh;
    for (const ir::VarRef &var : closure) fresh[var.get()] = ir::makeVar(var->name, var->dtype);
    body = ir::substitute(body, fresh);
    ir::Expr packed;
    int64_t stride = keys;
    for (size_t i = 0; i < closure.size(); ++i) {
      stride /= extents[i];
      ir::Expr digit = ir::castExpr(DataType::int32(), closure[i]);
      packed = packed ? ir::addExpr(ir::mulExpr(packed, i32(extents[i])), digit) : digit;
      ir::Expr unpacked = ir::floorModExpr(ir::floorDivExpr(key, i32(stride)), i32(extents[i]));
      body = ir::make<ir::LetStmt>(ir::VarRef(fresh.at(closure[i].get()).as<ir::Var>()),
                                   ir::castExpr(closure[i]->dtype, unpacked), body);
    }
    return packed;
  }

  std::vector<Let> lets_;                // the pure lets around the statement visited, outermost first
  std::vector<const ir::For *> loops_;  // the loops around it
};

}  // namespace

ir::Stmt closeUopKernels(const ir::Stmt &body) { return UopKernelCloser().visitStmt(body); }

llvm::Expected<ir::PrimFuncRef> uopKernelClosures(const ir::PrimFuncRef &func, PassContext &) {
  return withBody(func, closeUopKernels(func->body));
}

}  // namespace vtac::passes
