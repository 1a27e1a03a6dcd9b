// Expressions of the IR (TVM's PrimExpr family) and the objects they refer to: variables,
// buffers, iteration variables, ranges and buffer regions.
//
// Every expression has a DataType. Variables and buffers are compared by identity (two Vars
// named "i" are different variables); structural equality (StructuralEqual.h) maps bound ones
// positionally. All binary operators share one class, BinaryExpr, told apart by kind().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vtac/ir/DataType.h"
#include "vtac/ir/Node.h"

namespace vtac::ir {

class ExprNode : public Node {
public:
  DataType dtype;

  static bool classof(NodeKind k) { return kindInRange(k, kFirstExprKind, kLastExprKind); }

protected:
  ExprNode(NodeKind kind, DataType dtype, SourceLoc loc) : Node(kind, loc), dtype(dtype) {}
};
using Expr = Ref<ExprNode>;

class IntImm : public ExprNode {
public:
  int64_t value;
  IntImm(DataType dtype, int64_t value, SourceLoc loc = {})
      : ExprNode(NodeKind::IntImm, dtype, loc), value(value) {}
  static bool classof(NodeKind k) { return k == NodeKind::IntImm; }
};

class FloatImm : public ExprNode {
public:
  double value;
  FloatImm(DataType dtype, double value, SourceLoc loc = {})
      : ExprNode(NodeKind::FloatImm, dtype, loc), value(value) {}
  static bool classof(NodeKind k) { return k == NodeKind::FloatImm; }
};

// A string literal; its dtype is handle (as in TVM: a pointer to chars).
class StringImm : public ExprNode {
public:
  std::string value;
  explicit StringImm(std::string value, SourceLoc loc = {})
      : ExprNode(NodeKind::StringImm, DataType::handle(), loc), value(std::move(value)) {}
  static bool classof(NodeKind k) { return k == NodeKind::StringImm; }
};

// What a handle variable points to: element type and storage scope ("global",
// "local.acc_buffer", "shared", ...). A buffer's data variable carries one.
struct PointerType {
  DataType element;
  std::string scope = "global";

  PointerType() = default;
  // An empty scope is "global", as TVM's PointerType constructor makes it: every declaration
  // (T.alloc_buffer, T.Buffer, T.match_buffer, T.decl_buffer, T.allocate, T.handle) with
  // scope="" declares global memory.
  PointerType(DataType element, std::string scope)
      : element(element), scope(scope.empty() ? "global" : std::move(scope)) {}
  friend bool operator==(const PointerType &a, const PointerType &b) {
    return a.element == b.element && a.scope == b.scope;
  }
  friend bool operator!=(const PointerType &a, const PointerType &b) { return !(a == b); }
};

// A variable. Identity is the object; `name` is only a hint for printing.
class Var : public ExprNode {
public:
  std::string name;
  std::optional<PointerType> pointer;  // only for handle variables that point to typed data

