#include "vtac/codegen/RelaxHostLowering.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include <dlpack/dlpack.h>

#include "vtac/codegen/RuntimeApi.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"

namespace vtac::codegen {

namespace {

using ir::DataType;
namespace relax = ir::relax;

// VTABufferCopy's kind_mask (vta/runtime.h); 0 is a copy between host addresses.
constexpr int kCopyHostToHost = 0, kCopyHostToDevice = 1, kCopyDeviceToHost = 2;

// "env.linear" -> "env_linear": the C symbol a registered function name stands for.
std::string linkSymbol(const std::string &name) {
  std::string symbol;
  for (char c : name) symbol += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return symbol;
}

// A buffer describing a graph tensor of known shape and dtype (for the entry checks), its
// data in `scope`.
llvm::Expected<ir::BufferRef> tensorBuffer(const std::string &name, const relax::TensorStructInfo &sinfo,
                                           ir::SourceLoc loc, const char *scope = "global") {
  if (!sinfo.hasShape() || sinfo.dtype.isVoid())
    return ir::diagnosticError(loc, "'" + name + "' needs a known shape and dtype to be compiled");
  return ir::makeBuffer(name, sinfo.dtype, *sinfo.shape, scope, loc);
}

ir::Expr runtimeCall(DataType dtype, const char *name, std::vector<ir::Expr> args) {
  args.insert(args.begin(), ir::make<ir::StringImm>(name));
  return ir::make<ir::Call>(dtype, "tir.call_extern", std::move(args));
}

// A `op` (hostop::kMakeTensor or kMakeVtaTensor) DLTensor over `data` with `buffer`'s dtype and shape.
ir::Expr makeTensor(const char *op, ir::Expr data, const ir::Buffer &buffer) {
  DataType dtype = buffer.dtype;
  std::vector<ir::Expr> args{std::move(data), ir::intImm(dtype.isFloat() ? 2 : dtype.isInt() ? 0 : 1),
                             ir::intImm(dtype.bits()), ir::intImm(dtype.lanes())};
  args.insert(args.end(), buffer.shape.begin(), buffer.shape.end());
  return ir::make<ir::Call>(DataType::handle(), op, std::move(args));
}

// VTABufferCopy of `buffer`'s bytes from `from` to `to` (`kind`: kCopyHostToDevice, ...).
ir::Stmt copyTensor(ir::Expr from, ir::Expr to, const ir::Buffer &buffer, int kind) {
  ir::Expr zero = ir::intImm(0, DataType::int64());
  return ir::make<ir::Evaluate>(runtimeCall(DataType::int32(), "VTABufferCopy",
                                            {std::move(from), zero, std::move(to), zero, passes::tensorBytes(buffer), ir::intImm(kind)}));
}

ir::Expr tensorData(const ir::VarRef &tensor) {
  return ir::make<ir::Call>(DataType::handle(), hostop::kTensorData, std::vector<ir::Expr>{tensor});
}

// `body` inside the allocation of `buffer`, with the DLTensor `tensor` over it (made by `op`:
// hostop::kMakeTensor for host memory, kMakeVtaTensor for a VTA buffer).
ir::Stmt inAllocation(const ir::BufferRef &buffer, const ir::VarRef &tensor, const char *op, ir::Stmt body) {
  body = ir::make<ir::LetStmt>(tensor, makeTensor(op, buffer->data, *buffer), body, buffer->loc());
  return ir::make<ir::Allocate>(buffer->data, buffer->dtype, buffer->shape, nullptr, body, ir::AttrMap{}, buffer->loc());
}

ir::Expr ifThenElse(ir::Expr condition, ir::Expr then, ir::Expr otherwise) {
  DataType dtype = then->dtype;
  return ir::make<ir::Call>(dtype, "tir.if_then_else", std::vector<ir::Expr>{std::move(condition), std::move(then), std::move(otherwise)});
}

// The DLTensors of one graph tensor: what a CPU callee is passed (host memory: the caller's
// tensor, a host allocation, or the CPU view of a VTA buffer) and what a VTA callee is passed
// (over a VTABufferAlloc buffer; null when no VTA code touches the tensor).
struct Tensors {
  ir::VarRef host, vta;

