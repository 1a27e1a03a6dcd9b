#include "relax/VtaGraphPack.h"

#include <unordered_map>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Relax.h"
#include "vtac/ir/RelaxOperators.h"

namespace vtac::passes {

namespace relax = ir::relax;

namespace {

using relax::Arg;
using relax::Binding;
using relax::Call;
using relax::TensorStructInfo;
using relax::VarPtr;

// (N, C, H, W) -> (N/B, B, C/BI, BI, H, W) -> permute -> (N/B, C/BI, H, W, B, BI); the same for
// OIHW weights with (O/BO, BO, I/BI, BI, KH, KW).
const std::vector<int64_t> kPackAxes = {0, 2, 4, 5, 1, 3};
const std::vector<int64_t> kUnpackAxes = {0, 4, 1, 5, 2, 3};

std::optional<std::vector<int64_t>> constantShape(const relax::StructInfo &sinfo) {
  if (!sinfo.isTensor() || !sinfo.tensor.shape) return std::nullopt;
  std::vector<int64_t> shape;
  for (const ir::Expr &dim : *sinfo.tensor.shape) {
    std::optional<int64_t> size = ir::asConstInt(dim);
    if (!size) return std::nullopt;
    shape.push_back(*size);
  }
  return shape;
}

std::vector<ir::Expr> dims(const std::vector<int64_t> &shape) {
  std::vector<ir::Expr> result;
  for (int64_t size : shape) result.push_back(ir::intImm(size, ir::DataType::int64()));
  return result;
}

// The 6-d shape a 4-d one is reshaped to before the packing permutation, blocking axis 0 by
// `outer` and axis 1 by `inner`.
std::vector<int64_t> blockedShape(const std::vector<int64_t> &shape, int64_t outer, int64_t inner) {
  return {shape[0] / outer, outer, shape[1] / inner, inner, shape[2], shape[3]};
}

std::vector<int64_t> permuted(const std::vector<int64_t> &shape, const std::vector<int64_t> &axes) {
  std::vector<int64_t> result;
  for (int64_t axis : axes) result.push_back(shape[size_t(axis)]);
  return result;
}

// A constant's data packed as a weight: element [o, i, y, x] to [o/BO, i/BI, y, x, o%BO, i%BI].
relax::ConstantPtr packedConstant(const relax::Constant &weight, int64_t blockOut, int64_t blockIn) {
  const relax::TensorData &data = *weight.data;
  std::vector<int64_t> blocked = blockedShape(data.shape, blockOut, blockIn);
  std::vector<int64_t> shape = permuted(blocked, kPackAxes);
  size_t elementBytes = size_t(data.dtype.bytes());
  auto packed = std::make_shared<relax::TensorData>(relax::TensorData{data.dtype, shape, {}});
  packed->bytes.resize(data.bytes.size());
  // Strides of the blocked view, in elements.
  std::vector<int64_t> strides(6, 1);
  for (int d = 4; d >= 0; --d) strides[size_t(d)] = strides[size_t(d) + 1] * blocked[size_t(d) + 1];
  std::vector<int64_t> index(6, 0);
  size_t total = data.bytes.size() / elementBytes;
  for (size_t out = 0; out < total; ++out) {
    // `index` walks the packed shape in C order; the source element is the blocked view's.
    int64_t source = 0;
    for (size_t d = 0; d < 6; ++d) source += index[d] * strides[size_t(kPackAxes[d])];
    std::copy_n(data.bytes.begin() + ptrdiff_t(size_t(source) * elementBytes), elementBytes,
                packed->bytes.begin() + ptrdiff_t(out * elementBytes));
    for (int d = 5; d >= 0 && ++index[size_t(d)] == shape[size_t(d)]; --d) index[size_t(d)] = 0;
  }
  auto constant = std::make_shared<relax::Constant>(weight);
  constant->sinfo = TensorStructInfo::known(dims(shape), data.dtype, weight.sinfo.loc);
  constant->data = std::move(packed);
  return constant;
}

relax::ConstantPtr scalarConstant(ir::Expr value, ir::SourceLoc loc) {
  auto constant = std::make_shared<relax::Constant>();
  constant->sinfo = TensorStructInfo::known({}, value->dtype, loc);
  constant->scalar = std::move(value);
  constant->loc = loc;
  return constant;
}

Arg use(VarPtr var, ir::SourceLoc loc) {
  Arg arg;
  arg.var = std::move(var);
  arg.loc = loc;
  return arg;
}

Arg use(relax::ConstantPtr constant, ir::SourceLoc loc) {
  Arg arg;
  arg.constant = std::move(constant);
  arg.loc = loc;
  return arg;
}

// The elementwise operators the packed region keeps (of the unary ones only nn.relu, which VTA's
// ALU runs).
bool isElementwise(const Call &call) {
  using F = relax::OperatorFamily;
  F family = relax::lookupOperator(call.callee)->family;
  return family == F::ElementwiseBinary || family == F::BitwiseBinary || call.callee == "nn.relu" ||
         family == F::Clip || family == F::Astype;
}

bool isScalar(const Arg &arg) {
  relax::StructInfo sinfo = arg.sinfo();
  return sinfo.isTensor() && sinfo.tensor.rank() == 0;
}

class FunctionPacker {
public:
  FunctionPacker(const vta::Config &vta, PassContext &context) : vta_(vta), context_(context) {}

