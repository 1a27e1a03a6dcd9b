// The table of builtin call ops: how each is spelled in TVMScript and what dtype a call of it
// has when the text does not say.
//
// `T.shift_right(a, b)` is the op "tir.shift_right" with a's dtype; `T.call_extern("int32",
// "f", ...)` carries its dtype first; `T.tir.vta.uop_push(...)` is "tir.vta.uop_push", int32.
// The frontend maps a `T.<name>(...)` call to an op with lookupBuiltinByScriptName and types it
// with defaultCallType; the printer does the reverse and falls back to
// `T.call_intrin("dtype", "op", args...)` for ops not in the table or calls whose dtype differs
// from the default. The VTA intrinsics are listed here as names and signatures only (as TVM's
// op registry lists them); their meaning lives in the passes and the backends.
#pragma once

#include <optional>
#include <vector>

#include <llvm/ADT/StringRef.h>

#include "vtac/ir/Expr.h"

namespace vtac::ir {

enum class CallTypeRule : uint8_t {
  Fixed,       // always BuiltinInfo::fixedType
  SameAsArg0,  // dtype of the first argument
  SameAsArg1,  // dtype of the second argument (if_then_else)
  DtypeFirst,  // written as the first argument: T.call_extern("int32", ...)
};

struct BuiltinInfo {
  const char *op;          // "tir.shift_right"
  const char *scriptName;  // after "T.": "shift_right", "tir.vta.uop_push"
  CallTypeRule rule;
  DataType fixedType;      // for CallTypeRule::Fixed
};

const BuiltinInfo *lookupBuiltin(llvm::StringRef op);
// By the name after "T." ("shift_right", "tir.vta.uop_push").
const BuiltinInfo *lookupBuiltinByScriptName(llvm::StringRef scriptName);
// The dtype of a call of `info` with `args` when none is written; nullopt for DtypeFirst ops
// and when the rule's argument is missing.
std::optional<DataType> defaultCallType(const BuiltinInfo &info, const std::vector<Expr> &args);

// The callee named by `T.call_extern(dtype, "name", ...)` (or call_pure_extern); "" for any other
// expression.
llvm::StringRef externCallee(const Expr &expr);

// The storage variable a handle value refers to: the variable itself, or `data` in the CPU view
// `VTABufferCPUPtr(cmd, data)` that cpu-access-rewrite binds; null for any other value. The
// interpreter and the code generators treat such a pointer as an alias of that storage.
const Var *storageViewedBy(const Expr &handle);

}  // namespace vtac::ir
