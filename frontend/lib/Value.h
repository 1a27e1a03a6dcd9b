// Value: what a TVMScript expression evaluates to while the frontend walks the
// parse tree. TVMScript is Python, so an expression is not always an IR
// expression: it may be a buffer, a string, a tuple of shapes, a dictionary of
// attributes, a region `A[0:16, k]`, or a dotted path such as `T.axis.remap`
// that only means something once called.
#pragma once

#include "vtac/ir/CommReducer.h"
#include "vtac/ir/Expr.h"

#include <string>
#include <vector>

namespace vtac::frontend {

struct Value {
  enum class Kind {
    Invalid,  // an error was already reported; quietly propagates
    None,
    Expr,     // an IR expression (a Python number literal too, see `literal`)
    Buffer,
    IterVar,
    String,
    Tuple,
    List,
    Dict,     // items alternate key, value
    Slice,    // items: start, stop, step (None when omitted)
    Region,   // buffer + ranges: `A[i:i + 16, k]`
    Range,    // ranges[0]: `T.Range(begin, end)`
    Path,     // a dotted builtin name: `T.grid`, `T.axis.remap`, `T.tir.vta.uop_push`
    Method,   // a bound method: `B.access_ptr`, `e.astype` (object in items[0])
    Reducer,  // `T.comm_reducer(lambda x, y: x + y, [0])`
    PointerType,  // `T.handle("int32", "global")` as a type: `p: T.handle("int32") = ...`
  };

  Kind kind = Kind::Invalid;
  ir::SourceLoc loc;
  ir::Expr expr;
  // A Python int/float/bool literal (or arithmetic on literals): its IR dtype is
  // a default that the context may still change (`x * 2` with float32 `x`).
  bool literal = false;
  ir::BufferRef buffer;
  ir::IterVarRef iterVar;
  ir::CommReducerRef reducer;
  ir::PointerType pointer;  // PointerType
  std::string text;  // String; Path and Method: the dotted name / method name
  std::vector<Value> items;
  std::vector<ir::Range> ranges;

  bool isInvalid() const { return kind == Kind::Invalid; }
  bool isSequence() const { return kind == Kind::Tuple || kind == Kind::List; }

  static Value invalid() { return {}; }
  static Value none(ir::SourceLoc loc) { return of(Kind::None, loc); }
  static Value ofExpr(ir::Expr expr, ir::SourceLoc loc, bool literal = false) {
    Value v = of(Kind::Expr, loc);
    v.expr = std::move(expr);
    v.literal = literal;
    return v;
  }
  static Value ofBuffer(ir::BufferRef buffer, ir::SourceLoc loc) {
    Value v = of(Kind::Buffer, loc);
    v.buffer = std::move(buffer);
    return v;
  }
  /// A String, or a Path when `kind` says so (both keep their text).
  static Value ofString(std::string text, ir::SourceLoc loc, Kind kind = Kind::String) {
    Value v = of(kind, loc);
    v.text = std::move(text);
    return v;
  }
  static Value ofPath(std::string path, ir::SourceLoc loc) {
    return ofString(std::move(path), loc, Kind::Path);
  }
  static Value ofItems(Kind kind, std::vector<Value> items, ir::SourceLoc loc) {
    Value v = of(kind, loc);
    v.items = std::move(items);
    return v;
  }
  static Value ofMethod(std::string name, Value object, ir::SourceLoc loc) {
    Value v = ofString(std::move(name), loc, Kind::Method);
    v.items.push_back(std::move(object));
    return v;
  }

private:
  static Value of(Kind kind, ir::SourceLoc loc) {
    Value v;
    v.kind = kind;
    v.loc = loc;
    return v;
  }
};

/// "a buffer", "a string", ... for messages such as "expected an expression, got a buffer".
const char *describeKind(Value::Kind kind);

} // namespace vtac::frontend
