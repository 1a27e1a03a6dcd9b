// The builtin op table (see Builtins.h).
#include "vtac/ir/Builtins.h"

#include <llvm/ADT/StringMap.h>

namespace vtac::ir {
namespace {

constexpr DataType kInt32 = DataType::int32();
constexpr DataType kHandle = DataType::handle();
constexpr DataType kBool = DataType::boolTy();

const BuiltinInfo kBuiltins[] = {
    // Dtype written first.
    {"tir.call_extern", "call_extern", CallTypeRule::DtypeFirst, {}},
    {"tir.call_pure_extern", "call_pure_extern", CallTypeRule::DtypeFirst, {}},
    {"tir.call_llvm_intrin", "call_llvm_intrin", CallTypeRule::DtypeFirst, {}},
    {"tir.call_llvm_pure_intrin", "call_llvm_pure_intrin", CallTypeRule::DtypeFirst, {}},
    {"tir.reinterpret", "reinterpret", CallTypeRule::DtypeFirst, {}},
    {"tir.vectorlow", "vectorlow", CallTypeRule::DtypeFirst, {}},
    {"tir.vectorhigh", "vectorhigh", CallTypeRule::DtypeFirst, {}},
    {"tir.type_annotation", "type_annotation", CallTypeRule::DtypeFirst, {}},
    // Result typed like an argument.
    {"tir.if_then_else", "if_then_else", CallTypeRule::SameAsArg1, {}},
    {"tir.likely", "likely", CallTypeRule::SameAsArg0, {}},
    {"tir.shift_left", "shift_left", CallTypeRule::SameAsArg0, {}},
    {"tir.shift_right", "shift_right", CallTypeRule::SameAsArg0, {}},
    {"tir.bitwise_and", "bitwise_and", CallTypeRule::SameAsArg0, {}},
    {"tir.bitwise_or", "bitwise_or", CallTypeRule::SameAsArg0, {}},
    {"tir.bitwise_xor", "bitwise_xor", CallTypeRule::SameAsArg0, {}},
    {"tir.bitwise_not", "bitwise_not", CallTypeRule::SameAsArg0, {}},
    {"tir.exp", "exp", CallTypeRule::SameAsArg0, {}},
    {"tir.exp2", "exp2", CallTypeRule::SameAsArg0, {}},
    {"tir.exp10", "exp10", CallTypeRule::SameAsArg0, {}},
    {"tir.log", "log", CallTypeRule::SameAsArg0, {}},
    {"tir.log2", "log2", CallTypeRule::SameAsArg0, {}},
    {"tir.log10", "log10", CallTypeRule::SameAsArg0, {}},
    {"tir.log1p", "log1p", CallTypeRule::SameAsArg0, {}},
    {"tir.sqrt", "sqrt", CallTypeRule::SameAsArg0, {}},
    {"tir.rsqrt", "rsqrt", CallTypeRule::SameAsArg0, {}},
    {"tir.tanh", "tanh", CallTypeRule::SameAsArg0, {}},
    {"tir.sigmoid", "sigmoid", CallTypeRule::SameAsArg0, {}},
    {"tir.sin", "sin", CallTypeRule::SameAsArg0, {}},
    {"tir.cos", "cos", CallTypeRule::SameAsArg0, {}},
    {"tir.tan", "tan", CallTypeRule::SameAsArg0, {}},
    {"tir.erf", "erf", CallTypeRule::SameAsArg0, {}},
    {"tir.floor", "floor", CallTypeRule::SameAsArg0, {}},
    {"tir.ceil", "ceil", CallTypeRule::SameAsArg0, {}},
    {"tir.round", "round", CallTypeRule::SameAsArg0, {}},
    {"tir.trunc", "trunc", CallTypeRule::SameAsArg0, {}},
    {"tir.nearbyint", "nearbyint", CallTypeRule::SameAsArg0, {}},
    {"tir.fabs", "fabs", CallTypeRule::SameAsArg0, {}},
    {"tir.pow", "pow", CallTypeRule::SameAsArg0, {}},
    {"tir.fmod", "fmod", CallTypeRule::SameAsArg0, {}},
    {"tir.popcount", "popcount", CallTypeRule::SameAsArg0, {}},
    // Fixed result types.
    {"tir.assume", "assume", CallTypeRule::Fixed, kBool},
    {"tir.isnan", "isnan", CallTypeRule::Fixed, kBool},
    {"tir.isinf", "isinf", CallTypeRule::Fixed, kBool},
    {"tir.isfinite", "isfinite", CallTypeRule::Fixed, kBool},
    {"tir.call_packed", "call_packed", CallTypeRule::Fixed, kInt32},
    {"tir.tvm_access_ptr", "tvm_access_ptr", CallTypeRule::Fixed, kHandle},
    {"tir.tvm_thread_context", "tvm_thread_context", CallTypeRule::Fixed, kHandle},
    {"tir.tvm_tuple", "tvm_tuple", CallTypeRule::Fixed, kHandle},
    {"tir.address_of", "address_of", CallTypeRule::Fixed, kHandle},
    {"tir.tvm_storage_sync", "tvm_storage_sync", CallTypeRule::Fixed, kInt32},
    {"tir.tvm_thread_allreduce", "tvm_thread_allreduce", CallTypeRule::Fixed, kHandle},
    {"tir.tvm_mma_sync", "tvm_mma_sync", CallTypeRule::Fixed, kHandle},
    {"tir.tvm_fill_fragment", "tvm_fill_fragment", CallTypeRule::Fixed, kHandle},
    {"tir.tvm_load_matrix_sync", "tvm_load_matrix_sync", CallTypeRule::Fixed, kHandle},
    {"tir.tvm_store_matrix_sync", "tvm_store_matrix_sync", CallTypeRule::Fixed, kHandle},
    // VTA intrinsics (TVM registers them without a short script name).
    {"tir.vta.command_handle", "tir.vta.command_handle", CallTypeRule::Fixed, kHandle},
    {"tir.vta.uop_push", "tir.vta.uop_push", CallTypeRule::Fixed, kInt32},
    {"tir.vta.coproc_sync", "tir.vta.coproc_sync", CallTypeRule::Fixed, kInt32},
    {"tir.vta.coproc_dep_push", "tir.vta.coproc_dep_push", CallTypeRule::Fixed, kInt32},
    {"tir.vta.coproc_dep_pop", "tir.vta.coproc_dep_pop", CallTypeRule::Fixed, kInt32},
};

struct Index {
  llvm::StringMap<const BuiltinInfo *> byOp, byScriptName;
  Index() {
    for (const BuiltinInfo &info : kBuiltins) {
      byOp[info.op] = &info;
      byScriptName[info.scriptName] = &info;
    }
  }
};

const Index &index() {
  static const Index instance;
  return instance;
}

const BuiltinInfo *find(const llvm::StringMap<const BuiltinInfo *> &map, llvm::StringRef key) {
  auto it = map.find(key);
  return it == map.end() ? nullptr : it->second;
}

}  // namespace

const BuiltinInfo *lookupBuiltin(llvm::StringRef op) { return find(index().byOp, op); }

const BuiltinInfo *lookupBuiltinByScriptName(llvm::StringRef scriptName) {
  return find(index().byScriptName, scriptName);
}

std::optional<DataType> defaultCallType(const BuiltinInfo &info, const std::vector<Expr> &args) {
  switch (info.rule) {
  case CallTypeRule::Fixed: return info.fixedType;
  case CallTypeRule::SameAsArg0:
    if (!args.empty()) return args[0]->dtype;
    return std::nullopt;
  case CallTypeRule::SameAsArg1:
    if (args.size() > 1) return args[1]->dtype;
    return std::nullopt;
  case CallTypeRule::DtypeFirst: return std::nullopt;
  }
  return std::nullopt;
}

llvm::StringRef externCallee(const Expr &expr) {
  auto *call = expr.as<Call>();
  if (!call || (call->op != "tir.call_extern" && call->op != "tir.call_pure_extern") || call->args.empty()) return "";
  auto *name = call->args[0].as<StringImm>();
  return name ? llvm::StringRef(name->value) : "";
}

const Var *storageViewedBy(const Expr &handle) {
  if (auto *var = handle.as<Var>()) return var;
  if (externCallee(handle) != "VTABufferCPUPtr") return nullptr;
  auto &args = handle.as<Call>()->args;
  return args.size() == 3 ? args[2].as<Var>() : nullptr;
}

}  // namespace vtac::ir
