// Structural equality of Relax functions: same shape of graph, callees, struct info and
// constants, with graph variables and symbolic sizes matched by position of definition
// (names and source locations do not matter), as structuralEqual does for PrimFuncs.
#include <algorithm>
#include <unordered_map>

#include "vtac/ir/Printer.h"
#include "vtac/ir/Relax.h"

namespace vtac::ir::relax {

namespace {

// The returned value's location, or the function's when it returns nothing.
SourceLoc resultLoc(const RelaxFunction &func) {
  return func.results.empty() ? func.loc() : func.results.front().loc;
}

class RelaxComparer {
public:
  // Only a caller that asks where the first difference lies pays for describing it.
  explicit RelaxComparer(bool explain) : explain_(explain) {}

  bool function(const RelaxFunction &a, const RelaxFunction &b) {
    if (a.params.size() != b.params.size()) return fail(a.loc(), b.loc(), "parameter counts differ");
    // R.func_attr holds literals only, so equal text is equal attributes.
    if (printAttrMap(a.attrs) != printAttrMap(b.attrs)) return fail(a.loc(), b.loc(), "function attributes differ");
    for (size_t i = 0; i < a.params.size(); ++i)
      if (!define(*a.params[i], *b.params[i], "parameter")) return false;
    if (!blocks(a.blocks, b.blocks, a.loc(), b.loc())) return false;
    if (a.results.size() != b.results.size() || a.resultIsTuple != b.resultIsTuple)
      return fail(resultLoc(a), resultLoc(b), "returned values differ");
    for (size_t i = 0; i < a.results.size(); ++i)
      if (!arg(a.results[i], b.results[i], "returned value")) return false;
    return structInfo(a.retSinfo, b.retSinfo) || fail(a.retSinfo.loc, b.retSinfo.loc, "return types differ");
  }

  const std::optional<GraphDifference> &difference() const { return difference_; }

private:
  bool fail(SourceLoc a, SourceLoc b, std::string what) {
    if (explain_ && !difference_) difference_ = GraphDifference{std::move(what), {a, bindingA_}, {b, bindingB_}};
    return false;
  }

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
    if (a.dtype != b.dtype || a.rank() != b.rank() || a.hasShape() != b.hasShape() || a.vdevice != b.vdevice)
      return false;
    if (!a.shape) return true;
    for (size_t i = 0; i < a.shape->size(); ++i)
      if (!dim((*a.shape)[i], (*b.shape)[i])) return false;
    return true;
  }

  bool structInfo(const StructInfo &a, const StructInfo &b) {
    if (a.kind != b.kind || !structInfo(a.tensor, b.tensor) || a.ndim != b.ndim ||
        a.values.has_value() != b.values.has_value() || a.dtype != b.dtype ||
        bool(a.value) != bool(b.value) || a.fields.size() != b.fields.size() ||
        bool(a.result) != bool(b.result) || a.opaque != b.opaque || a.pure != b.pure)
      return false;
    if (a.values)
      for (size_t i = 0; i < a.values->size(); ++i)
        if (!dim((*a.values)[i], (*b.values)[i])) return false;
    if (a.value && !dim(a.value, b.value)) return false;
    for (size_t i = 0; i < a.fields.size(); ++i)
      if (!structInfo(a.fields[i], b.fields[i])) return false;
    return !a.result || structInfo(*a.result, *b.result);
  }

  // `what` names the variable's role in the message: "parameter", "bound variable".
  bool define(const Var &a, const Var &b, const std::string &what) {
    if (a.dataflow != b.dataflow) return fail(a.loc, b.loc, what + " is a dataflow variable on one side only");
    if (!structInfo(a.sinfo, b.sinfo))
      return fail(a.sinfo.loc.isKnown() ? a.sinfo.loc : a.loc, b.sinfo.loc.isKnown() ? b.sinfo.loc : b.loc,
                  "struct info of " + what + " differs");
    vars_[&a] = &b;
    return true;
  }

  bool constant(const Constant &a, const Constant &b) {
    if (!structInfo(a.sinfo, b.sinfo) || bool(a.data) != bool(b.data)) return false;
    if (!a.data) return true;
    return a.data->dtype == b.data->dtype && a.data->shape == b.data->shape &&
           a.data->bytes == b.data->bytes;
  }

