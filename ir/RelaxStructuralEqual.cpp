// Structural equality of Relax functions: same shape of graph, callees, struct info and
// constants, with graph variables and symbolic sizes matched by position of definition
// (names and source locations do not matter), as structuralEqual does for PrimFuncs.
#include <unordered_map>

#include "vtac/ir/Relax.h"

namespace vtac::ir::relax {

namespace {

class RelaxComparer {
public:
  bool function(const RelaxFunction &a, const RelaxFunction &b) {
    if (a.params.size() != b.params.size() || a.blocks.size() != b.blocks.size() ||
        a.results.size() != b.results.size() || a.resultIsTuple != b.resultIsTuple)
      return false;
    for (size_t i = 0; i < a.params.size(); ++i)
      if (!define(*a.params[i], *b.params[i])) return false;
    for (size_t i = 0; i < a.blocks.size(); ++i)
      if (!block(a.blocks[i], b.blocks[i])) return false;
    for (size_t i = 0; i < a.results.size(); ++i)
      if (!arg(a.results[i], b.results[i])) return false;
    return structInfo(a.retSinfo, b.retSinfo);
  }

private:
  bool dim(const Expr &a, const Expr &b) {
    if (a->kind() != b->kind()) return false;
    if (const auto *ia = a.as<IntImm>()) return ia->value == b.as<IntImm>()->value;
    if (a.isa<ir::Var>()) {
      auto [it, inserted] = sizes_.emplace(a.get(), b.get());
      return inserted ? true : it->second == b.get();
    }
    if (const auto *ba = a.as<BinaryExpr>()) {
      const auto *bb = b.as<BinaryExpr>();
      return dim(ba->a, bb->a) && dim(ba->b, bb->b);
    }
    return false;
  }

  bool structInfo(const TensorStructInfo &a, const TensorStructInfo &b) {
    if (a.dtype != b.dtype || a.rank() != b.rank() || a.hasShape() != b.hasShape()) return false;
    if (!a.shape) return true;
    for (size_t i = 0; i < a.shape->size(); ++i)
      if (!dim((*a.shape)[i], (*b.shape)[i])) return false;
    return true;
  }

  bool define(const Var &a, const Var &b) {
    if (a.dataflow != b.dataflow || !structInfo(a.sinfo, b.sinfo)) return false;
    vars_[&a] = &b;
    return true;
  }

  bool constant(const Constant &a, const Constant &b) {
    if (!structInfo(a.sinfo, b.sinfo) || bool(a.data) != bool(b.data)) return false;
    if (!a.data) return true;
    return a.data->dtype == b.data->dtype && a.data->shape == b.data->shape &&
           a.data->bytes == b.data->bytes;
  }

  bool arg(const Arg &a, const Arg &b) {
    if (bool(a.var) != bool(b.var)) return false;
    if (a.var) {
      auto it = vars_.find(a.var.get());
      return it != vars_.end() && it->second == b.var.get();
    }
    return constant(*a.constant, *b.constant);
  }

  bool binding(const Binding &a, const Binding &b) {
    if (bool(a.call) != bool(b.call)) return false;
    if (a.call) {
      const Call &ca = *a.call, &cb = *b.call;
      if (ca.kind != cb.kind || ca.callee != cb.callee || ca.args.size() != cb.args.size() ||
          !structInfo(ca.outSinfo, cb.outSinfo))
        return false;
      for (size_t i = 0; i < ca.args.size(); ++i)
        if (!arg(ca.args[i], cb.args[i])) return false;
    } else if (!arg(a.alias, b.alias)) {
      return false;
    }
    return define(*a.var, *b.var);
  }

  bool block(const BindingBlock &a, const BindingBlock &b) {
    if (a.dataflow != b.dataflow || a.bindings.size() != b.bindings.size()) return false;
    for (size_t i = 0; i < a.bindings.size(); ++i)
      if (!binding(a.bindings[i], b.bindings[i])) return false;
    return true;
  }

  std::unordered_map<const Node *, const Node *> sizes_;
  std::unordered_map<const Var *, const Var *> vars_;
};

}  // namespace

bool structuralEqual(const RelaxFunction &a, const RelaxFunction &b) {
  return RelaxComparer().function(a, b);
}

}  // namespace vtac::ir::relax
