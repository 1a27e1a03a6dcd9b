// Functions and modules: the Function base (attributes), PrimFunc (a TIR function),
// GlobalVar (a function's name inside a module) and IRModule (name -> function, in order).
//
// Relax functions (@R.function, Relax.h) are the other Function subclass; code that only
// handles PrimFuncs checks `func->as<PrimFunc>()`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <llvm/ADT/StringMap.h>

#include "vtac/ir/AttrValue.h"
#include "vtac/ir/Stmt.h"

namespace vtac::ir {

class Function : public Node {
public:
  AttrMap attrs;  // T.func_attr({...})
  // `@T.prim_func(private=True)`, `@R.function(private=True)`: TVM gives the function no
  // global_symbol, so it is not visible outside the module.
  bool isPrivate = false;
  static bool classof(NodeKind k) { return kindInRange(k, kFirstFunctionKind, kLastFunctionKind); }

protected:
  Function(NodeKind kind, AttrMap attrs, SourceLoc loc) : Node(kind, loc), attrs(std::move(attrs)) {}
};
using FunctionRef = Ref<Function>;

// A TIR function. params are variables (handles for buffers, scalars otherwise); bufferMap
// binds handle params to the buffers they hold (`A: T.Buffer(...)` or `T.match_buffer`), in
// parameter order. retType is void unless the function returns a scalar.
class PrimFunc : public Function {
public:
  std::vector<VarRef> params;
  std::vector<std::pair<VarRef, BufferRef>> bufferMap;
  DataType retType;
  Stmt body;
  PrimFunc(std::vector<VarRef> params, std::vector<std::pair<VarRef, BufferRef>> bufferMap,
           Stmt body, AttrMap attrs = {}, DataType retType = DataType::voidTy(), SourceLoc loc = {})
      : Function(NodeKind::PrimFunc, std::move(attrs), loc), params(std::move(params)),
        bufferMap(std::move(bufferMap)), retType(retType), body(std::move(body)) {}
  // The buffer bound to param, or null.
  BufferRef bufferOf(const VarRef &param) const;
  static bool classof(NodeKind k) { return k == NodeKind::PrimFunc; }
};
using PrimFuncRef = Ref<PrimFunc>;

// The mark bind-entry-parameters (passes/host/BindEntryParameters.h) leaves on a function whose
// compiled entry it bound: its buffer parameters are DLTensor handles and the body binds the
// buffers' data and sizes itself (bufferMap defines none of them). Code generation requires
// it; the interpreter refuses it.
inline constexpr const char *kEntryBoundAttr = "vtac.entry_bound";
inline bool isEntryBound(const PrimFunc &func) { return func.attrs.contains(kEntryBoundAttr); }

// The name of a function in a module (what `cls.fn` refers to).
class GlobalVar : public Node {
public:
  std::string name;
  explicit GlobalVar(std::string name, SourceLoc loc = {})
      : Node(NodeKind::GlobalVar, loc), name(std::move(name)) {}
  static bool classof(NodeKind k) { return k == NodeKind::GlobalVar; }
};
using GlobalVarRef = Ref<GlobalVar>;

// A virtual device of the module, `I.vdevice("cuda -arch=sm_80", 0, "global")` in
// `I.module_global_infos({"vdevice": [...]})`: a target, a device index and a memory scope.
// Tensor struct info names one as `vdevice="cuda:1"` (the second of its target kind).
struct VDevice {
  std::string target;
  int64_t id = 0;
  std::string memoryScope = "global";
  SourceLoc loc;
  // "cuda": the target's kind, its first word.
  std::string kind() const { return target.substr(0, target.find(' ')); }
};

// Functions by name, in insertion order. (The printer writes them in TVM's order: prim_funcs
// by name, then `main` last.)
class IRModule {
public:
  struct Entry {
    GlobalVarRef name;
    FunctionRef function;
  };

  // Adds or replaces the function called `name`; returns its GlobalVar.
  GlobalVarRef add(llvm::StringRef name, FunctionRef function);
  // null when absent.
  FunctionRef lookup(llvm::StringRef name) const;
  GlobalVarRef globalVar(llvm::StringRef name) const;

  const std::vector<Entry> &functions() const { return entries_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  SourceLoc loc;  // of the class / decorator, when parsed
  AttrMap attrs;  // I.module_attrs({...})
  std::vector<VDevice> vdevices;  // I.module_global_infos({"vdevice": [...]})

private:
  std::vector<Entry> entries_;
  llvm::StringMap<size_t> index_;
};

}  // namespace vtac::ir
