// The memory and VM builtins' parameters and struct info inference (TVM's relax/op/memory,
// relax/op/builtin and relax/op/vm); see RelaxBuiltins.h.
#include "vtac/ir/RelaxBuiltins.h"

#include <algorithm>

#include "vtac/ir/Printer.h"

namespace vtac::ir::relax {

namespace {

using K = BuiltinParam::Kind;

const std::vector<BuiltinInfo> &builtins() {
  static const std::vector<BuiltinInfo> table = {
      {"memory.alloc_storage",
       {{"size", K::Shape}, {"virtual_device_index", K::Prim}, {"storage_scope", K::String}, {"dtype", K::DType}}},
      {"memory.alloc_tensor",
       {{"storage", K::Value}, {"offset", K::Prim}, {"shape", K::Shape}, {"dtype", K::DType},
        {"runtime_device_ind", K::Prim, false}}},
      {"memory.kill_storage", {{"storage", K::Value}}},
      {"memory.kill_tensor", {{"tensor", K::Value}}},
      {"memory.view",
       {{"data", K::Value}, {"shape", K::Shape, false}, {"dtype", K::DType, false},
        {"relative_byte_offset", K::Prim, false}}},
      {"memory.ensure_zero_offset", {{"data", K::Value}}},
      {"builtin.alloc_tensor",
       {{"shape", K::Shape}, {"dtype", K::DType}, {"runtime_device_index", K::Prim},
        {"storage_scope", K::String, false}}},
      {"builtin.stop_lift_params", {{"x", K::Value}}},
      // The gradient pass's checkpoint markers (relax/op/grad): the value itself.
      {"grad.start_checkpoint", {{"input", K::Value}}},
      {"grad.end_checkpoint", {{"input", K::Value}}},
      {"vm.alloc_storage",
       {{"shape", K::Shape}, {"runtime_device_index", K::Prim}, {"dtype", K::DType},
        {"storage_scope", K::String, false, "global"}}},
      {"vm.alloc_tensor",
       {{"storage", K::Value}, {"offset", K::Prim}, {"shape", K::Shape}, {"dtype", K::DType},
        {"runtime_device_ind", K::Prim, false}}},
      {"vm.kill_object", {{"obj", K::Value}}},
      // VMShapeLower and CallTIRRewrite's leftovers: a prim_func called with every argument (a
      // shape value's sizes unpacked into its scalar parameters), and a runtime builtin that
      // takes the VM's context, its result's struct info given.
      {"vm.call_tir_dyn", {{"func", K::Callee}, {"args", K::Tuple}}},
      {"call_builtin_with_ctx", {{"func", K::Extern}, {"args", K::Tuple}}, false, true},
      // A copy of the tensor on another virtual device of the module (relax/op/op.cc).
      {"to_vdevice", {{"data", K::Value}, {"dst_vdevice", K::VDevice}}},
      {"null_value", {}},
      // TVM's call arguments: the format first (after assert_op's condition), then the values.
      {"print", {{"format", K::String, false, ""}}, true},
      {"assert_op", {{"condition", K::Value}, {"format", K::String, false, ""}}, true},
  };
  return table;
}

// The tensor a view or an allocation makes: `shape` and `dtype` (void when unknown).
StructInfo tensorOf(const Arg &shape, DataType dtype, SourceLoc at) {
  TensorStructInfo tensor;
  tensor.shape = shape.shape;
  tensor.ndim = shape.shape ? int(shape.shape->size()) : -1;
  tensor.dtype = dtype;
  tensor.loc = at;
  return StructInfo(tensor);
}

// The builtin's argument for parameter i: None when an optional one was left out at the end.
const Arg &argumentAt(const Call &call, size_t i) {
  static const Arg none;
  return i < call.args.size() ? call.args[i] : none;
}

// memory.view: the data's tensor with a new shape and/or element type (TVM's view.cc). A
// static view must fit in the static data it views.
std::optional<StructInfo> inferView(const Call &call, SourceLoc at, RelaxDiagnostic &diagnostic) {
  StructInfo data = call.args[0].sinfo();
  if (!data.isTensor()) {
    diagnostic = {call.args[0].loc, "R.memory.view views a tensor, got " + printStructInfo(data)};
    return std::nullopt;
  }
  const Arg &shape = argumentAt(call, 1), &dtype = argumentAt(call, 2), &offset = argumentAt(call, 3);
  TensorStructInfo result = data.tensor;
  result.loc = at;
  if (!shape.isNone()) {
    result.shape = shape.shape;
    result.ndim = int(shape.shape->size());
  }
  if (!dtype.isNone()) result.dtype = *dtype.dtypeValue;
  // Bytes, when every size is constant.
  auto bytesOf = [](const TensorStructInfo &t) -> std::optional<int64_t> {
    if (!t.shape || t.dtype.isVoid()) return std::nullopt;
    int64_t elements = 1;
    for (const Expr &dim : *t.shape) {
      const auto *constant = dim.as<IntImm>();
      if (!constant) return std::nullopt;
      elements *= constant->value;
    }
    return elements * t.dtype.bytes();
  };
  std::optional<int64_t> start = offset.isNone() ? std::optional<int64_t>(0) : std::nullopt;
  if (!offset.isNone())
    if (const auto *constant = offset.prim.as<IntImm>()) start = constant->value;
  std::optional<int64_t> viewed = bytesOf(result), available = bytesOf(data.tensor);
  if (viewed && available && start && *start + *viewed > *available) {
    diagnostic = {at, "R.memory.view of " + std::to_string(*viewed) + " bytes at byte offset " + std::to_string(*start) +
                          " does not fit in the " + std::to_string(*available) + " bytes of " +
                          printStructInfo(data)};
    return std::nullopt;
  }
  return StructInfo(result);
}

}  // namespace

const BuiltinInfo *lookupBuiltin(llvm::StringRef name) {
  for (const BuiltinInfo &info : builtins())
    if (info.name == name) return &info;
  return nullptr;
}

std::optional<StructInfo> inferBuiltinStructInfo(const Call &call, SourceLoc callLoc, RelaxDiagnostic &diagnostic) {
  llvm::StringRef name = call.callee;
  auto dtypeAt = [&](size_t i) { return *call.args[i].dtypeValue; };
  if (name == "memory.alloc_storage" || name == "vm.alloc_storage" || name == "null_value")
    return StructInfo::of(StructInfo::Kind::Object, callLoc);
  if (name == "memory.alloc_tensor" || name == "vm.alloc_tensor") return tensorOf(call.args[2], dtypeAt(3), callLoc);
  if (name == "builtin.alloc_tensor") return tensorOf(call.args[0], dtypeAt(1), callLoc);
  if (name.starts_with("memory.kill") || name == "vm.kill_object" || name == "print" || name == "assert_op" ||
      name == "vm.call_tir_dyn")
    return StructInfo::of(StructInfo::Kind::Tuple, callLoc);
  // The given struct info, else any object (TVM's InferStructInfoCallBuiltinWithCtx).
  if (name == "call_builtin_with_ctx")
    return call.sinfoArgs.empty() ? StructInfo::of(StructInfo::Kind::Object, callLoc) : call.sinfoArgs.front();
  if (name == "memory.view") return inferView(call, callLoc, diagnostic);
  if (name == "to_vdevice") {
    StructInfo data = call.args[0].sinfo();
    if (!data.isTensor()) {
      diagnostic = {call.args[0].loc, "R.to_vdevice moves a tensor, got " + printStructInfo(data)};
      return std::nullopt;
    }
    data.tensor.vdevice = *call.args[1].text;
    data.tensor.loc = data.loc = callLoc;
    return data;
  }
  // ensure_zero_offset, stop_lift_params, the checkpoints: the argument's.
  StructInfo same = call.args[0].sinfo();
  same.loc = callLoc;
  return same;
}

std::string printBuiltinArguments(const Call &call, const std::function<std::string(const Arg &)> &use,
                                  const std::function<std::string(const std::string &)> &moduleFunction) {
  const BuiltinInfo &info = *lookupBuiltin(call.callee);
  std::string text, format;
  auto append = [&](const std::string &piece) { text += (text.empty() ? "" : ", ") + piece; };
  bool byKeyword = false;
  for (size_t i = 0; i < call.args.size(); ++i) {
    if (i < info.params.size() && info.variadic && info.params[i].name == "format") {
      format = "format=" + use(call.args[i]);
    } else if (call.args[i].isNone()) {
      byKeyword = true;
    } else {
      K kind = i < info.params.size() ? info.params[i].kind : K::Value;
      std::string value = kind == K::Callee                       ? moduleFunction(*call.args[i].text)
                          : kind == K::Extern || kind == K::VDevice ? "\"" + *call.args[i].text + "\""
                                                                    : use(call.args[i]);
      // TVM prints a device by keyword (an attribute of the call).
      append((byKeyword || kind == K::VDevice ? info.params[i].name.str() + "=" : std::string()) + value);
    }
  }
  if (!format.empty()) append(format);
  // TVM prints sinfo_args as a tuple.
  if (info.sinfoArgs) append("sinfo_args=(" + printStructInfo(call.sinfoArgs.front()) + ",)");
  return text;
}

}  // namespace vtac::ir::relax