  // The function's blocks with the region between `begin` and `end` (binding positions in order)
  // packed; an error (located at the call) only if a call it builds has no struct info.
  llvm::Expected<std::vector<relax::BindingBlock>> pack(const ir::RelaxFunction &func, size_t begin, size_t end) {
    std::vector<relax::BindingBlock> blocks;
    size_t position = 0;
    for (const relax::BindingBlock &block : func.blocks) {
      out_.clear();
      dataflow_ = block.dataflow;
      for (const Binding &binding : block.bindings) {
        bool inRegion = position >= begin && position < end;
        ++position;
        if (inRegion && binding.call && binding.call->kind == relax::CallKind::Operator) {
          if (packCall(binding)) {
            // A value other blocks see is unpacked right away.
            if (!binding.var->dataflow) materialize(binding.var);
            continue;
          }
        }
        materializeUses(binding);
        out_.push_back(binding);
      }
      relax::BindingBlock packedBlock = block;
      packedBlock.bindings = std::move(out_);
      blocks.push_back(std::move(packedBlock));
      if (block.dataflow) {
        // Its variables end with it: later blocks pack again what they use.
        packed_.clear();
        weights_.clear();
        replaced_.clear();
      }
    }
    for (const Arg &result : func.results) relax::forEachVarRead(result, [&](const VarPtr &var) { materialize(var); });
    if (failure_) return ir::diagnosticError(failure_->loc, failure_->message);
    // A result unpacked only now (a dataflow variable cannot be returned, so this is the last
    // block's variable outside dataflow) goes at the end of the last block.
    if (!out_.empty()) blocks.back().bindings.insert(blocks.back().bindings.end(), out_.begin(), out_.end());
    return blocks;
  }

  size_t packedCount() const { return packedConvs_; }

private:
  // The packed value of `arg` (an NCHW tensor of `shape`), packing it on first use.
  Arg packedValue(const Arg &arg, const std::vector<int64_t> &shape) {
    if (arg.var)
      if (auto it = packed_.find(arg.var.get()); it != packed_.end()) return use(it->second, arg.loc);
    std::vector<int64_t> blocked = blockedShape(shape, vta_.batch, vta_.blockIn);
    std::string name = arg.var ? arg.var->name : "const";
    Arg reshaped = emitReshape(arg, blocked, name + "_blocked", arg.loc);
    Arg result = emitPermute(reshaped, kPackAxes, name + "_packed", arg.loc);
    if (arg.var) packed_[arg.var.get()] = result.var;
    return result;
  }

