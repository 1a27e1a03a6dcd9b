#include "vtac/graph/GraphExecutor.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <optional>
#include <thread>
#include <unordered_map>

#include "vtac/backend/Diagnostic.h"
#include "vtac/func_registry.h"
#include "vtac/graph/BuiltinFunctions.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::graph {

namespace relax = ir::relax;
using backend::Tensor;

namespace {

std::string shapeText(const relax::TensorStructInfo &sinfo) { return relax::printStructInfo(sinfo); }

vtac_dtype toRegistryType(ir::DataType dtype) {
  vtac_dtype t;
  t.code = dtype.isFloat() ? VTAC_DTYPE_FLOAT
           : dtype.isUInt() ? VTAC_DTYPE_UINT
           : dtype.isBool() ? VTAC_DTYPE_BOOL
                            : VTAC_DTYPE_INT;
  t.bits = uint8_t(dtype.isBool() ? 8 : dtype.bits());  // Tensor stores a bool per byte
  t.lanes = uint16_t(dtype.lanes());
  return t;
}

// One binding, with its callee resolved and its variables mapped to slots; or the control
// flow of an if/else: Branch (to `jump`, the else branch, unless the bool scalar in argSlots[0]
// is true) and Jump (past the else branch). Each branch ends in an Alias of the If's variable
// to the branch's value.
struct Step {
  enum class Kind { PrimFunc, Registered, Alias, Branch, Jump };
  Kind kind;
  const relax::Binding *binding;
  size_t jump = 0;  // Branch, Jump: the step to go on at
  // PrimFunc of R.call_tir_inplace: the argument the output is written into (-1: none, an
  // output tensor of its own). The output is a copy of that argument, which the call then
  // updates: the same values as TVM's in-place update for every program that does not read
  // the argument afterwards (TVM's condition for call_tir_inplace).
  int inplaceArgument = -1;
  backend::PrimFuncEngine *prim = nullptr;
  vtac_packed_func function = nullptr;
  void *resource = nullptr;
  std::vector<int> argSlots;  // Alias: the source
  // The value's slot; a call of several outputs has one per output (its variable is a tuple).
  std::vector<int> outSlots;
  std::vector<int> releaseAfter;  // slots whose last use is this step
};

using CompileResult = llvm::Expected<std::unique_ptr<backend::PrimFuncEngine>>;

// compile(0) ... compile(count - 1) on up to `threads` threads (this one among them), each
// result at its index.
std::vector<std::optional<CompileResult>> compileEach(size_t count, unsigned threads,
                                                      const std::function<CompileResult(size_t)> &compile) {
  std::vector<std::optional<CompileResult>> results(count);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < count;) results[i].emplace(compile(i));
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < std::min<size_t>(threads, count); ++t) helpers.emplace_back(work);
  work();
  for (std::thread &helper : helpers) helper.join();
  return results;
}

// The value of an if's condition that is a bool scalar tensor; an empty or larger tensor is no
// condition.
llvm::Expected<bool> readCondition(const relax::Arg &condition, const Tensor &value) {
  if (value.shape().size() != 0 || value.dtype().bytes() != 1)
    return backend::diagnosticError(condition.loc, "the condition of an if must be a bool scalar, got a tensor of shape " +
                                                       backend::formatShape(value.shape()) + " and type " + value.dtype().str());
  return value.data()[0] != 0;
}

// The value of an if's condition on the function's sizes (`if n == 4:`) under their values.
llvm::Expected<bool> evaluateSizeCondition(const relax::Arg &condition, const relax::ShapeBindings &sizes) {
  ir::VarMap values;
  for (const auto &[var, value] : sizes) values[var.get()] = ir::intImm(value, var->dtype);
  ir::Expr folded = ir::simplify(ir::substitute(condition.prim, values));
  if (const auto *value = folded.as<ir::IntImm>()) return value->value != 0;
  std::string unknown;
  ir::preOrderVisit(folded, [&](const ir::Node &node) {
    if (const auto *var = node.as<ir::Var>(); var && unknown.empty()) unknown = var->name;
  });
  return backend::diagnosticError(condition.loc, "cannot evaluate the condition: " +
                                                     (unknown.empty() ? std::string("it does not evaluate to a constant")
                                                                      : "'" + unknown + "' is not known from the inputs"));
}

}  // namespace