  Var(std::string name, DataType dtype, SourceLoc loc = {})
      : ExprNode(NodeKind::Var, dtype, loc), name(std::move(name)) {}
  Var(std::string name, PointerType pointer, SourceLoc loc = {})
      : ExprNode(NodeKind::Var, DataType::handle(), loc), name(std::move(name)),
        pointer(std::move(pointer)) {}
  static bool classof(NodeKind k) { return k == NodeKind::Var; }
};
using VarRef = Ref<Var>;

class Cast : public ExprNode {
public:
  Expr value;
  Cast(DataType dtype, Expr value, SourceLoc loc = {})
      : ExprNode(NodeKind::Cast, dtype, loc), value(std::move(value)) {}
  static bool classof(NodeKind k) { return k == NodeKind::Cast; }
};

// a <op> b for every binary operator: arithmetic (Add .. Max; Div/Mod truncate toward zero,
// FloorDiv/FloorMod round toward negative infinity), comparisons (EQ .. GE, result bool) and
// logical And/Or. The kind says which.
class BinaryExpr : public ExprNode {
public:
  Expr a, b;
  // dtype: bool (with a's lanes) for comparisons, a's dtype otherwise.
  BinaryExpr(NodeKind op, Expr a, Expr b, SourceLoc loc = {});
  BinaryExpr(NodeKind op, DataType dtype, Expr a, Expr b, SourceLoc loc = {})
      : ExprNode(op, dtype, loc), a(std::move(a)), b(std::move(b)) {
    assert(classof(op) && "BinaryExpr built with a non-binary kind");
  }
  static bool classof(NodeKind k) { return kindInRange(k, kFirstBinaryKind, kLastBinaryKind); }
  static bool isComparison(NodeKind k) { return kindInRange(k, NodeKind::EQ, NodeKind::GE); }
  static bool isLogical(NodeKind k) { return k == NodeKind::And || k == NodeKind::Or; }
};

class Not : public ExprNode {
public:
  Expr a;
  explicit Not(Expr a, SourceLoc loc = {});
  static bool classof(NodeKind k) { return k == NodeKind::Not; }
};

// cond ? trueValue : falseValue, both sides evaluated (T.Select); T.if_then_else is a Call.
class Select : public ExprNode {
public:
  Expr condition, trueValue, falseValue;
  Select(Expr condition, Expr trueValue, Expr falseValue, SourceLoc loc = {});
  static bool classof(NodeKind k) { return k == NodeKind::Select; }
};

// A call of a builtin or extern function, identified by its op name: "tir.if_then_else",
// "tir.shift_right", "tir.exp", "tir.call_extern" (args[0] is the callee's StringImm name),
// "tir.tvm_access_ptr", "tir.tvm_thread_context", "tir.vta.uop_push", ...
class Call : public ExprNode {
public:
  std::string op;
  std::vector<Expr> args;
  Call(DataType dtype, std::string op, std::vector<Expr> args, SourceLoc loc = {})
      : ExprNode(NodeKind::Call, dtype, loc), op(std::move(op)), args(std::move(args)) {}
  static bool classof(NodeKind k) { return k == NodeKind::Call; }
};

// let var = value in body (an expression).
class Let : public ExprNode {
public:
  VarRef var;
  Expr value, body;
  Let(VarRef var, Expr value, Expr body, SourceLoc loc = {});
  static bool classof(NodeKind k) { return k == NodeKind::Let; }
};

// [base, base + stride, ..., base + (lanes-1) * stride]
class Ramp : public ExprNode {
public:
  Expr base, stride;
  int lanes;
  Ramp(Expr base, Expr stride, int lanes, SourceLoc loc = {});
  static bool classof(NodeKind k) { return k == NodeKind::Ramp; }
};

// value repeated `lanes` times.
class Broadcast : public ExprNode {
public:
  Expr value;
  int lanes;
  Broadcast(Expr value, int lanes, SourceLoc loc = {});
  static bool classof(NodeKind k) { return k == NodeKind::Broadcast; }
};

// [min, min + extent). A value, not a node; a default-constructed Range is "absent".
struct Range {
  Expr min, extent;
  bool defined() const { return bool(extent); }
};

// A multi-dimensional array: name (hint), the handle variable holding its address, element
// type, shape (may be symbolic), strides (empty: compact row-major), element offset (null:
// zero), alignment (<= 0 means the default 64) and offset factor (0 means the default 1) as in
// TVM. The storage scope is that of the data
// variable (`scope()`), so buffers declared over the same allocation agree on it.
class Buffer : public Node {
public:
  std::string name;
  VarRef data;
  DataType dtype;
  std::vector<Expr> shape;
  std::vector<Expr> strides;
  Expr elemOffset;  // null means 0 (the constructor turns a literal 0 into null)
  int dataAlignment = kDefaultAlignment;
  int offsetFactor = 1;
  // TVM's axis_separators (where a flattened buffer splits into several physical axes) and
  // buffer_type="auto" (broadcasting on dimensions of extent 1); printed when set.
  std::vector<int64_t> axisSeparators;
  bool autoBroadcast = false;

  static constexpr int kDefaultAlignment = 64;