  ir::Expr forCallee(bool takesVtaBuffer) const { return takesVtaBuffer ? vta : host; }
};

class GraphLowering {
public:
  GraphLowering(const ir::RelaxFunction &func, HostFunction &function, const std::map<std::string, std::string> &symbols,
                const std::vector<HostFunction> &primFuncs)
      : func_(func), function_(function), symbols_(symbols), primFuncs_(primFuncs) {}

  llvm::Expected<ir::Stmt> run() {
    if (std::optional<relax::RelaxDiagnostic> refusal = relax::firstUnsupported(func_, "vtac compile"))
      return ir::diagnosticError(refusal->loc, refusal->message);
    relax::forEachBinding(func_.blocks, [this](const relax::Binding &binding) { collectTupleFields(binding); });
    // A returned tuple variable returns its fields, one output parameter each.
    for (const relax::Arg &result : func_.results) {
      auto fields = result.var ? tupleFields_.find(result.var.get()) : tupleFields_.end();
      if (fields == tupleFields_.end()) results_.push_back(result);
      else results_.insert(results_.end(), fields->second.begin(), fields->second.end());
    }
    shareStorage(func_.blocks);
    if (llvm::Error error = planResults()) return error;
    placeTensors();
    // Only a graph that runs VTA code takes VTA buffers (it has the command handle CPU views need).
    const bool takesVtaBuffers = !onVta_.empty();
    if (takesVtaBuffers) function_.commandHandle = ir::makeVar("cmd", DataType::handle());
    for (const relax::VarPtr &param : func_.params) {
      auto buffer = tensorBuffer(param->name, param->sinfo.tensor, param->loc);
      if (!buffer) return buffer.takeError();
      HostParam host{ir::makeVar(param->name, DataType::handle(), param->loc), *buffer, false, false, takesVtaBuffers};
      function_.params.push_back(host);
      tensors_[param.get()].host = host.var;
    }
    for (size_t i = 0; i < results_.size(); ++i) {
      const relax::Arg &result = results_[i];
      auto buffer = tensorBuffer(result.var->name, result.var->sinfo.tensor, result.loc);
      if (!buffer) return buffer.takeError();
      // Named after the returned variable, unless another parameter has that name (a returned
      // parameter, a tensor returned twice).
      std::string name = result.var->name;
      auto taken = [&](const std::string &candidate) {
        return std::any_of(function_.params.begin(), function_.params.end(),
                           [&](const HostParam &param) { return param.var->name == candidate; });
      };
      for (unsigned suffix = 1; taken(name); ++suffix)
        name = result.var->name + "_result" + (suffix > 1 ? std::to_string(suffix) : "");
      HostParam host{ir::makeVar(name, DataType::handle(), result.loc), *buffer, false, false, takesVtaBuffers};
      function_.params.push_back(host);
      destinations_[resultStorage_[i]] = host.var;
      if (!takesVtaBuffers) tensors_[resultStorage_[i]].host = host.var;
    }
    // The caller's tensors' DLTensors are made before the calls are lowered, which use them.
    std::vector<Wrap> setups;
    if (takesVtaBuffers) {
      for (size_t i = 0; i < func_.params.size(); ++i)
        setups.push_back(callerTensorSetup(*func_.params[i], function_.params[i], false));
      for (size_t i = 0; i < results_.size(); ++i)
        setups.push_back(callerTensorSetup(*resultStorage_[i], function_.params[func_.params.size() + i], true));
    }
    auto body = lowerBlocks(func_.blocks, [this]() -> llvm::Expected<ir::Stmt> {
      // The results the graph did not compute into the caller's tensors are copied there.
      std::vector<ir::Stmt> copies{ir::make<ir::Evaluate>(ir::intImm(0))};
      for (size_t i = 0; i < results_.size(); ++i) {
        if (storageOf(results_[i].var.get()) == resultStorage_[i]) continue;
        auto copy = copyValue(results_[i], *resultStorage_[i], results_[i].loc);
        if (!copy) return copy.takeError();
        copies.push_back(*copy);
      }
      return ir::seq(copies);
    });
    if (!body) return body.takeError();
    for (auto it = setups.rbegin(); it != setups.rend(); ++it) *body = (*it)(*body);
    // The handle only where a CPU view of a VTA buffer needs it (an unused one is a C warning).
    if (function_.commandHandle && ir::usesVar(*body, function_.commandHandle.get()))
      *body = ir::make<ir::LetStmt>(function_.commandHandle,
                                    runtimeCall(DataType::handle(), "VTATLSCommandHandle", {}), *body);
    return passes::bindEntryParameters(function_.symbol, function_.graph, function_.params, *body);
  }

private:
  // The prim_func of the module `call` calls, lowered; null for a registered function.
  const HostFunction *calleeOf(const relax::Call &call) const {
    for (const HostFunction &function : primFuncs_)
      if (!function.graph && function.name == call.callee) return &function;
    return nullptr;
  }