struct GraphExecutor::Impl {
  const ir::IRModule *module = nullptr;
  const ir::RelaxFunction *func = nullptr;
  backend::PrimFuncCompiler compiler;
  unsigned compileThreads = 1;
  std::vector<GraphParam> params;
  std::vector<int> paramSlots;
  std::map<std::string, std::unique_ptr<backend::PrimFuncEngine>> compiled;
  std::vector<std::pair<int, std::shared_ptr<Tensor>>> constantSlots;
  std::vector<Step> steps;
  // The bindings of inlined local functions' parameters to their arguments (Alias steps point
  // at them; a deque keeps them in place).
  std::deque<relax::Binding> parameterBindings;
  std::vector<int> resultSlots;
  std::vector<std::string> resultNames;  // one per slot
  int numSlots = 0;
  GraphStats stats;
  int64_t liveBytes = 0;
  std::function<llvm::Error(const GraphCall &)> afterCall;

  llvm::Error prepare();
  llvm::Error compileCallees(const std::vector<std::pair<std::string, ir::PrimFuncRef>> &callees);
  llvm::Error bindCompiled();
  llvm::Error bindInputs(const NamedTensors &inputs, std::vector<std::shared_ptr<Tensor>> &slots,
                         relax::ShapeBindings &sizes);
  std::shared_ptr<Tensor> allocate(ir::DataType dtype, std::vector<int64_t> shape);
  llvm::Error callPrimFunc(const Step &step, std::vector<std::shared_ptr<Tensor>> &slots,
                           const relax::ShapeBindings &sizes);
  llvm::Error callRegistered(const Step &step, std::vector<std::shared_ptr<Tensor>> &slots);
};