  // `what` names the argument's role in the message: "argument 2", "returned value".
  bool arg(const Arg &a, const Arg &b, const std::string &what) {
    bool same;
    if (a.fields || b.fields) {
      same = a.fields && b.fields && a.fields->size() == b.fields->size();
      for (size_t i = 0; same && i < a.fields->size(); ++i)
        if (!arg((*a.fields)[i], (*b.fields)[i], what + ", field " + std::to_string(i))) return false;
    } else if (a.prim || b.prim) {
      same = a.prim && b.prim && a.prim->dtype == b.prim->dtype && dim(a.prim, b.prim);
    } else if (a.shape || b.shape) {
      same = a.shape && b.shape && a.shape->size() == b.shape->size();
      for (size_t i = 0; same && i < a.shape->size(); ++i) same = dim((*a.shape)[i], (*b.shape)[i]);
    } else if (a.text || b.text || a.dtypeValue || b.dtypeValue || a.isNone() || b.isNone()) {
      same = a.text == b.text && a.dtypeValue == b.dtypeValue && a.isNone() == b.isNone();
    } else if (a.moduleFunction || b.moduleFunction) {
      same = a.moduleFunction && b.moduleFunction && a.moduleFunction->name == b.moduleFunction->name;
    } else if (a.var && b.var) {
      auto it = vars_.find(a.var.get());
      same = it != vars_.end() && it->second == b.var.get();
    } else {
      same = !a.var && !b.var && constant(*a.constant, *b.constant);
    }
    return same || fail(a.loc, b.loc, what + " differs");
  }

  bool call(const Call &a, const Call &b, SourceLoc atA, SourceLoc atB) {
    if (a.kind != b.kind) return fail(atA, atB, "call kinds differ");
    if (a.moduleCallee != b.moduleCallee) return fail(a.calleeLoc, b.calleeLoc, "callees differ (" + a.callee + " vs " + b.callee + ")");
    if (a.kind == CallKind::Function && !a.moduleCallee) {
      // A local function is matched as a variable, whatever its name.
      auto it = vars_.find(a.calleeVar.get());
      if (it == vars_.end() || it->second != b.calleeVar.get())
        return fail(a.calleeLoc, b.calleeLoc, "callees differ (" + a.callee + " vs " + b.callee + ")");
    } else if (a.callee != b.callee) {
      return fail(a.calleeLoc, b.calleeLoc, "callees differ (" + a.callee + " vs " + b.callee + ")");
    }
    if (a.inplaceIndices != b.inplaceIndices) return fail(atA, atB, "inplace_indices differ");
    if (a.sinfoArgs.size() != b.sinfoArgs.size()) return fail(atA, atB, "sinfo_args differ");
    for (size_t i = 0; i < a.sinfoArgs.size(); ++i)
      if (!structInfo(a.sinfoArgs[i], b.sinfoArgs[i])) return fail(a.sinfoArgs[i].loc, b.sinfoArgs[i].loc, "sinfo_args differ");
    if (a.args.size() != b.args.size()) return fail(atA, atB, "argument counts differ");
    if (a.axes != b.axes || a.keepdims != b.keepdims || a.outDtype != b.outDtype || !(a.attrs == b.attrs))
      return fail(atA, atB, "operator attributes differ");
    for (size_t i = 0; i < a.args.size(); ++i)
      if (!arg(a.args[i], b.args[i], "argument " + std::to_string(i + 1))) return false;
    if (!arg(a.tirVars, b.tirVars, "tir_vars")) return false;
    return structInfo(a.outputSinfo(), b.outputSinfo()) || fail(a.outSinfo.loc, b.outSinfo.loc, "output struct info differs");
  }