  // Whether the callee takes its `index`-th tensor (the output after the arguments) as a VTA buffer.
  bool takesVtaBuffer(const relax::Call &call, size_t index) const {
    const HostFunction *callee = calleeOf(call);
    return callee && index < callee->params.size() && callee->params[index].onVta;
  }

  // Records the fields of `binding`'s variable when it is a tuple (tupleFields_): a call of
  // several outputs gets a variable per output (`lv_0`, `lv_1`, ...), a tuple its fields, an
  // alias of a tuple variable the same.
  void collectTupleFields(const relax::Binding &binding) {
    std::vector<relax::Arg> fields;
    if (binding.call && !binding.call->tupleOutSinfo.empty()) {
      for (const relax::TensorStructInfo &output : binding.call->tupleOutSinfo) {
        relax::Arg field;
        field.var = std::make_shared<relax::Var>(relax::Var{binding.var->name + "_" + std::to_string(fields.size()),
                                                            relax::StructInfo(output), false, binding.loc});
        field.loc = binding.loc;
        fields.push_back(std::move(field));
      }
    } else if (binding.tuple) {
      fields = *binding.tuple;
    } else if (binding.isAlias() && binding.alias.var && tupleFields_.count(binding.alias.var.get())) {
      fields = tupleFields_.at(binding.alias.var.get());
    } else {
      return;
    }
    tupleFields_[binding.var.get()] = std::move(fields);
  }

  // The value a binding without a call names: its alias, or the tuple field `t[i]`.
  const relax::Arg &aliasedValue(const relax::Binding &binding) const {
    return binding.index ? tupleFields_.at(binding.alias.var.get()).at(size_t(*binding.index)) : binding.alias;
  }

  // The variables a call binding's outputs are: its own, or one per output of several.
  std::vector<const relax::Var *> outputVars(const relax::Binding &binding) const {
    auto fields = tupleFields_.find(binding.var.get());
    if (fields == tupleFields_.end() || !binding.call) return {binding.var.get()};
    std::vector<const relax::Var *> vars;
    for (const relax::Arg &field : fields->second) vars.push_back(field.var.get());
    return vars;
  }

  // The variable whose storage `var` uses: itself, the tensor an alias names, or for the value
  // a branch computes (its last call, possibly through aliases), the If's variable's storage,
  // which the call then writes directly.
  const relax::Var *storageOf(const relax::Var *var) const {
    for (auto found = storageParent_.find(var); found != storageParent_.end(); found = storageParent_.find(var))
      var = found->second;
    return var;
  }