llvm::Error GraphExecutor::Impl::prepare() {
  if (std::optional<relax::RelaxDiagnostic> refusal = relax::firstUnsupported(*func, "the graph executor", /*graphExecutor=*/true))
    return backend::diagnosticError(refusal->loc, refusal->message);
  std::unordered_map<const relax::Var *, int> varSlots;
  // A variable of several tensors (the value of a call of several outputs, a tuple of tensors,
  // an alias of one): its fields' slots.
  std::unordered_map<const relax::Var *, std::vector<int>> tupleSlots;
  std::unordered_map<const relax::Constant *, int> constantSlotOf;
  auto slotOf = [&](const relax::Arg &arg) -> llvm::Expected<int> {
    if (arg.var) return varSlots.at(arg.var.get());
    auto [it, inserted] = constantSlotOf.emplace(arg.constant.get(), numSlots);
    if (!inserted) return it->second;
    ++numSlots;
    const relax::Constant &constant = *arg.constant;
    if (!constant.data)
      return backend::diagnosticError(arg.loc, "this constant has no data (the metadata section "
                                               "was omitted); bind parameters with --params instead");
    const relax::TensorData &data = *constant.data;  // holds exactly its shape's bytes
    auto tensor = std::make_shared<Tensor>(data.dtype, data.shape, data.bytes);
    constantSlots.emplace_back(it->second, std::move(tensor));
    return it->second;
  };
  // The slots of a value: a tuple variable's fields, a tuple's (of tensors), else one.
  auto slotsOf = [&](const relax::Arg &arg) -> llvm::Expected<std::vector<int>> {
    if (arg.var && tupleSlots.count(arg.var.get())) return tupleSlots.at(arg.var.get());
    std::vector<int> slots;
    for (const relax::Arg &field : arg.fields ? *arg.fields : std::vector<relax::Arg>{arg}) {
      llvm::Expected<int> slot = slotOf(field);
      if (!slot) return slot.takeError();
      slots.push_back(*slot);
    }
    return slots;
  };

  for (const relax::VarPtr &param : func->params) {
    varSlots[param.get()] = numSlots;
    paramSlots.push_back(numSlots++);
    params.push_back({param->name, param->sinfo.tensor});
  }
  std::vector<int> lastUse;
  std::vector<std::pair<std::string, ir::PrimFuncRef>> callees;  // distinct, in call order
  auto use = [&](int slot, int step) {
    if (size_t(slot) >= lastUse.size()) lastUse.resize(slot + 1, -1);
    lastUse[slot] = std::max(lastUse[slot], step);
  };
  // The value `arg` gives binding.var (its slot already assigned): the If's variable at the end of
  // a branch, a local function's parameter or the value of a call of it.
  auto bindValue = [&](const relax::Binding &binding, const relax::Arg &arg) -> llvm::Error {
    Step step;
    step.kind = Step::Kind::Alias;
    step.binding = &binding;
    llvm::Expected<int> slot = slotOf(arg);
    if (!slot) return slot.takeError();
    step.argSlots.push_back(*slot);
    use(*slot, int(steps.size()));
    step.outSlots = {varSlots.at(binding.var.get())};
    steps.push_back(std::move(step));
    return llvm::Error::success();
  };
  std::function<llvm::Error(const std::vector<relax::BindingBlock> &)> lower;
  // A call of a local function runs its body inlined: its parameters bound to the arguments
  // (shapes checked as an alias's), its bindings lowered again with slots of their own, its
  // value bound to the call's variable. The body may read the enclosing function's variables,
  // whose slots are those of the enclosing scope. The callee is a local function bound before
  // the call (firstUnsupported refuses every other value of R.Callable struct info and calls of
  // the module's functions; the parser lets no function call itself).
  std::unordered_map<const relax::Var *, const ir::RelaxFunction *> localFunctions;
  auto inlineCall = [&](const relax::Binding &binding) -> llvm::Error {
    const relax::Call &call = *binding.call;
    const ir::RelaxFunction &callee = *localFunctions.at(call.calleeVar.get());
    for (size_t i = 0; i < callee.params.size(); ++i) {
      relax::Binding &param = parameterBindings.emplace_back();
      param.var = callee.params[i];
      param.alias = call.args[i];
      param.loc = call.args[i].loc;
      varSlots[param.var.get()] = numSlots++;
      if (llvm::Error error = bindValue(param, call.args[i])) return error;
    }
    if (llvm::Error error = lower(callee.blocks)) return error;
    varSlots[binding.var.get()] = numSlots++;
    return bindValue(binding, callee.results.front());
  };
  lower = [&](const std::vector<relax::BindingBlock> &blocks) -> llvm::Error {
    for (const relax::BindingBlock &block : blocks)
      for (const relax::Binding &binding : block.bindings) {
        if (const ir::RelaxFunction *inner = ir::asRelaxFunction(binding.function)) {
          localFunctions[binding.var.get()] = inner;
          continue;
        }
        if (binding.call && binding.call->kind == relax::CallKind::Function) {
          if (llvm::Error error = inlineCall(binding)) return error;
          continue;
        }
        if (const relax::IfElse *ifElse = binding.ifElse.get()) {
          varSlots[binding.var.get()] = numSlots++;
          Step branch;
          branch.kind = Step::Kind::Branch;
          branch.binding = &binding;
          // A condition on sizes (`if n == 4:`) is evaluated from them, a tensor read from its slot.
          if (!ifElse->condition.prim) {
            llvm::Expected<int> condition = slotOf(ifElse->condition);
            if (!condition) return condition.takeError();
            branch.argSlots.push_back(*condition);
            use(*condition, int(steps.size()));
          }
          size_t branchIndex = steps.size();
          steps.push_back(std::move(branch));
          if (llvm::Error error = lower(ifElse->thenBranch.blocks)) return error;
          if (llvm::Error error = bindValue(binding, ifElse->thenBranch.result)) return error;
          Step jump;
          jump.kind = Step::Kind::Jump;
          jump.binding = &binding;
          size_t jumpIndex = steps.size();
          steps.push_back(std::move(jump));
          steps[branchIndex].jump = steps.size();
          if (llvm::Error error = lower(ifElse->elseBranch.blocks)) return error;
          if (llvm::Error error = bindValue(binding, ifElse->elseBranch.result)) return error;
          steps[jumpIndex].jump = steps.size();
          continue;
        }
        // A tuple, or an alias of a tuple variable, names its fields' tensors: no step.
        if (binding.tuple || (binding.isAlias() && binding.alias.var && tupleSlots.count(binding.alias.var.get()))) {
          relax::Arg value = binding.alias;
          if (binding.tuple) value.fields = std::make_shared<const std::vector<relax::Arg>>(*binding.tuple);
          llvm::Expected<std::vector<int>> fields = slotsOf(value);
          if (!fields) return fields.takeError();
          tupleSlots[binding.var.get()] = *fields;
          continue;
        }
        Step step;
        step.binding = &binding;
        int index = int(steps.size());
        std::vector<relax::Arg> inputs = binding.call ? binding.call->args : std::vector{binding.alias};
        for (const relax::Arg &arg : inputs) {
          // `t[i]`: an alias of the field's tensor.
          llvm::Expected<int> slot = binding.index ? llvm::Expected<int>(tupleSlots.at(arg.var.get()).at(size_t(*binding.index)))
                                                   : slotOf(arg);
          if (!slot) return slot.takeError();
          step.argSlots.push_back(*slot);
          use(*slot, index);
        }
        size_t outputs = binding.call ? binding.call->outputs().size() : 1;
        for (size_t i = 0; i < outputs; ++i) step.outSlots.push_back(numSlots++);
        if (binding.call && !binding.call->tupleOutSinfo.empty()) tupleSlots[binding.var.get()] = step.outSlots;
        else varSlots[binding.var.get()] = step.outSlots.front();
        if (!binding.call) {
          step.kind = Step::Kind::Alias;
        } else {
          const relax::Call &call = *binding.call;
          ir::FunctionRef target = module->lookup(call.callee);
          if (target && target->isa<ir::PrimFunc>()) {
            step.kind = Step::Kind::PrimFunc;
            if (call.kind == relax::CallKind::CallTIRInplace) step.inplaceArgument = int(call.inplaceIndices.front());
            if (compiled.emplace(call.callee, nullptr).second)
              callees.emplace_back(call.callee, ir::cast<ir::PrimFunc>(target));
          } else if (call.kind == relax::CallKind::CallTIR || call.kind == relax::CallKind::CallTIRInplace) {
            return backend::diagnosticError(call.calleeLoc,
                                            "'" + call.callee + "' is not a prim_func of the module");
          } else if (vtac_get_func(call.callee.c_str(), &step.function, &step.resource) == 0) {
            step.kind = Step::Kind::Registered;
          } else {
            return backend::diagnosticError(
                call.calleeLoc, "unknown packed function '" + call.callee +
                                    "': not a prim_func of the module and not registered "
                                    "(built-ins: env.linear, env.relu; add others with --load-library)");
          }
        }
        steps.push_back(std::move(step));
      }
    return llvm::Error::success();
  };
  if (llvm::Error error = lower(func->blocks)) return error;
  if (llvm::Error error = compileCallees(callees)) return error;
  if (llvm::Error error = bindCompiled()) return error;
  // A returned tuple variable gives its fields, named `t[0]`, `t[1]`, ...
  for (const relax::Arg &result : func->results) {
    llvm::Expected<std::vector<int>> fields = slotsOf(result);
    if (!fields) return fields.takeError();
    bool tuple = result.var && tupleSlots.count(result.var.get());
    for (size_t i = 0; i < fields->size(); ++i) {
      resultSlots.push_back((*fields)[i]);
      resultNames.push_back(!result.var ? "result" + std::to_string(resultNames.size())
                            : tuple     ? result.var->name + "[" + std::to_string(i) + "]"
                                        : result.var->name);
    }
  }
  // Free each intermediate right after its last use; results and constants are kept.
  for (size_t slot = 0; slot < lastUse.size(); ++slot) {
    bool kept = std::count(resultSlots.begin(), resultSlots.end(), int(slot)) != 0 ||
                std::any_of(constantSlots.begin(), constantSlots.end(),
                            [&](const auto &c) { return c.first == int(slot); });
    if (!kept && lastUse[slot] >= 0) steps[lastUse[slot]].releaseAfter.push_back(int(slot));
  }
  return llvm::Error::success();
}

