// The builtins of TVM's memory planning and VM lowering that vtac reads and prints
// (relax/op/memory, relax/op/builtin, relax/op/vm; also R.print, R.assert_op and the
// gradient checkpoint markers R.grad.start/end_checkpoint): the calls TVM's StaticPlanBlockMemory,
// LowerAllocTensor and VMBuiltinLower leave in a graph, such as
//   storage: R.Object = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("float32"))
//   alloc: R.Tensor((2, 4), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([2, 4]), R.dtype("float32"))
//   R.memory.kill_tensor(alloc)
//   R.print(x, format=R.str("x: {}"))
//   R.vm.call_tir_dyn(cls.full, (alloc, R.shape([n])))
//   heap: R.Tensor(dtype="int64", ndim=1) = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (R.prim_value(2),), sinfo_args=(R.Tensor(dtype="int64", ndim=1),))
// Each has TVM's parameters, in order: a Relax value, a shape (`R.shape([..])`, or a list), a
// scalar (`R.prim_value(0)`, or a number), a string (`R.str("global")`, or "global") or a
// data type (`R.dtype("float32")`, or "float32"), some optional. Their results' struct info is
// inferred as TVM's FInferStructInfo does: an object (storage), a tensor of the given shape and
// type, an empty tuple (the kills, R.print, R.assert_op, R.vm.call_tir_dyn), the viewed tensor,
// or the given sinfo_args (R.call_builtin_with_ctx, printed always; R.Object when not given). vtac neither runs nor compiles them
// yet (a located refusal); they are here so that lowered modules parse, print and compare.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <llvm/ADT/StringRef.h>

#include "vtac/ir/Relax.h"

namespace vtac::ir::relax {

struct BuiltinParam {
  // Callee: a prim_func of the module (`cls.f`); Extern: a runtime function's name ("vm.builtin.x"),
  // printed as a bare string; both keep the name in the argument's `text`. Tuple: a tuple of values.
  // VDevice: a virtual device of the module, "llvm:0" in `text`, printed by keyword.
  enum class Kind { Value, Shape, Prim, String, DType, Callee, Extern, Tuple, VDevice };
  llvm::StringLiteral name;
  Kind kind;
  // Absent arguments: a required one is an error; `defaultValue` fills the others when set
  // (R.prim_value(0), R.str("global")), else they stay absent (printed only when given).
  bool required = true;
  std::optional<std::string> defaultValue = std::nullopt;
};

struct BuiltinInfo {
  llvm::StringLiteral name;  // "memory.alloc_storage"
  std::vector<BuiltinParam> params;
  // R.print(*values, format=""), R.assert_op(condition, format_args, format=""): any number of
  // values follow the parameters in `Call::args`, and the `format` parameter prints after them,
  // by keyword, as TVM's printer writes it.
  bool variadic = false;
  // R.call_builtin_with_ctx(func, args, sinfo_args=...): the result's struct info is given, and
  // printed after the arguments.
  bool sinfoArgs = false;
};

// The builtin TVM registers as "relax.<name>", when vtac reads it; null otherwise.
const BuiltinInfo *lookupBuiltin(llvm::StringRef name);

// The struct info of a builtin call's result (its `args` in parameter order, None where left
// out, optional ones at the end maybe absent), or nullopt with `diagnostic` set at the argument at fault.
std::optional<StructInfo> inferBuiltinStructInfo(const Call &call, SourceLoc callLoc, RelaxDiagnostic &diagnostic);

// "x, R.shape([2, 4]), dtype=R.dtype(\"int32\")": the arguments as TVM prints them, positional up
// to the first one left out, by keyword after it.
// `moduleFunction` prints a Callee's name (`cls.f`).
std::string printBuiltinArguments(const Call &call, const std::function<std::string(const Arg &)> &use,
                                  const std::function<std::string(const std::string &)> &moduleFunction);

}  // namespace vtac::ir::relax