  // Records storageParent_ for the aliases of `blocks` and the values of their if branches.
  // A branch's value shares the If variable's storage when the branch computed it (the
  // branch's variables are invisible after the if, so nothing else reads that storage); a
  // value from outside the branch (a parameter, an earlier tensor) is copied instead.
  void shareStorage(const std::vector<relax::BindingBlock> &blocks) {
    for (const relax::BindingBlock &block : blocks)
      for (const relax::Binding &binding : block.bindings) {
        // A tuple variable has no storage of its own: its fields have.
        if (tupleFields_.count(binding.var.get())) continue;
        if (const relax::Arg &value = aliasedValue(binding); (binding.isAlias() || binding.index) && value.var)
          storageParent_[binding.var.get()] = value.var.get();
        const relax::IfElse *ifElse = binding.ifElse.get();
        if (!ifElse) continue;
        for (const relax::IfBranch *branch : {&ifElse->thenBranch, &ifElse->elseBranch}) {
          shareStorage(branch->blocks);
          if (!branch->result.var) continue;
          const relax::Var *value = storageOf(branch->result.var.get());
          for (const relax::BindingBlock &inner : branch->blocks)
            for (const relax::Binding &computed : inner.bindings)
              for (const relax::Var *output : outputVars(computed))
                if (output == value && !computed.isAlias() && !computed.index) storageParent_[value] = binding.var.get();
        }
      }
  }

  // Where each returned value goes (resultStorage_): the caller's tensor is the storage of the
  // tensor returned, which the graph computes into it (through any aliases), unless that is a
  // parameter or already another result's; then the value is copied into it at the end.
  llvm::Error planResults() {
    std::unordered_set<const relax::Var *> computedInto;
    for (const relax::Arg &result : results_) {
      if (!result.var) return ir::diagnosticError(result.loc, "returning a constant cannot be compiled");
      const relax::Var *storage = storageOf(result.var.get());
      bool parameter = std::any_of(func_.params.begin(), func_.params.end(),
                                   [&](const relax::VarPtr &param) { return param.get() == storage; });
      if (!parameter && computedInto.insert(storage).second) {
        resultStorage_.push_back(storage);
        continue;
      }
      relax::VarPtr copy = std::make_shared<relax::Var>(*result.var);
      copiedResults_.push_back(copy);
      resultStorage_.push_back(copy.get());
    }
    return llvm::Error::success();
  }

  // Whether a branch's value is copied into the If's variable (see shareStorage).
  bool copiesValue(const relax::IfBranch &branch, const relax::Var &ifVar) const {
    return !branch.result.var || storageOf(branch.result.var.get()) != storageOf(&ifVar);
  }

  // Which graph tensors VTA code touches (onVta_) and which CPU code touches (onCpu_), a tensor
  // sharing another's storage counting as that one. The host reads an if's condition and
  // copies values between host addresses (CPU views of VTA buffers).
  void placeTensors() {
    auto touch = [&](const relax::Var *var, bool vta) { (vta ? onVta_ : onCpu_).insert(storageOf(var)); };
    for (size_t i = 0; i < results_.size(); ++i)
      if (storageOf(results_[i].var.get()) != resultStorage_[i]) {
        touch(results_[i].var.get(), false);
        touch(resultStorage_[i], false);
      }
    relax::forEachBinding(func_.blocks, [&](const relax::Binding &binding) {
      if (const relax::IfElse *ifElse = binding.ifElse.get()) {
        if (ifElse->condition.var) touch(ifElse->condition.var.get(), false);
        for (const relax::IfBranch *branch : {&ifElse->thenBranch, &ifElse->elseBranch})
          if (copiesValue(*branch, *binding.var)) {
            touch(binding.var.get(), false);
            if (branch->result.var) touch(branch->result.var.get(), false);
          }
      }
      if (!binding.call) return;
      const relax::Call &call = *binding.call;
      for (size_t i = 0; i < call.args.size(); ++i)
        if (call.args[i].var) touch(call.args[i].var.get(), takesVtaBuffer(call, i));
      std::vector<const relax::Var *> outputs = outputVars(binding);
      for (size_t o = 0; o < outputs.size(); ++o) touch(outputs[o], takesVtaBuffer(call, call.args.size() + o));
    });
  }