// Compiles the distinct callees into `compiled`; the first error in call order wins, as when
// they compiled one after another.
llvm::Error GraphExecutor::Impl::compileCallees(const std::vector<std::pair<std::string, ir::PrimFuncRef>> &callees) {
  std::vector<std::optional<CompileResult>> results = compileEach(
      callees.size(), compileThreads, [&](size_t i) { return compiler(callees[i].second, callees[i].first); });
  llvm::Error first = llvm::Error::success();
  for (size_t i = 0; i < callees.size(); ++i) {
    CompileResult &result = *results[i];
    if (result) compiled[callees[i].first] = std::move(*result);
    else if (first) llvm::consumeError(result.takeError());
    else first = result.takeError();
  }
  return first;
}

// Each prim_func step's engine, checked against the call's argument count.
llvm::Error GraphExecutor::Impl::bindCompiled() {
  for (Step &step : steps) {
    if (step.kind != Step::Kind::PrimFunc) continue;
    const relax::Call &call = *step.binding->call;
    step.prim = compiled.at(call.callee).get();
    size_t numParams = step.prim->signature().params().size();
    size_t outputs = step.inplaceArgument < 0 ? step.outSlots.size() : 0;
    size_t scalars = call.tirVars.shape ? call.tirVars.shape->size() : 0;
    if (numParams != call.args.size() + outputs + scalars)
      return backend::diagnosticError(call.calleeLoc, "'" + call.callee + "' takes " + llvm::Twine(numParams) +
                                                          " parameters but the call passes " +
                                                          llvm::Twine(call.args.size()) + " arguments, " +
                                                          llvm::Twine(outputs) + " output" + (outputs == 1 ? "" : "s") +
                                                          " and " + llvm::Twine(scalars) + " tir_vars");
  }
  return llvm::Error::success();
}

