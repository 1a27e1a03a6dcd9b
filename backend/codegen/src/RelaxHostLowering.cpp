#include "vtac/codegen/RelaxHostLowering.h"

#include <unordered_map>

#include "vtac/codegen/EntryChecks.h"
#include "vtac/ir/Diagnostic.h"

namespace vtac::codegen {

namespace {

using ir::DataType;
namespace relax = ir::relax;

// "env.linear" -> "env_linear": the C symbol a registered function name stands for.
std::string linkSymbol(const std::string &name) {
  std::string symbol;
  for (char c : name) symbol += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return symbol;
}

// A buffer describing a graph tensor of known shape and dtype (for the entry checks).
llvm::Expected<ir::BufferRef> tensorBuffer(const std::string &name, const relax::TensorStructInfo &sinfo,
                                           ir::SourceLoc loc) {
  if (!sinfo.hasShape() || sinfo.dtype.isVoid())
    return ir::diagnosticError(loc, "'" + name + "' needs a known shape and dtype to be compiled");
  return ir::makeBuffer(name, sinfo.dtype, *sinfo.shape, "global", loc);
}

class GraphLowering {
public:
  GraphLowering(const ir::RelaxFunction &func, HostFunction &function, const std::map<std::string, std::string> &primFuncs)
      : func_(func), function_(function), primFuncs_(primFuncs) {}

  llvm::Expected<ir::Stmt> run() {
    for (const relax::VarPtr &param : func_.params) {
      auto buffer = tensorBuffer(param->name, param->sinfo, param->loc);
      if (!buffer) return buffer.takeError();
      HostParam host{ir::makeVar(param->name, DataType::handle(), param->loc), *buffer, false, false};
      function_.params.push_back(host);
      tensors_[param.get()] = host.var;
    }
    for (const relax::Arg &result : func_.results) {
      if (!result.var) return ir::diagnosticError(result.loc, "returning a constant cannot be compiled");
      if (tensors_.count(result.var.get()))
        return ir::diagnosticError(result.loc, "returning the parameter '" + result.var->name + "' cannot be compiled");
      auto buffer = tensorBuffer(result.var->name, result.var->sinfo, result.loc);
      if (!buffer) return buffer.takeError();
      HostParam host{ir::makeVar(result.var->name, DataType::handle(), result.loc), *buffer, false, false};
      function_.params.push_back(host);
      destinations_[result.var.get()] = host.var;
    }
    std::vector<const relax::Binding *> bindings;
    for (const relax::BindingBlock &block : func_.blocks)
      for (const relax::Binding &binding : block.bindings) bindings.push_back(&binding);
    auto body = lowerFrom(bindings, 0);
    if (!body) return body.takeError();
    return bindParameters(function_, *body);
  }

private:
  // The statement running bindings[i...] (each binding wraps the ones after it).
  llvm::Expected<ir::Stmt> lowerFrom(const std::vector<const relax::Binding *> &bindings, size_t i) {
    if (i == bindings.size()) return ir::make<ir::Evaluate>(ir::intImm(0));
    const relax::Binding &binding = *bindings[i];
    if (!binding.call) {
      if (destinations_.count(binding.var.get()))
        return ir::diagnosticError(binding.loc, "returning the alias '" + binding.var->name + "' cannot be compiled");
      auto source = tensorOf(binding.alias);
      if (!source) return source.takeError();
      tensors_[binding.var.get()] = ir::cast<ir::Var>(*source);
      return lowerFrom(bindings, i + 1);
    }
    const relax::Call &call = *binding.call;
    std::vector<ir::Expr> args{ir::make<ir::StringImm>(calleeSymbol(call))};
    for (const relax::Arg &arg : call.args) {
      auto tensor = tensorOf(arg);
      if (!tensor) return tensor.takeError();
      args.push_back(*tensor);
    }
    // The output: the caller's destination for a returned variable, else a new tensor.
    ir::VarRef output;
    ir::VarRef data;
    std::vector<ir::Expr> extents;
    if (auto found = destinations_.find(binding.var.get()); found != destinations_.end()) {
      output = found->second;
    } else {
      auto buffer = tensorBuffer(binding.var->name + "_data", binding.var->sinfo, binding.loc);
      if (!buffer) return buffer.takeError();
      data = (*buffer)->data;
      extents = (*buffer)->shape;
      output = ir::makeVar(binding.var->name, DataType::handle(), binding.loc);
    }
    tensors_[binding.var.get()] = output;
    args.push_back(output);
    auto rest = lowerFrom(bindings, i + 1);
    if (!rest) return rest.takeError();
    ir::Stmt body = ir::seq({ir::make<ir::Evaluate>(ir::make<ir::Call>(DataType::int32(), hostop::kCallChecked,
                                                                       std::move(args), binding.loc)),
                             *rest});
    if (!data) return body;
    DataType dtype = binding.var->sinfo.dtype;
    std::vector<ir::Expr> make{data, ir::intImm(dtype.isFloat() ? 2 : dtype.isInt() ? 0 : 1),
                               ir::intImm(dtype.bits()), ir::intImm(dtype.lanes())};
    make.insert(make.end(), extents.begin(), extents.end());
    body = ir::make<ir::LetStmt>(output, ir::make<ir::Call>(DataType::handle(), hostop::kMakeTensor, make), body,
                                 binding.loc);
    return ir::Stmt(ir::make<ir::Allocate>(data, dtype, extents, nullptr, body, ir::AttrMap{}, binding.loc));
  }

  llvm::Expected<ir::Expr> tensorOf(const relax::Arg &arg) {
    if (!arg.var) return ir::diagnosticError(arg.loc, "constants (bound parameters) cannot be compiled yet");
    auto found = tensors_.find(arg.var.get());
    if (found == tensors_.end()) return ir::diagnosticError(arg.loc, "'" + arg.var->name + "' is used before it is computed");
    return ir::Expr(found->second);
  }

  std::string calleeSymbol(const relax::Call &call) const {
    auto found = primFuncs_.find(call.callee);
    return found != primFuncs_.end() ? found->second : linkSymbol(call.callee);
  }

  const ir::RelaxFunction &func_;
  HostFunction &function_;
  const std::map<std::string, std::string> &primFuncs_;
  std::unordered_map<const relax::Var *, ir::VarRef> tensors_;       // graph variable -> its DLTensor
  std::unordered_map<const relax::Var *, ir::VarRef> destinations_;  // returned variable -> output
};

}  // namespace

llvm::Expected<HostFunction> lowerRelaxForHost(const ir::RelaxFunction &func, const std::string &name,
                                               const std::string &symbol,
                                               const std::map<std::string, std::string> &primFuncs) {
  HostFunction function;
  function.name = name;
  function.symbol = symbol;
  function.graph = true;
  function.loc = func.loc();
  auto body = GraphLowering(func, function, primFuncs).run();
  if (!body) return body.takeError();
  function.body = *body;
  return function;
}

}  // namespace vtac::codegen