  using Wrap = std::function<ir::Stmt(ir::Stmt)>;

  // A tensor of the caller's (a parameter, or a result the function writes) in a graph that
  // runs VTA code is a host tensor or a VTA buffer (`x_is_vta`, decided at run time). VTA code
  // uses a VTA buffer in place and, for a host tensor, a VTA buffer allocated for the call that
  // a parameter is copied into before the first call and a result out of after the last; CPU
  // code uses a host tensor in place and a VTA buffer through its CPU address (a result VTA
  // code touches too: that of the VTA buffer, so both see one tensor). Records the
  // tensor's DLTensors and returns what wraps the calls.
  Wrap callerTensorSetup(const relax::Var &var, const HostParam &host, bool isResult) {
    Tensors &tensors = tensors_[&var];
    tensors.host = host.var;
    ir::VarRef isVta = ir::makeVar(var.name + "_is_vta", DataType::boolTy(), var.loc);
    ir::Expr isVtaValue = ir::binary(ir::NodeKind::EQ, ir::make<ir::Call>(DataType::int32(), hostop::kTensorDeviceType, std::vector<ir::Expr>{host.var}),
                                     ir::intImm(kDLExtDev, DataType::int32()));
    ir::Expr data = tensorData(host.var);  // the handle itself for a VTA buffer (byte_offset 0)
    ir::VarRef view;
    if (onCpu_.count(&var)) {
      view = ir::makeVar(var.name + "_host", DataType::handle(), var.loc);
      tensors.host = view;
    }
    ir::BufferRef copy;
    if (onVta_.count(&var)) copy = vtaBuffer(var, tensors);
    return [this, isVta, isVtaValue, data, view, copy, isResult, vta = tensors.vta, buffer = host.buffer](ir::Stmt body) {
      if (copy) {
        ir::Expr vtaData = ifThenElse(isVta, data, copy->data);
        // A result that CPU code touches too is written and read in the VTA buffer copied out at
        // the end, the CPU through its address (the caller's host tensor is written only then).
        if (view && isResult) {
          ir::Expr cpuAddress = runtimeCall(DataType::handle(), "VTABufferCPUPtr", {function_.commandHandle, vtaData});
          body = ir::make<ir::LetStmt>(view, makeTensor(hostop::kMakeTensor, cpuAddress, *buffer), body);
        }
        ir::Stmt transfer = isResult ? copyTensor(copy->data, data, *copy, kCopyDeviceToHost)
                                     : copyTensor(data, copy->data, *copy, kCopyHostToDevice);
        ir::Stmt hostOnly = ir::make<ir::IfThenElse>(ir::make<ir::Not>(isVta), transfer, nullptr);
        body = ir::make<ir::LetStmt>(vta, makeTensor(hostop::kMakeVtaTensor, vtaData, *copy),
                                     isResult ? ir::seq({body, hostOnly}) : ir::seq({hostOnly, body}));
        // Allocated only for a host tensor.
        body = ir::make<ir::Allocate>(copy->data, copy->dtype, copy->shape, ir::make<ir::Not>(isVta), body, ir::AttrMap{},
                                      copy->loc());
      }
      if (view && !(copy && isResult)) {
        ir::Expr cpuAddress = runtimeCall(DataType::handle(), "VTABufferCPUPtr", {function_.commandHandle, data});
        body = ir::make<ir::LetStmt>(view, makeTensor(hostop::kMakeTensor, ifThenElse(isVta, cpuAddress, data), *buffer), body);
      }
      return ir::Stmt(ir::make<ir::LetStmt>(isVta, isVtaValue, body));
    };
  }