std::shared_ptr<Tensor> GraphExecutor::Impl::allocate(ir::DataType dtype, std::vector<int64_t> shape) {
  auto *tensor = new Tensor(dtype, std::move(shape));
  int64_t bytes = int64_t(tensor->byteSize());
  liveBytes += bytes;
  stats.totalTensorBytes += bytes;
  stats.peakTensorBytes = std::max(stats.peakTensorBytes, liveBytes);
  return std::shared_ptr<Tensor>(tensor, [this, bytes](Tensor *t) {
    liveBytes -= bytes;
    delete t;
  });
}

llvm::Error GraphExecutor::Impl::bindInputs(const NamedTensors &inputs,
                                            std::vector<std::shared_ptr<Tensor>> &slots,
                                            relax::ShapeBindings &sizes) {
  for (const auto &[name, tensor] : inputs)
    if (std::none_of(params.begin(), params.end(), [&name = name](const GraphParam &p) { return p.name == name; }))
      return backend::diagnosticError(func->loc(), "the function has no parameter '" + name + "'");
  for (size_t i = 0; i < params.size(); ++i) {
    const GraphParam &param = params[i];
    const relax::Var &var = *func->params[i];
    auto it = std::find_if(inputs.begin(), inputs.end(), [&](const auto &in) { return in.first == param.name; });
    if (it == inputs.end())
      return backend::diagnosticError(var.loc, "no input for parameter '" + param.name + "'");
    const Tensor &tensor = it->second;
    if (!param.sinfo.dtype.isVoid() && tensor.dtype() != param.sinfo.dtype)
      return backend::diagnosticError(param.sinfo.loc, "input '" + param.name + "' is " +
                                                           tensor.dtype().str() + ", declared " +
                                                           param.sinfo.dtype.str());
    if (std::optional<std::string> conflict = relax::unifyShape(param.sinfo, tensor.shape(), sizes))
      return backend::diagnosticError(param.sinfo.loc,
                                      "input '" + param.name + "' of shape " +
                                          backend::formatShape(tensor.shape()) + " does not match " +
                                          shapeText(param.sinfo) + ": " + *conflict);
    slots[paramSlots[i]] = std::make_shared<Tensor>(tensor);
  }
  return llvm::Error::success();
}

