// relax.transform.BindParams: parameters become constants, the sizes their data fixes are
// substituted everywhere in the function.
#include "vtac/ir/Relax.h"

#include <functional>

namespace vtac::ir::relax {

namespace {

TensorStructInfo sinfoOfData(const TensorData &data, SourceLoc loc) {
  std::vector<Expr> dims;
  for (int64_t d : data.shape) dims.push_back(intImm(d, DataType::int64()));
  return TensorStructInfo::known(std::move(dims), data.dtype, loc);
}

}  // namespace

RelaxFunctionRef
bindParams(const RelaxFunction &func,
           const std::vector<std::pair<std::string, std::shared_ptr<const TensorData>>> &params,
           RelaxDiagnostic &diagnostic) {
  // Step 1: which parameters become constants, and what sizes their data fixes.
  ShapeBindings shapes;
  std::unordered_map<const Var *, ConstantPtr> constants;
  for (const VarPtr &param : func.params) {
    auto it = std::find_if(params.begin(), params.end(),
                           [&](const auto &entry) { return entry.first == param->name; });
    if (it == params.end()) continue;
    const TensorData &data = *it->second;
    if (!param->sinfo.isTensor()) {
      diagnostic = {param->sinfo.loc, "parameter '" + param->name + "' is " + printStructInfo(param->sinfo) +
                                          ", not a tensor: no data can be bound to it"};
      return nullptr;
    }
    const TensorStructInfo &declared = param->sinfo.tensor;
    if (!declared.dtype.isVoid() && declared.dtype != data.dtype) {
      diagnostic = {declared.loc, "parameter '" + param->name + "' is declared " +
                                          declared.dtype.str() + " but the bound data is " +
                                          data.dtype.str()};
      return nullptr;
    }
    if (std::optional<std::string> conflict = unifyShape(declared, data.shape, shapes)) {
      diagnostic = {declared.loc,
                    "bound data for parameter '" + param->name + "' does not fit: " + *conflict};
      return nullptr;
    }
    auto constant = std::make_shared<Constant>();
    constant->sinfo = sinfoOfData(data, param->loc);
    constant->data = it->second;
    constant->loc = param->loc;
    constants.emplace(param.get(), std::move(constant));
  }

  // Step 2: rebuild the function with the sizes substituted and uses of bound params replaced.
  std::unordered_map<const Var *, VarPtr> renamed;
  auto cloneVar = [&](const VarPtr &var) {
    auto copy = std::make_shared<Var>(*var);
    copy->sinfo = substitute(var->sinfo, shapes);
    renamed.emplace(var.get(), copy);
    return copy;
  };
  std::function<Arg(const Arg &)> mapArg = [&](const Arg &arg) {
    Arg result = arg;
    if (arg.fields) {
      auto fields = std::make_shared<std::vector<Arg>>();
      for (const Arg &field : *arg.fields) fields->push_back(mapArg(field));
      result.fields = std::move(fields);
    }
    if (!arg.var) return result;
    if (auto c = constants.find(arg.var.get()); c != constants.end()) {
      result.var = nullptr;
      result.constant = c->second;
    } else if (auto r = renamed.find(arg.var.get()); r != renamed.end()) {
      result.var = r->second;
    }
    return result;
  };

  std::vector<VarPtr> newParams;
  for (const VarPtr &param : func.params)
    if (!constants.count(param.get())) newParams.push_back(cloneVar(param));
  std::vector<VarRef> newSymbolic;
  for (const VarRef &sym : func.symbolicVars)
    if (!shapes.count(sym)) newSymbolic.push_back(sym);
  std::vector<BindingBlock> newBlocks;
  for (const BindingBlock &block : func.blocks) {
    BindingBlock copy = block;
    for (Binding &binding : copy.bindings) {
      if (binding.call) {
        for (Arg &arg : binding.call->args) arg = mapArg(arg);
        binding.call->outSinfo = substitute(binding.call->outSinfo, shapes);
        for (TensorStructInfo &output : binding.call->tupleOutSinfo) output = substitute(output, shapes);
      } else {
        binding.alias = mapArg(binding.alias);
        if (binding.tuple)
          for (Arg &field : *binding.tuple) field = mapArg(field);
        if (binding.matchCast) binding.matchCast = substitute(*binding.matchCast, shapes);
      }
      binding.var = cloneVar(binding.var);
    }
    newBlocks.push_back(std::move(copy));
  }
  std::vector<Arg> newResults;
  for (const Arg &result : func.results) newResults.push_back(mapArg(result));
  auto *bound = new RelaxFunction(std::move(newParams), std::move(newSymbolic), std::move(newBlocks),
                                  std::move(newResults), func.resultIsTuple, substitute(func.retSinfo, shapes),
                                  func.attrs, func.loc());
  bound->isPrivate = func.isPrivate;
  bound->isPure = func.isPure;
  return RelaxFunctionRef(bound);
}

}  // namespace vtac::ir::relax