  // A VTA buffer for `var` (its data variable is the buffer handle) and, in `tensors.vta`, a
  // new variable for the DLTensor over it.
  static ir::BufferRef vtaBuffer(const relax::Var &var, Tensors &tensors) {
    tensors.vta = ir::makeVar(var.name + "_vta", DataType::handle(), var.loc);
    return ir::makeBuffer(var.name + "_vta_data", var.sinfo.tensor.dtype, *var.sinfo.tensor.shape, kVtaBufferScope, var.loc);
  }

  using Tail = std::function<llvm::Expected<ir::Stmt>()>;

  // The statement running the bindings of `blocks`, then `tail` (made once they are lowered).
  llvm::Expected<ir::Stmt> lowerBlocks(const std::vector<relax::BindingBlock> &blocks, const Tail &tail) {
    std::vector<const relax::Binding *> bindings;
    for (const relax::BindingBlock &block : blocks)
      for (const relax::Binding &binding : block.bindings) bindings.push_back(&binding);
    return lowerFrom(bindings, 0, tail);
  }

  // The statement running bindings[i...] and `tail` (each binding wraps the ones after it).
  llvm::Expected<ir::Stmt> lowerFrom(const std::vector<const relax::Binding *> &bindings, size_t i, const Tail &tail) {
    if (i == bindings.size()) return tail();
    const relax::Binding &binding = *bindings[i];
    if (binding.ifElse) return lowerIfElse(binding, [&] { return lowerFrom(bindings, i + 1, tail); });
    if (!binding.call) {
      // A tuple names its fields' tensors (tupleFields_).
      if (tupleFields_.count(binding.var.get())) return lowerFrom(bindings, i + 1, tail);
      auto source = tensorsOf(aliasedValue(binding));
      if (!source) return source.takeError();
      tensors_[binding.var.get()] = *source;
      return lowerFrom(bindings, i + 1, tail);
    }
    const relax::Call &call = *binding.call;
    std::vector<ir::Expr> args{ir::make<ir::StringImm>(calleeSymbol(call))};
    for (size_t a = 0; a < call.args.size(); ++a) {
      auto tensors = tensorsOf(call.args[a]);
      if (!tensors) return tensors.takeError();
      args.push_back(tensors->forCallee(takesVtaBuffer(call, a)));
    }
    std::vector<Wrap> outputs;
    std::vector<const relax::Var *> vars = outputVars(binding);
    for (size_t o = 0; o < vars.size(); ++o) {
      auto output = outputOf(*vars[o], binding.loc);
      if (!output) return output.takeError();
      outputs.push_back(*output);
      args.push_back(tensors_.at(vars[o]).forCallee(takesVtaBuffer(call, call.args.size() + o)));
    }
    auto rest = lowerFrom(bindings, i + 1, tail);
    if (!rest) return rest.takeError();
    ir::Stmt body = ir::seq({ir::make<ir::Evaluate>(ir::make<ir::Call>(DataType::int32(), hostop::kCallChecked,
                                                                       std::move(args), binding.loc)),
                             *rest});
    for (auto it = outputs.rbegin(); it != outputs.rend(); ++it) body = (*it)(body);
    return body;
  }

  // `y = if c: ... else: ...` as TVM's VM runs it: the host reads the bool scalar c and runs
  // one branch, which leaves its value in y's storage (computed there, or copied: shareStorage);
  // then the rest. Each branch's other tensors are allocated inside it.
  llvm::Expected<ir::Stmt> lowerIfElse(const relax::Binding &binding, const Tail &rest) {
    const relax::IfElse &ifElse = *binding.ifElse;
    auto taken = conditionValue(ifElse.condition, *binding.var);
    if (!taken) return taken.takeError();
    auto output = outputOf(*binding.var, binding.loc);
    if (!output) return output.takeError();
    std::vector<ir::Stmt> branches;
    for (const relax::IfBranch *branch : {&ifElse.thenBranch, &ifElse.elseBranch}) {
      auto lowered = lowerBlocks(branch->blocks, [&]() -> llvm::Expected<ir::Stmt> {
        if (!copiesValue(*branch, *binding.var)) return ir::Stmt(ir::make<ir::Evaluate>(ir::intImm(0)));
        return copyValue(branch->result, *binding.var, branch->loc);
      });
      if (!lowered) return lowered.takeError();
      branches.push_back(*lowered);
    }
    auto after = rest();
    if (!after) return after.takeError();
    ir::Stmt choice = ir::make<ir::IfThenElse>(taken->first, branches[0], branches[1], binding.loc);
    return (*output)(ir::seq({taken->second(choice), *after}));
  }