llvm::Error GraphExecutor::Impl::callPrimFunc(const Step &step, std::vector<std::shared_ptr<Tensor>> &slots,
                                              const relax::ShapeBindings &sizes) {
  const relax::Call &call = *step.binding->call;
  // tir_vars: the values of the callee's trailing scalar parameters, from the sizes the inputs
  // bound, each passed as a 0-d tensor of its parameter's type (which it must fit).
  std::vector<Tensor> scalars;
  if (call.tirVars.shape) {
    const std::vector<backend::ParamInfo> &params = step.prim->signature().params();
    size_t first = params.size() - call.tirVars.shape->size();
    for (size_t i = 0; i < call.tirVars.shape->size(); ++i) {
      const ir::Expr &dim = (*call.tirVars.shape)[i];
      const backend::ParamInfo &param = params[first + i];
      std::optional<int64_t> value = relax::evaluateDim(dim, sizes);
      if (!value)
        return backend::diagnosticError(call.tirVars.loc, "cannot evaluate value " + llvm::Twine(i) + " of tir_vars, " +
                                                              relax::printDim(dim) + ": " + relax::whyNoSize(dim, sizes));
      Tensor scalar(param.dtype, {});
      scalar.setInt(0, *value);
      if (scalar.intAt(0) != *value)
        return backend::diagnosticError(call.tirVars.loc, "value " + llvm::Twine(i) + " of tir_vars, " +
                                                              llvm::Twine(*value) + ", does not fit parameter '" +
                                                              param.name + "' (" + param.dtype.str() + ") of '" +
                                                              call.callee + "'");
      scalars.push_back(std::move(scalar));
    }
  }
  // The interpreter takes its arguments by value: move the tensors in and back out (a tensor
  // passed twice is copied the second time).
  std::vector<Tensor> arguments;
  std::vector<int> sources;  // per argument: the slot moved in, or -1 for a copy
  std::vector<Tensor *> moved;
  arguments.reserve(step.argSlots.size() + step.outSlots.size());
  std::vector<int> argSlots = step.argSlots;
  if (step.inplaceArgument >= 0) argSlots[size_t(step.inplaceArgument)] = step.outSlots.front();
  for (int slot : argSlots) {
    Tensor *tensor = slots[slot].get();
    auto previous = std::find(moved.begin(), moved.end(), tensor);
    if (previous != moved.end()) {
      arguments.push_back(arguments[previous - moved.begin()]);
      sources.push_back(-1);
    } else {
      arguments.push_back(std::move(*tensor));
      sources.push_back(slot);
    }
    moved.push_back(tensor);
  }
  if (step.inplaceArgument < 0)
    for (int slot : step.outSlots) {
      arguments.push_back(std::move(*slots[slot]));
      sources.push_back(slot);
    }
  for (Tensor &scalar : scalars) {
    arguments.push_back(std::move(scalar));
    sources.push_back(-1);
  }

  std::vector<const Tensor *> given;
  for (const Tensor &argument : arguments) given.push_back(&argument);
  llvm::Error failure = llvm::Error::success();
  if (llvm::Expected<backend::SizeBindings> bound = step.prim->signature().bindSizes(given); !bound)
    failure = backend::diagnosticError(call.calleeLoc, "arguments do not fit '" + call.callee +
                                                           "': " + llvm::toString(bound.takeError()));
  else
    failure = step.prim->run(arguments, {});
  for (size_t i = 0; i < arguments.size(); ++i)
    if (sources[i] >= 0) *slots[sources[i]] = std::move(arguments[i]);
  ++stats.primFuncCalls;
  return failure;
}