  // Binds `var` (replaced by a packed value) to its NCHW value, where it is first needed.
  void materialize(const VarPtr &var) {
    if (!replaced_.erase(var.get())) return;
    std::vector<int64_t> shape = *constantShape(var->sinfo);
    Arg permutedBack = emitPermute(use(packed_.at(var.get()), var->loc), kUnpackAxes, var->name + "_unpacked", var->loc);
    Call reshape = operatorCall("reshape", {permutedBack}, var->loc);
    reshape.outSinfo.shape = dims(shape);
    emit(var, std::move(reshape), /*fresh=*/false);
  }

  void materializeUses(const Binding &binding) {
    auto use = [&](const VarPtr &var) { materialize(var); };
    if (binding.ifElse || binding.function) {
      // Branches and local functions may read anything: every pending value is unpacked.
      std::vector<VarPtr> pending;
      for (const auto &[key, original] : replaced_) pending.push_back(original);
      for (const VarPtr &var : pending) materialize(var);
      return;
    }
    if (binding.call)
      for (const Arg &arg : binding.call->args) relax::forEachVarRead(arg, use);
    relax::forEachVarRead(binding.alias, use);
    if (binding.tuple)
      for (const Arg &field : *binding.tuple) relax::forEachVarRead(field, use);
  }

  static Call operatorCall(const std::string &callee, std::vector<Arg> args, ir::SourceLoc loc) {
    Call call;
    call.kind = relax::CallKind::Operator;
    call.callee = callee;
    call.calleeLoc = loc;
    call.args = std::move(args);
    return call;
  }

  // Infers the call's result and binds it to `var` (given that struct info when `fresh`: a
  // variable the input has keeps its own); returns the use.
  Arg emit(VarPtr var, Call call, bool fresh = true) {
    relax::RelaxDiagnostic diagnostic;
    // The packer builds tensor operators only.
    std::optional<relax::StructInfo> sinfo = relax::inferOperatorStructInfo(call, call.calleeLoc, call.calleeLoc, diagnostic);
    if (!sinfo) {
      // Not expected (the calls are built from shapes that fit), but never a crash.
      if (!failure_) failure_ = diagnostic;
      sinfo = relax::StructInfo(TensorStructInfo::known({}, ir::DataType::voidTy()));
    }
    call.outSinfo = sinfo->tensor;
    Binding binding;
    binding.var = var;
    if (fresh) binding.var->sinfo = relax::StructInfo(*sinfo);
    binding.loc = call.calleeLoc;
    binding.call = std::move(call);
    out_.push_back(binding);
    return use(var, binding.loc);
  }

  VarPtr freshVar(const std::string &name, ir::SourceLoc loc) {
    auto var = std::make_shared<relax::Var>();
    var->name = name;
    var->dataflow = dataflow_;
    var->loc = loc;
    return var;
  }

  Arg emitReshape(const Arg &arg, const std::vector<int64_t> &shape, const std::string &name, ir::SourceLoc loc) {
    Call reshape = operatorCall("reshape", {arg}, loc);
    reshape.outSinfo.shape = dims(shape);
    return emit(freshVar(name, loc), std::move(reshape));
  }

  Arg emitPermute(const Arg &arg, const std::vector<int64_t> &axes, const std::string &name, ir::SourceLoc loc) {
    Call permute = operatorCall("permute_dims", {arg}, loc);
    permute.axes = axes;
    return emit(freshVar(name, loc), std::move(permute));
  }

  // Records that `original` is computed packed as `packedVar`.
  void replace(const VarPtr &original, const Arg &packedValue) {
    packed_[original.get()] = packedValue.var;
    replaced_[original.get()] = original;
  }

  bool isPacked(const Arg &arg) const { return arg.var && packed_.count(arg.var.get()); }