  // The host's value of an if's condition and what wraps the statement using it. A bool scalar
  // tensor's one byte (a bool is a byte in memory) is read through a buffer over its data; a
  // condition on sizes (`if n == 4:`) is the expression itself, whose sizes the entry binds
  // from the parameters' shapes.
  llvm::Expected<std::pair<ir::Expr, Wrap>> conditionValue(const relax::Arg &condition, const relax::Var &ifVar) {
    if (condition.prim) {
      std::string unbound;
      ir::preOrderVisit(condition.prim, [&](const ir::Node &node) {
        const auto *var = node.as<ir::Var>();
        if (var && unbound.empty() && !givenByParameters(*var)) unbound = var->name;
      });
      if (!unbound.empty())
        return ir::diagnosticError(condition.loc, "the condition uses '" + unbound +
                                                      "', which no parameter's shape gives: it cannot be compiled");
      return std::pair<ir::Expr, Wrap>(condition.prim, [](ir::Stmt body) { return body; });
    }
    auto tensors = tensorsOf(condition);
    if (!tensors) return tensors.takeError();
    ir::BufferRef flag = ir::makeBuffer(ifVar.name + "_condition", DataType::uintTy(8), {ir::intImm(1, DataType::int64())},
                                        "global", condition.loc);
    ir::Expr taken = ir::binary(ir::NodeKind::NE, ir::make<ir::BufferLoad>(flag, std::vector<ir::Expr>{ir::intImm(0, DataType::int64())}),
                                ir::intImm(0, DataType::uintTy(8)));
    return std::pair<ir::Expr, Wrap>(taken, [data = flag->data, value = tensorData(tensors->host)](ir::Stmt body) {
      return ir::Stmt(ir::make<ir::LetStmt>(data, value, body));
    });
  }

  // Whether the entry binds the size `var`: a whole dimension of a parameter's shape.
  bool givenByParameters(const ir::Var &var) const {
    for (const relax::VarPtr &param : func_.params)
      if (param->sinfo.tensor.shape)
        for (const ir::Expr &dim : *param->sinfo.tensor.shape)
          if (dim.get() == &var) return true;
    return false;
  }

  // The copy of `value`'s bytes into the storage of `var` (host addresses on both sides:
  // placeTensors gave both a host DLTensor).
  llvm::Expected<ir::Stmt> copyValue(const relax::Arg &value, const relax::Var &var, ir::SourceLoc loc) {
    auto source = tensorsOf(value);
    if (!source) return source.takeError();
    auto buffer = tensorBuffer(var.name, var.sinfo.tensor, loc);
    if (!buffer) return buffer.takeError();
    return copyTensor(tensorData(source->host), tensorData(tensors_.at(&var).host), **buffer, kCopyHostToHost);
  }