llvm::Error GraphExecutor::Impl::callRegistered(const Step &step,
                                                std::vector<std::shared_ptr<Tensor>> &slots) {
  std::vector<vtac_tensor> views;
  std::vector<int> all = step.argSlots;
  all.insert(all.end(), step.outSlots.begin(), step.outSlots.end());
  for (int slot : all) {
    Tensor &tensor = *slots[slot];
    vtac_tensor view;
    view.data = tensor.data();
    view.dtype = toRegistryType(tensor.dtype());
    view.ndim = int32_t(tensor.shape().size());
    view.shape = tensor.shape().data();
    views.push_back(view);
  }
  vtac_set_last_error("");
  int status = step.function(views.data(), int32_t(views.size()), step.resource);
  ++stats.registeredCalls;
  if (status != 0) {
    const relax::Call &call = *step.binding->call;
    std::string reason = vtac_get_last_error();
    return backend::diagnosticError(call.calleeLoc, "'" + call.callee + "' failed" +
                                                        (reason.empty() ? "" : ": " + reason));
  }
  return llvm::Error::success();
}

GraphExecutor::GraphExecutor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GraphExecutor::GraphExecutor(GraphExecutor &&) noexcept = default;
GraphExecutor::~GraphExecutor() = default;

llvm::Expected<GraphExecutor> GraphExecutor::create(const ir::IRModule &module, llvm::StringRef entry,
                                                    const backend::ExternRegistry &externs,
                                                    const backend::PrimFuncCompiler &compiler,
                                                    unsigned compileThreads) {
  registerBuiltinFunctions();
  auto impl = std::make_unique<Impl>();
  impl->module = &module;
  impl->compiler = compiler ? compiler : backend::interpreterCompiler(externs);
  impl->compileThreads = std::max(1u, compileThreads);
  impl->func = ir::asRelaxFunction(module.lookup(entry));
  if (!impl->func)
    return backend::diagnosticError("the module has no Relax function '" + entry + "'");
  if (llvm::Error error = impl->prepare()) return error;
  return GraphExecutor(std::move(impl));
}

void GraphExecutor::setAfterCall(std::function<llvm::Error(const GraphCall &call)> check) {
  impl_->afterCall = std::move(check);
}

const std::vector<GraphParam> &GraphExecutor::params() const { return impl_->params; }

std::vector<std::string> GraphExecutor::resultNames() const { return impl_->resultNames; }

const GraphStats &GraphExecutor::stats() const { return impl_->stats; }

size_t GraphExecutor::compiledFunctions() const { return impl_->compiled.size(); }