  bool binding(const Binding &a, const Binding &b) {
    bindingA_ = &a;
    bindingB_ = &b;
    if (bool(a.call) != bool(b.call) || bool(a.tuple) != bool(b.tuple) || a.index != b.index ||
        bool(a.matchCast) != bool(b.matchCast) || bool(a.ifElse) != bool(b.ifElse) ||
        bool(a.function) != bool(b.function))
      return fail(a.loc, b.loc, "the bound values are of different kinds");
    bool same;
    if (a.ifElse) {
      same = arg(a.ifElse->condition, b.ifElse->condition, "if condition") &&
             branch(a.ifElse->thenBranch, b.ifElse->thenBranch, "if branch") &&
             branch(a.ifElse->elseBranch, b.ifElse->elseBranch, "else branch");
      bindingA_ = &a;
      bindingB_ = &b;
    } else if (a.function) {
      const RelaxFunction *fa = asRelaxFunction(a.function), *fb = asRelaxFunction(b.function);
      same = function(*fa, *fb);
      bindingA_ = &a;
      bindingB_ = &b;
    } else if (a.call) {
      same = call(*a.call, *b.call, a.loc, b.loc);
    } else if (a.tuple) {
      same = a.tuple->size() == b.tuple->size() || fail(a.loc, b.loc, "tuple sizes differ");
      for (size_t i = 0; same && i < a.tuple->size(); ++i)
        same = arg((*a.tuple)[i], (*b.tuple)[i], "tuple field " + std::to_string(i));
    } else {
      same = arg(a.alias, b.alias, a.index ? "indexed tuple" : a.matchCast ? "cast value" : "aliased value");
      if (same && a.matchCast && !structInfo(*a.matchCast, *b.matchCast))
        same = fail(a.matchCast->loc, b.matchCast->loc, "R.match_cast struct info differs");
    }
    if (!same || !define(*a.var, *b.var, "bound variable")) return false;
    bindingA_ = bindingB_ = nullptr;
    return true;
  }

  bool branch(const IfBranch &a, const IfBranch &b, const std::string &what) {
    if (!blocks(a.blocks, b.blocks, a.loc, b.loc)) return false;
    return arg(a.result, b.result, "value of the " + what);
  }

  bool blocks(const std::vector<BindingBlock> &a, const std::vector<BindingBlock> &b, SourceLoc atA, SourceLoc atB) {
    size_t common = std::min(a.size(), b.size());
    for (size_t i = 0; i < common; ++i)
      if (!block(a[i], b[i])) return false;
    if (a.size() == b.size()) return true;
    const BindingBlock &extra = (a.size() > b.size() ? a : b)[common];
    SourceLoc at = extra.bindings.empty() ? extra.loc : extra.bindings.front().loc;
    return a.size() > b.size() ? fail(at, atB, "binding block on the left side only")
                               : fail(atA, at, "binding block on the right side only");
  }

  bool block(const BindingBlock &a, const BindingBlock &b) {
    if (a.dataflow != b.dataflow) return fail(a.loc, b.loc, "one block is a dataflow block, the other not");
    size_t common = std::min(a.bindings.size(), b.bindings.size());
    for (size_t i = 0; i < common; ++i)
      if (!binding(a.bindings[i], b.bindings[i])) return false;
    if (a.bindings.size() == b.bindings.size()) return true;
    // The other side is shown at its last binding of the block, after which the extra one
    // would come.
    bool extraOnLeft = a.bindings.size() > b.bindings.size();
    const Binding *extra = &(extraOnLeft ? a : b).bindings[common];
    const BindingBlock &shorter = extraOnLeft ? b : a;
    const Binding *last = common ? &shorter.bindings[common - 1] : nullptr;
    SourceLoc lastLoc = last ? last->loc : shorter.loc;
    bindingA_ = extraOnLeft ? extra : last;
    bindingB_ = extraOnLeft ? last : extra;
    fail(extraOnLeft ? extra->loc : lastLoc, extraOnLeft ? lastLoc : extra->loc,
         extraOnLeft ? "binding on the left side only" : "binding on the right side only");
    if (difference_) (extraOnLeft ? difference_->rhs : difference_->lhs).missing = true;
    return false;
  }

  bool explain_;
  std::optional<GraphDifference> difference_;
  std::unordered_map<const Node *, const Node *> sizes_;
  std::unordered_map<const Var *, const Var *> vars_;
  // The bindings being compared, for reporting where a difference lies.
  const Binding *bindingA_ = nullptr, *bindingB_ = nullptr;
};

}  // namespace

bool structuralEqual(const RelaxFunction &a, const RelaxFunction &b) {
  return RelaxComparer(/*explain=*/false).function(a, b);
}

std::optional<GraphDifference> findStructuralDifference(const RelaxFunction &a, const RelaxFunction &b) {
  RelaxComparer comparer(/*explain=*/true);
  if (comparer.function(a, b)) return std::nullopt;
  return comparer.difference() ? comparer.difference() : GraphDifference{"functions differ", {a.loc()}, {b.loc()}};
}

}  // namespace vtac::ir::relax