  // Where the output `var` of a binding (at `loc`) lives: records its DLTensors and returns
  // what wraps the statement computing it and the rest (the allocation, none for a returned
  // host tensor).
  llvm::Expected<Wrap> outputOf(const relax::Var &var, ir::SourceLoc loc) {
    Tensors &tensors = tensors_[&var];
    // A branch's value is written into its If variable's storage.
    if (const relax::Var *storage = storageOf(&var); storage != &var) {
      tensors = tensors_.at(storage);
      return Wrap([](ir::Stmt body) { return body; });
    }
    auto destination = destinations_.find(&var);
    // A result of a graph that runs VTA code has its DLTensors already (callerTensorSetup).
    if (destination != destinations_.end() && function_.commandHandle) return Wrap([](ir::Stmt body) { return body; });
    if (!onVta_.count(&var)) {
      if (destination != destinations_.end()) {
        tensors.host = destination->second;
        return Wrap([](ir::Stmt body) { return body; });
      }
      auto buffer = tensorBuffer(var.name + "_data", var.sinfo.tensor, loc);
      if (!buffer) return buffer.takeError();
      tensors.host = ir::makeVar(var.name, DataType::handle(), loc);
      return Wrap([buffer = *buffer, tensor = tensors.host](ir::Stmt body) {
        return inAllocation(buffer, tensor, hostop::kMakeTensor, body);
      });
    }
    if (!var.sinfo.tensor.hasShape() || var.sinfo.tensor.dtype.isVoid())
      return ir::diagnosticError(loc, "'" + var.name + "' needs a known shape and dtype to be compiled");
    ir::BufferRef buffer = vtaBuffer(var, tensors);
    if (onCpu_.count(&var)) tensors.host = ir::makeVar(var.name, DataType::handle(), loc);
    return Wrap([this, buffer, view = tensors.host, tensor = tensors.vta](ir::Stmt body) {
      // CPU code reaches the VTA buffer through its CPU address (VTA memory is coherent, as in
      // TVM's default configuration and the simulator).
      if (view) {
        ir::VarRef address = ir::makeVar(view->name + "_cpu", DataType::handle());
        body = ir::make<ir::LetStmt>(view, makeTensor(hostop::kMakeTensor, address, *buffer), body);
        body = ir::make<ir::LetStmt>(
            address, runtimeCall(DataType::handle(), "VTABufferCPUPtr", {function_.commandHandle, buffer->data}), body);
      }
      return inAllocation(buffer, tensor, hostop::kMakeVtaTensor, body);
    });
  }

  llvm::Expected<Tensors> tensorsOf(const relax::Arg &arg) {
    if (!arg.var) return ir::diagnosticError(arg.loc, "constants (bound parameters) cannot be compiled yet");
    auto found = tensors_.find(arg.var.get());
    if (found == tensors_.end()) return ir::diagnosticError(arg.loc, "'" + arg.var->name + "' is used before it is computed");
    return found->second;
  }

  std::string calleeSymbol(const relax::Call &call) const {
    auto found = symbols_.find(call.callee);
    return found != symbols_.end() ? found->second : linkSymbol(call.callee);
  }

  const ir::RelaxFunction &func_;
  HostFunction &function_;
  const std::map<std::string, std::string> &symbols_;
  const std::vector<HostFunction> &primFuncs_;
  std::unordered_set<const relax::Var *> onVta_, onCpu_;
  std::unordered_map<const relax::Var *, Tensors> tensors_;          // graph variable -> its DLTensors
  std::unordered_map<const relax::Var *, ir::VarRef> destinations_;  // storage of a result -> output
  std::unordered_map<const relax::Var *, std::vector<relax::Arg>> tupleFields_;  // tuple variable -> its fields
  std::vector<relax::Arg> results_;  // the returned tensors, a returned tuple's fields in its place
  std::vector<const relax::Var *> resultStorage_;                    // per result: see planResults
  std::vector<relax::VarPtr> copiedResults_;  // the storage of the results copied (no graph variable's)
  std::unordered_map<const relax::Var *, const relax::Var *> storageParent_;  // see storageOf
};

}  // namespace

llvm::Expected<HostFunction> lowerRelaxForHost(const ir::RelaxFunction &func, const std::string &name,
                                               const std::string &symbol, const std::map<std::string, std::string> &symbols,
                                               const std::vector<HostFunction> &primFuncs) {
  HostFunction function;
  function.name = name;
  function.symbol = symbol;
  function.graph = true;
  function.loc = func.loc();
  auto body = GraphLowering(func, function, symbols, primFuncs).run();
  if (!body) return body.takeError();
  function.body = *body;
  return function;
}

}  // namespace vtac::codegen