llvm::Expected<NamedTensors> GraphExecutor::run(const NamedTensors &inputs) {
  Impl &impl = *impl_;
  impl.stats = GraphStats{};
  std::vector<std::shared_ptr<Tensor>> slots(impl.numSlots);
  relax::ShapeBindings sizes;
  if (llvm::Error error = impl.bindInputs(inputs, slots, sizes)) return error;
  for (const auto &[slot, tensor] : impl.constantSlots) slots[slot] = tensor;

  size_t callIndex = 0;
  for (size_t next = 0; next < impl.steps.size();) {
    const Step &step = impl.steps[next++];
    const relax::Binding &binding = *step.binding;
    if (step.kind == Step::Kind::Branch) {
      llvm::Expected<bool> taken = step.argSlots.empty() ? evaluateSizeCondition(binding.ifElse->condition, sizes)
                                                         : readCondition(binding.ifElse->condition, *slots[step.argSlots[0]]);
      if (!taken) return taken.takeError();
      if (!*taken) next = step.jump;
    } else if (step.kind == Step::Kind::Jump) {
      next = step.jump;
    } else if (step.kind == Step::Kind::Alias) {
      slots[step.outSlots[0]] = slots[step.argSlots[0]];
      const Tensor &value = *slots[step.outSlots[0]];
      if (std::optional<std::string> conflict = relax::unifyShape(binding.var->sinfo.tensor, value.shape(), sizes))
        return backend::diagnosticError(binding.var->sinfo.loc,
                                        "'" + binding.var->name + "' of shape " +
                                            backend::formatShape(value.shape()) + " does not match " +
                                            shapeText(binding.var->sinfo.tensor) + ": " + *conflict);
    } else {
      const relax::Call &call = *binding.call;
      std::vector<relax::TensorStructInfo> outputs = call.outputs();
      for (size_t o = 0; o < outputs.size(); ++o) {
        const relax::TensorStructInfo &output = outputs[o];
        std::vector<int64_t> shape;
        for (const ir::Expr &dim : *output.shape) {
          std::optional<int64_t> value = relax::evaluateDim(dim, sizes);
          if (!value || *value < 0)
            return backend::diagnosticError(output.loc,
                                            "cannot size the output of '" + call.callee + "': " +
                                                relax::printDim(dim) + ": " + relax::whyNoSize(dim, sizes));
          shape.push_back(*value);
        }
        if (auto bytes = backend::checkedByteSize(shape, output.dtype.bytes()); !bytes)
          return backend::diagnosticError(output.loc, "cannot allocate the output of '" + call.callee +
                                                          "': " + backend::errorMessage(bytes.takeError()));
        if (step.inplaceArgument >= 0) {
          const Tensor &updated = *slots[step.argSlots[size_t(step.inplaceArgument)]];
          if (updated.shape() != llvm::ArrayRef<int64_t>(shape) || updated.dtype() != output.dtype)
            return backend::diagnosticError(output.loc, "the output of '" + call.callee + "', " +
                                                            backend::formatShape(shape) + " " + output.dtype.str() +
                                                            ", differs from the argument it is written into, " +
                                                            backend::formatShape(updated.shape()) + " " +
                                                            updated.dtype().str());
        }
        slots[step.outSlots[o]] = impl.allocate(output.dtype, std::move(shape));
      }
      if (step.inplaceArgument >= 0) *slots[step.outSlots[0]] = *slots[step.argSlots[size_t(step.inplaceArgument)]];
      llvm::Error error = step.kind == Step::Kind::PrimFunc ? impl.callPrimFunc(step, slots, sizes)
                                                            : impl.callRegistered(step, slots);
      if (!error && impl.afterCall) error = impl.afterCall({callIndex, call.callee, call.calleeLoc});
      if (error) return error;
      ++callIndex;
    }
    for (int slot : step.releaseAfter) slots[slot].reset();
  }

  NamedTensors results;
  std::vector<std::string> names = resultNames();
  for (size_t i = 0; i < impl.resultSlots.size(); ++i)
    results.emplace_back(names[i], *slots[impl.resultSlots[i]]);
  return results;
}

}  // namespace vtac::graph