  // Packs the operator call bound by `binding` when it is one the region packs; false leaves it
  // to the caller unchanged.
  bool packCall(const Binding &binding) {
    const Call &call = *binding.call;
    relax::OperatorFamily family = relax::lookupOperator(call.callee)->family;
    if (family == relax::OperatorFamily::Conv2D) return packConv2d(binding);
    if (!isElementwise(call)) return false;
    // One packed operand; the others scalars or NCHW tensors that broadcast to the result along
    // the batch (when BATCH is 1), rows or columns only (a per-channel bias), packed on the way.
    std::optional<std::vector<int64_t>> shape = constantShape(binding.var->sinfo);
    if (!shape || shape->size() != 4) return false;
    auto broadcastsAlongChannels = [&](const std::vector<int64_t> &operand) {
      return operand.size() == 4 && operand[1] == (*shape)[1] &&
             (operand[0] == (*shape)[0] || (operand[0] == 1 && vta_.batch == 1)) &&
             (operand[2] == (*shape)[2] || operand[2] == 1) && (operand[3] == (*shape)[3] || operand[3] == 1);
    };
    bool anyPacked = false;
    for (const Arg &arg : call.args) {
      anyPacked |= isPacked(arg);
      std::optional<std::vector<int64_t>> operand = constantShape(arg.sinfo());
      if (!isPacked(arg) && !isScalar(arg) && (!operand || !broadcastsAlongChannels(*operand))) return false;
    }
    if (!anyPacked) return false;
    Call packedCall = call;
    for (Arg &arg : packedCall.args)
      if (!isScalar(arg)) arg = packedValue(arg, *constantShape(arg.sinfo()));
    if (family == relax::OperatorFamily::Clip) {
      // VTA's clip: min with the upper bound, then max with the lower (two ALU stages).
      ir::DataType dtype = binding.var->sinfo.tensor.dtype;
      const auto &bounds = std::get<relax::ClipAttrs>(call.attrs);
      Arg upper = use(scalarConstant(relax::clipBoundOf(bounds.max, dtype), call.calleeLoc), call.calleeLoc);
      Arg lower = use(scalarConstant(relax::clipBoundOf(bounds.min, dtype), call.calleeLoc), call.calleeLoc);
      Arg clipped = emit(freshVar(binding.var->name + "_min", binding.loc),
                         operatorCall("minimum", {packedCall.args[0], upper}, call.calleeLoc));
      replace(binding.var, emit(freshVar(binding.var->name + "_packed", binding.loc),
                                operatorCall("maximum", {clipped, lower}, call.calleeLoc)));
      return true;
    }
    replace(binding.var, emit(freshVar(binding.var->name + "_packed", binding.loc), std::move(packedCall)));
    return true;
  }

  bool packConv2d(const Binding &binding) {
    const Call &call = *binding.call;
    const auto &attrs = std::get<relax::Conv2DAttrs>(call.attrs);
    relax::StructInfo data = call.args[0].sinfo(), weight = call.args[1].sinfo();
    std::optional<std::vector<int64_t>> dataShape = constantShape(data), weightShape = constantShape(weight);
    int64_t batch = vta_.batch, blockIn = vta_.blockIn, blockOut = vta_.blockOut;
    // What VTA's GEMM core computes: int8 x int8 -> int32, the channels in whole blocks.
    bool fits = attrs.dataLayout == "NCHW" && attrs.kernelLayout == "OIHW" && attrs.outLayout == "NCHW" &&
                attrs.groups == 1 && attrs.dilation == std::vector<int64_t>{1, 1} &&
                attrs.outDtype == ir::DataType::int32() && data.tensor.dtype == ir::DataType::intTy(8) &&
                weight.tensor.dtype == ir::DataType::intTy(8) && dataShape && weightShape &&
                (*dataShape)[0] % batch == 0 && (*dataShape)[1] % blockIn == 0 && (*weightShape)[0] % blockOut == 0;
    if (!fits) {
      context_.emitRemark(call.calleeLoc, "vta-graph-pack leaves this R.nn.conv2d unpacked: VTA runs int8 NCHW x OIHW "
                                          "-> int32 convolutions of groups 1, no dilation, batch a multiple of " +
                                              std::to_string(batch) + " and channels multiples of " +
                                              std::to_string(blockIn) + " (in) and " + std::to_string(blockOut) + " (out)");
      return false;
    }
    Arg packedData = packedValue(call.args[0], *dataShape);
    Arg packedWeight;
    const Arg &w = call.args[1];
    if (w.constant && w.constant->data) {
      packedWeight = use(packedConstant(*w.constant, blockOut, blockIn), w.loc);
    } else if (auto it = w.var ? weights_.find(w.var.get()) : weights_.end(); it != weights_.end()) {
      packedWeight = it->second;
    } else {
      std::string name = w.var ? w.var->name : "weight";
      Arg reshaped = emitReshape(w, blockedShape(*weightShape, blockOut, blockIn), name + "_blocked", w.loc);
      packedWeight = emitPermute(reshaped, kPackAxes, name + "_packed", w.loc);
      if (w.var) weights_[w.var.get()] = packedWeight;
    }
    Call conv = call;
    conv.args = {packedData, packedWeight};
    auto &packedAttrs = std::get<relax::Conv2DAttrs>(conv.attrs);
    packedAttrs.dataLayout = packedAttrs.outLayout = "NCHW" + std::to_string(batch) + "n" + std::to_string(blockIn) + "c";
    packedAttrs.kernelLayout = "OIHW" + std::to_string(blockOut) + "o" + std::to_string(blockIn) + "i";
    replace(binding.var, emit(freshVar(binding.var->name + "_packed", binding.loc), std::move(conv)));
    ++packedConvs_;
    return true;
  }

