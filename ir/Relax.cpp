// Relax IR helpers: struct info construction, symbolic shape evaluation, unification and
// comparison.
#include "vtac/ir/Relax.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "vtac/ir/Arith.h"

namespace vtac::ir {

const RelaxFunction *asRelaxFunction(const FunctionRef &function) {
  if (!function || function->kind() != NodeKind::RelaxFunction) return nullptr;
  return static_cast<const RelaxFunction *>(function.get());
}

bool moduleHasRelaxFunction(const IRModule &module) {
  for (const IRModule::Entry &entry : module.functions())
    if (asRelaxFunction(entry.function)) return true;
  return false;
}

namespace relax {

TensorStructInfo TensorStructInfo::known(std::vector<Expr> dims, DataType dtype, SourceLoc loc) {
  TensorStructInfo sinfo;
  sinfo.ndim = int(dims.size());
  sinfo.shape = std::move(dims);
  sinfo.dtype = dtype;
  sinfo.loc = loc;
  return sinfo;
}

std::optional<int64_t> evaluateDim(const Expr &dim, const ShapeBindings &bindings) {
  if (const auto *imm = dim.as<IntImm>()) return imm->value;
  if (dim.isa<ir::Var>()) {
    auto it = bindings.find(cast<ir::Var>(dim));
    if (it == bindings.end()) return std::nullopt;
    return it->second;
  }
  const auto *bin = dim.as<BinaryExpr>();
  if (!bin) return std::nullopt;
  std::optional<int64_t> a = evaluateDim(bin->a, bindings), b = evaluateDim(bin->b, bindings);
  if (!a || !b) return std::nullopt;
  // Overflow and division by zero leave the dimension unknown.
  return exactIntArith(bin->kind(), *a, *b);
}

std::string whyNoSize(const Expr &dim, const ShapeBindings &bindings) {
  if (std::optional<int64_t> value = evaluateDim(dim, bindings)) return "it is " + std::to_string(*value);
  std::function<const ir::Var *(const Expr &)> unbound = [&](const Expr &e) -> const ir::Var * {
    if (const auto *var = e.as<ir::Var>()) return bindings.count(cast<ir::Var>(e)) ? nullptr : var;
    if (const auto *bin = e.as<BinaryExpr>()) {
      if (const ir::Var *found = unbound(bin->a)) return found;
      return unbound(bin->b);
    }
    return nullptr;
  };
  if (const ir::Var *var = unbound(dim)) return "'" + var->name + "' is not known from the inputs";
  if (!dim.as<BinaryExpr>()) return "it is not an integer expression";
  return "it overflows 64-bit integers or divides by zero";
}

std::optional<std::string> unifyShape(const TensorStructInfo &declared,
                                      llvm::ArrayRef<int64_t> actual, ShapeBindings &bindings) {
  if (declared.rank() >= 0 && size_t(declared.rank()) != actual.size())
    return "rank " + std::to_string(actual.size()) + " does not match the declared rank " +
           std::to_string(declared.rank());
  if (!declared.shape) return std::nullopt;
  // Whole-dimension variables bind first, so `(n, n * 2)` checks the second against the first.
  for (size_t i = 0; i < actual.size(); ++i) {
    const Expr &dim = (*declared.shape)[i];
    if (!dim.isa<ir::Var>()) continue;
    VarRef var = cast<ir::Var>(dim);
    auto [it, inserted] = bindings.emplace(var, actual[i]);
    if (!inserted && it->second != actual[i])
      return "dimension " + std::to_string(i) + " is " + std::to_string(actual[i]) + " but '" +
             var->name + "' is " + std::to_string(it->second);
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    const Expr &dim = (*declared.shape)[i];
    if (dim.isa<ir::Var>()) continue;
    std::optional<int64_t> expected = evaluateDim(dim, bindings);
    if (expected && *expected != actual[i])
      return "dimension " + std::to_string(i) + " is " + std::to_string(actual[i]) +
             " but the declared size is " + std::to_string(*expected);
  }
  return std::nullopt;
}

bool dimsConflict(const Expr &a, const Expr &b) {
  const auto *ia = a.as<IntImm>(), *ib = b.as<IntImm>();
  if (ia && ib) return ia->value != ib->value;
  if (a.isa<ir::Var>() && b.isa<ir::Var>()) return a != b;
  return false;
}

std::optional<std::string> structInfoConflict(const TensorStructInfo &declared,
                                              const TensorStructInfo &actual) {
  if (!declared.dtype.isVoid() && !actual.dtype.isVoid() && declared.dtype != actual.dtype)
    return "element type " + actual.dtype.str() + " does not match " + declared.dtype.str();
  if (declared.rank() >= 0 && actual.rank() >= 0 && declared.rank() != actual.rank())
    return "rank " + std::to_string(actual.rank()) + " does not match " +
           std::to_string(declared.rank());
  // A device on one side only is no conflict (an annotation may place a value, as TVM's).
  if (!declared.vdevice.empty() && !actual.vdevice.empty() && declared.vdevice != actual.vdevice)
    return "virtual device " + actual.vdevice + " does not match " + declared.vdevice;
  if (!declared.shape || !actual.shape) return std::nullopt;
  for (size_t i = 0; i < declared.shape->size(); ++i)
    if (dimsConflict((*declared.shape)[i], (*actual.shape)[i]))
      return "dimension " + std::to_string(i) + " is " + printDim((*actual.shape)[i]) +
             " where " + printDim((*declared.shape)[i]) + " is expected";
  return std::nullopt;
}

namespace {

const char *kindName(StructInfo::Kind kind) {
  switch (kind) {
  case StructInfo::Kind::Tensor: return "R.Tensor";
  case StructInfo::Kind::Tuple: return "R.Tuple";
  case StructInfo::Kind::Shape: return "R.Shape";
  case StructInfo::Kind::Prim: return "R.Prim";
  case StructInfo::Kind::Object: return "R.Object";
  case StructInfo::Kind::Callable: return "R.Callable";
  }
  return "?";
}

void substituteDims(std::vector<Expr> &dims, const ShapeBindings &bindings) {
  for (Expr &dim : dims)
    if (std::optional<int64_t> value = evaluateDim(dim, bindings); value && !dim.isa<IntImm>())
      dim = intImm(*value, DataType::int64(), dim->loc());
}

}  // namespace

std::optional<std::string> structInfoConflict(const StructInfo &declared, const StructInfo &actual) {
  using Kind = StructInfo::Kind;
  if (declared.kind == Kind::Object) return std::nullopt;
  if (declared.kind != actual.kind)
    return std::string("a value of ") + kindName(actual.kind) + " where " + kindName(declared.kind) +
           " is expected";
  switch (declared.kind) {
  case Kind::Tensor: return structInfoConflict(declared.tensor, actual.tensor);
  case Kind::Tuple:
    if (declared.fields.size() != actual.fields.size())
      return "a tuple of " + std::to_string(actual.fields.size()) + " fields where " +
             std::to_string(declared.fields.size()) + " are expected";
    for (size_t i = 0; i < declared.fields.size(); ++i)
      if (std::optional<std::string> conflict = structInfoConflict(declared.fields[i], actual.fields[i]))
        return "field " + std::to_string(i) + ": " + *conflict;
    return std::nullopt;
  case Kind::Shape: {
    TensorStructInfo a, b;  // a shape's values compare as a tensor's dimensions do
    a.shape = declared.values, a.ndim = declared.ndim;
    b.shape = actual.values, b.ndim = actual.ndim;
    return structInfoConflict(a, b);
  }
  case Kind::Prim:
    if (!declared.dtype.isVoid() && !actual.dtype.isVoid() && declared.dtype != actual.dtype)
      return "type " + actual.dtype.str() + " does not match " + declared.dtype.str();
    return std::nullopt;
  default: return std::nullopt;
  }
}

TensorStructInfo substitute(const TensorStructInfo &sinfo, const ShapeBindings &bindings) {
  TensorStructInfo result = sinfo;
  if (result.shape) substituteDims(*result.shape, bindings);
  return result;
}

namespace {

bool sameDim(const Expr &a, const Expr &b) {
  if (a->kind() != b->kind()) return false;
  if (const auto *ia = a.as<IntImm>()) return ia->value == b.as<IntImm>()->value;
  if (a.isa<ir::Var>()) return a == b;
  const auto *ba = a.as<BinaryExpr>(), *bb = b.as<BinaryExpr>();
  return ba && sameDim(ba->a, bb->a) && sameDim(ba->b, bb->b);
}

bool sameDims(const std::optional<std::vector<Expr>> &a, const std::optional<std::vector<Expr>> &b) {
  if (!a || !b || a->size() != b->size()) return false;
  for (size_t i = 0; i < a->size(); ++i)
    if (!sameDim((*a)[i], (*b)[i])) return false;
  return true;
}

}  // namespace

std::vector<TensorStructInfo> Call::outputs() const {
  return tupleOutSinfo.empty() ? std::vector<TensorStructInfo>{outSinfo} : tupleOutSinfo;
}

StructInfo Call::outputSinfo() const {
  if (tupleOutSinfo.empty()) return StructInfo(outSinfo);
  StructInfo tuple = StructInfo::of(StructInfo::Kind::Tuple, outSinfo.loc);
  for (const TensorStructInfo &field : tupleOutSinfo) tuple.fields.push_back(StructInfo(field));
  return tuple;
}

std::string callKindName(CallKind kind) {
  switch (kind) {
  case CallKind::CallTIR: return "R.call_tir";
  case CallKind::CallDPSPacked: return "R.call_dps_packed";
  case CallKind::Operator: return "a high-level operator";
  case CallKind::CallTIRInplace: return "R.call_tir_inplace";
  case CallKind::CallPacked: return "R.call_packed";
  case CallKind::CallPurePacked: return "R.call_pure_packed";
  case CallKind::Function: return "calling a Relax function";
  case CallKind::Builtin: return "a VM builtin";
  }
  return "?";
}

StructInfo structInfoUnion(const StructInfo &a, const StructInfo &b) {
  using Kind = StructInfo::Kind;
  if (a.kind != b.kind) return StructInfo::of(Kind::Object, a.loc);
  StructInfo result = a;
  switch (a.kind) {
  case Kind::Tensor: {
    TensorStructInfo &tensor = result.tensor;
    if (a.tensor.dtype != b.tensor.dtype) tensor.dtype = DataType();
    if (a.tensor.rank() != b.tensor.rank()) tensor.ndim = -1;
    if (!sameDims(a.tensor.shape, b.tensor.shape)) tensor.shape.reset();
    if (a.tensor.vdevice != b.tensor.vdevice) tensor.vdevice.clear();
    break;
  }
  case Kind::Tuple:
    if (a.fields.size() != b.fields.size()) return StructInfo::of(Kind::Object, a.loc);
    for (size_t i = 0; i < a.fields.size(); ++i) result.fields[i] = structInfoUnion(a.fields[i], b.fields[i]);
    break;
  case Kind::Shape:
    if (a.ndim != b.ndim) result.ndim = -1;
    if (!sameDims(a.values, b.values)) result.values.reset();
    break;
  case Kind::Prim:
    if (a.dtype != b.dtype) return StructInfo::of(Kind::Object, a.loc);
    if (!a.value || !b.value || !sameDim(a.value, b.value)) result.value = Expr();
    break;
  case Kind::Callable:
    // Functions are not compared (see structInfoConflict): the opaque callable of both.
    result = StructInfo::of(Kind::Callable, a.loc);
    result.opaque = true;
    result.pure = a.pure && b.pure;
    break;
  case Kind::Object: break;
  }
  return result;
}

void forEachBinding(const std::vector<BindingBlock> &blocks, const std::function<void(const Binding &)> &visit) {
  for (const BindingBlock &block : blocks)
    for (const Binding &binding : block.bindings) {
      visit(binding);
      if (binding.ifElse) {
        forEachBinding(binding.ifElse->thenBranch.blocks, visit);
        forEachBinding(binding.ifElse->elseBranch.blocks, visit);
      }
      if (const RelaxFunction *inner = asRelaxFunction(binding.function)) forEachBinding(inner->blocks, visit);
    }
}

void forEachVarRead(const Arg &arg, const std::function<void(const VarPtr &)> &visit) {
  if (arg.var) visit(arg.var);
  if (arg.fields)
    for (const Arg &field : *arg.fields) forEachVarRead(field, visit);
}

StructInfo substitute(const StructInfo &sinfo, const ShapeBindings &bindings) {
  StructInfo result = sinfo;
  result.tensor = substitute(sinfo.tensor, bindings);
  if (result.values) substituteDims(*result.values, bindings);
  if (result.value) {
    std::vector<Expr> value{result.value};
    substituteDims(value, bindings);
    result.value = value.front();
  }
  for (StructInfo &field : result.fields) field = substitute(field, bindings);
  if (result.result) result.result = std::make_shared<const StructInfo>(substitute(*result.result, bindings));
  return result;
}

bool returnsVoid(const Call &call) {
  if (!call.sinfoArgs.empty()) return isVoid(call.sinfoArgs.front());
  return call.kind == CallKind::Function && call.calleeVar && call.calleeVar->sinfo.result &&
         isVoid(*call.calleeVar->sinfo.result);
}

StructInfo Arg::sinfo() const {
  if (var) return var->sinfo;
  if (moduleFunction) return moduleFunction->sinfo;
  if (constant) return StructInfo(constant->sinfo);
  if (prim) {
    StructInfo scalar = StructInfo::of(StructInfo::Kind::Prim, loc);
    scalar.dtype = prim->dtype;
    // R.Prim(value=..) holds int64 sizes only (see the parser's R.Prim).
    if (prim->dtype == DataType::int64()) scalar.value = prim;
    return scalar;
  }
  if (shape) {
    StructInfo value = StructInfo::of(StructInfo::Kind::Shape, loc);
    value.values = *shape;
    value.ndim = int(shape->size());
    return value;
  }
  // TVM's StringImm and DataTypeImm are objects.
  if (!fields) return StructInfo::of(StructInfo::Kind::Object, loc);
  StructInfo tuple = StructInfo::of(StructInfo::Kind::Tuple, loc);
  for (const Arg &field : *fields) tuple.fields.push_back(field.sinfo());
  return tuple;
}

std::optional<RelaxDiagnostic> firstUnsupported(const RelaxFunction &func, llvm::StringRef what, bool graphExecutor) {
  auto refuse = [&](const Var &var) -> std::optional<RelaxDiagnostic> {
    if (var.sinfo.isTensor()) return std::nullopt;
    return RelaxDiagnostic{var.sinfo.loc.isKnown() ? var.sinfo.loc : var.loc,
                           what.str() + " supports tensors only: '" + var.name + "' is " +
                               printStructInfo(var.sinfo)};
  };
  for (const VarPtr &param : func.params)
    if (auto diagnostic = refuse(*param)) return diagnostic;
  // The graph executor and vtac compile keep a tuple of tensors as its fields' tensors: the value
  // of a call of several outputs, a tuple of tensors written out, an alias of one; `t[i]` is a field.
  std::unordered_set<const Var *> tensorTuples;
  auto isTensorTuple = [&](const Binding &binding) {
    if (binding.call) return !binding.call->tupleOutSinfo.empty();
    if (binding.tuple)
      return std::all_of(binding.tuple->begin(), binding.tuple->end(),
                         [](const Arg &field) { return !field.fields && field.sinfo().isTensor(); });
    return binding.isAlias() && binding.alias.var && tensorTuples.count(binding.alias.var.get());
  };
  std::function<std::optional<RelaxDiagnostic>(const std::vector<BindingBlock> &)> firstIn =
      [&](const std::vector<BindingBlock> &blocks) -> std::optional<RelaxDiagnostic> {
    for (const BindingBlock &block : blocks)
      for (const Binding &binding : block.bindings) {
        if (const RelaxFunction *inner = asRelaxFunction(binding.function)) {
          if (!graphExecutor)
            return RelaxDiagnostic{binding.loc, "a local function is not supported by " + what.str() + " yet: '" +
                                                    binding.var->name + "'"};
          // The graph executor runs a local function inlined at each call, in the enclosing
          // function's sizes: its parameters are tensors and it declares no sizes of its own.
          for (const VarPtr &param : inner->params)
            if (auto diagnostic = refuse(*param)) return diagnostic;
          if (!inner->symbolicVars.empty())
            return RelaxDiagnostic{binding.loc, "a local function with symbolic sizes of its own is not supported by " +
                                                    what.str() + " yet: '" + binding.var->name + "'"};
          if (auto diagnostic = firstIn(inner->blocks)) return diagnostic;
          continue;
        }
        if (isTensorTuple(binding)) tensorTuples.insert(binding.var.get());
        else if (auto diagnostic = refuse(*binding.var)) return diagnostic;
        // An if's condition is a bool scalar tensor or an expression of the function's sizes
        // (`if n == 4:`, R.Prim("bool")), both evaluated when the graph runs; a variable of
        // R.Prim struct info is refused where it is bound.
        if (const IfElse *ifElse = binding.ifElse.get()) {
          for (const IfBranch *branch : {&ifElse->thenBranch, &ifElse->elseBranch})
            if (auto diagnostic = firstIn(branch->blocks)) return diagnostic;
        }
        if (binding.call && binding.call->kind == CallKind::CallDPSPacked)
          for (const TensorStructInfo &output : binding.call->outputs())
            if (output.dtype.isVoid())
              return RelaxDiagnostic{output.loc, what.str() + " needs the element type of every output: " +
                                                     printStructInfo(output) + " has none"};
        if (binding.call && binding.call->kind == CallKind::Builtin)
          return RelaxDiagnostic{binding.call->calleeLoc, "R." + binding.call->callee + " (" +
                                                              callKindName(CallKind::Builtin) + ") is not supported by " +
                                                              what.str() + " yet"};
        if (binding.call)
          for (const Arg &arg : binding.call->args)
            if (arg.prim || arg.shape || arg.text || arg.dtypeValue || arg.moduleFunction)
              return RelaxDiagnostic{arg.loc, what.str() + " supports tensors only: the argument is " +
                                                  printStructInfo(arg.sinfo())};
        if (binding.call && !binding.call->tirVars.isNone() && !graphExecutor)
          return RelaxDiagnostic{binding.call->tirVars.loc, "tir_vars is not supported by " + what.str() + " yet"};
        if (binding.call && binding.call->kind == CallKind::Operator)
          return RelaxDiagnostic{binding.call->calleeLoc, what.str() + " runs R.call_tir and R.call_dps_packed only: legalize R." +
                                                              binding.call->callee + " first (--passes=legalize-ops)"};
        if ((binding.index && !(binding.alias.var && tensorTuples.count(binding.alias.var.get()))) || binding.matchCast)
          return RelaxDiagnostic{binding.loc, what.str() + " does not support " +
                                                  (binding.index ? "tuple indexing" : "R.match_cast") +
                                                  " yet: '" + binding.var->name + "'"};
        if (const std::optional<Call> &call = binding.call; call && (call->kind == CallKind::CallPacked ||
                                                                     call->kind == CallKind::CallPurePacked ||
                                                                     (call->kind == CallKind::CallTIRInplace && !graphExecutor) ||
                                                                     (call->kind == CallKind::Function &&
                                                                      (call->moduleCallee || !graphExecutor))))
          return RelaxDiagnostic{call->calleeLoc, callKindName(call->kind) + " is not supported by " + what.str() + " yet"};
      }
    return std::nullopt;
  };
  if (auto diagnostic = firstIn(func.blocks)) return diagnostic;
  if (func.resultIsTuple && func.results.empty())
    return RelaxDiagnostic{func.retSinfo.loc.isKnown() ? func.retSinfo.loc : func.loc(),
                           what.str() + " does not support returning an empty tuple yet"};
  // Each returned value is a parameter, a binding (checked above) or a nested tuple (not a
  // tensor, so refused here); the annotation may still ask for something else (R.Object).
  const StructInfo &ret = func.retSinfo;
  bool tensors = ret.isTensor() ||
                 (ret.kind == StructInfo::Kind::Tuple &&
                  std::all_of(ret.fields.begin(), ret.fields.end(), [](const StructInfo &f) { return f.isTensor(); }));
  if (!tensors)
    return RelaxDiagnostic{ret.loc.isKnown() ? ret.loc : func.loc(),
                           what.str() + " supports tensors only: the function returns " + printStructInfo(ret)};
  return std::nullopt;
}

}  // namespace relax
}  // namespace vtac::ir