  Buffer(std::string name, VarRef data, DataType dtype, std::vector<Expr> shape,
         std::vector<Expr> strides = {}, Expr elemOffset = nullptr,
         int dataAlignment = kDefaultAlignment, int offsetFactor = 1, SourceLoc loc = {});

  // Storage scope of the data variable, "global" when it carries none.
  const std::string &scope() const;
  size_t rank() const { return shape.size(); }

  static bool classof(NodeKind k) { return k == NodeKind::Buffer; }
};
using BufferRef = Ref<Buffer>;

// A buffer with a fresh data variable (handle to dtype in `scope`), the common case.
BufferRef makeBuffer(std::string name, DataType dtype, std::vector<Expr> shape,
                     std::string scope = "global", SourceLoc loc = {});

// How an iteration variable iterates (TVM's IterVarType, same order and names).
enum class IterType : uint8_t {
  DataPar,      // spatial axis of a block ("S")
  ThreadIndex,  // bound to a hardware thread / virtual thread (T.iter_var(.., "ThreadIndex", tag))
  CommReduce,   // reduction axis of a block ("R")
  Ordered,
  Opaque,
  Unrolled,
  Vectorized,
  Parallelized,
  Tensorized,
};
// "DataPar", "ThreadIndex", ...; parseIterType is the inverse.
const char *iterTypeName(IterType type);
std::optional<IterType> parseIterType(llvm::StringRef name);
// The attribute that launches a thread of `threadTag`: "virtual_thread" for the virtual
// threads (vthread, vthread.x/y/z, VTA's cthread), "thread_extent" for hardware ones.
const char *threadLaunchKey(llvm::StringRef threadTag);

// A variable with a domain and an iteration type: block iteration variables, thread bindings of
// loops and the node of `T.attr(T.iter_var(vta, None, "ThreadIndex", "vta"), ...)`.
class IterVar : public Node {
public:
  VarRef var;
  Range dom;  // may be absent (T.iter_var(v, None, ...))
  IterType iterType;
  std::string threadTag;
  IterVar(VarRef var, Range dom, IterType iterType, std::string threadTag = "", SourceLoc loc = {})
      : Node(NodeKind::IterVar, loc), var(std::move(var)), dom(std::move(dom)),
        iterType(iterType), threadTag(std::move(threadTag)) {}
  static bool classof(NodeKind k) { return k == NodeKind::IterVar; }
};
using IterVarRef = Ref<IterVar>;

// buffer[region]: what a block reads or writes (T.reads(A[vi, 0:16])).
struct BufferRegion {
  BufferRef buffer;
  std::vector<Range> region;  // one range per dimension; a point is extent 1
};

// `B = T.match_buffer(A[vi, 0:16], (16,), ...)` inside a block: buffer views source.
struct MatchBufferRegion {
  BufferRef buffer;
  BufferRegion source;
};

// ---- convenience constructors (dtype rules of TVM's operators, no simplification) ----------
Expr intImm(int64_t value, DataType dtype = DataType::int32(), SourceLoc loc = {});
Expr floatImm(double value, DataType dtype = DataType::float32(), SourceLoc loc = {});
Expr boolImm(bool value, SourceLoc loc = {});
VarRef makeVar(std::string name, DataType dtype = DataType::int32(), SourceLoc loc = {});
Expr binary(NodeKind op, Expr a, Expr b, SourceLoc loc = {});
Expr bufferLoad(BufferRef buffer, std::vector<Expr> indices, SourceLoc loc = {});
Range rangeFromExtent(Expr extent);  // [0, extent) with a zero of extent's dtype

class BufferLoad : public ExprNode {
public:
  BufferRef buffer;
  std::vector<Expr> indices;
  // dtype: the buffer's element type, widened to the last index's lanes when it is a vector.
  BufferLoad(BufferRef buffer, std::vector<Expr> indices, SourceLoc loc = {});
  static bool classof(NodeKind k) { return k == NodeKind::BufferLoad; }
};

}  // namespace vtac::ir