  const vta::Config &vta_;
  PassContext &context_;
  std::vector<Binding> out_;
  bool dataflow_ = true;  // the block being packed is a dataflow block
  std::optional<relax::RelaxDiagnostic> failure_;
  std::unordered_map<const relax::Var *, VarPtr> packed_;    // NCHW value -> packed value
  std::unordered_map<const relax::Var *, VarPtr> replaced_;  // packed and not bound yet (its packed value: packed_)
  std::unordered_map<const relax::Var *, Arg> weights_;      // weight parameter -> packed
  size_t packedConvs_ = 0;
};

// The positions (in binding order) of the first call of `op`, from `from` on; `count` when none.
size_t firstCall(const ir::RelaxFunction &func, const std::string &op, size_t from, size_t count) {
  size_t position = 0;
  for (const relax::BindingBlock &block : func.blocks)
    for (const Binding &binding : block.bindings) {
      if (position >= from && binding.call && binding.call->kind == relax::CallKind::Operator &&
          binding.call->callee == op)
        return position;
      ++position;
    }
  return count;
}

std::string optionOr(const PassContext &context, llvm::StringRef name, const std::string &fallback) {
  auto it = context.options.find(name);
  return it == context.options.end() ? fallback : it->second;
}

}  // namespace

llvm::Error vtaGraphPack(ir::IRModule &module, PassContext &context) {
  std::string start = optionOr(context, "graph-pack-start", "nn.max_pool2d");
  std::string stop = optionOr(context, "graph-pack-stop", "nn.adaptive_avg_pool2d");
  for (const std::string &op : {start, stop})
    if (!relax::lookupOperator(op))
      return ir::diagnosticError("vta-graph-pack: '" + op + "' is no operator vtac knows" + relax::unknownOperatorHint(op));
  std::vector<ir::IRModule::Entry> entries = module.functions();
  for (const ir::IRModule::Entry &entry : entries) {
    const ir::RelaxFunction *func = ir::asRelaxFunction(entry.function);
    if (!func) continue;
    size_t count = 0;
    for (const relax::BindingBlock &block : func->blocks) count += block.bindings.size();
    size_t startAt = firstCall(*func, start, 0, count);
    size_t begin = startAt == count ? 0 : startAt + 1;
    size_t end = firstCall(*func, stop, begin, count);
    FunctionPacker packer(context.vta, context);
    llvm::Expected<std::vector<relax::BindingBlock>> blocks = packer.pack(*func, begin, end);
    if (!blocks) return blocks.takeError();
    if (!packer.packedCount()) continue;
    auto *copy = ir::copyNode(*func);
    copy->blocks = std::move(*blocks);
    module.add(entry.name->name, ir::FunctionRef(copy));
  }
  return llvm::Error::success();
}

}  // namespace vtac::passes
