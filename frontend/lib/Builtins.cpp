// Builtins: the `T.*` functions that produce values — typed constants and
// casts, math and bitwise intrinsics, extern calls, VTA intrinsics, buffers and
// iteration variables — and the methods `B.access_ptr(...)`, `e.astype(...)`.
// Statement-like builtins (T.reads, T.func_attr, T.grid, ...) are handled
// where they may appear, in Statements.cpp and Blocks.cpp.
#include "FunctionBuilder.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Builtins.h"

#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace vtac::frontend {

using ir::DataType;
using ir::Expr;
using ir::NodeKind;

namespace {

using Handler = Value (*)(FunctionBuilder &, CallArgs &, ir::SourceLoc, const std::string &);

// The argument at `index`, or the keyword argument `name`; null when absent.
const Value *argument(const CallArgs &args, size_t index, const char *name = nullptr) {
  if (index < args.positional.size())
    return &args.positional[index];
  return name ? args.keyword(name) : nullptr;
}

bool checkArity(FunctionBuilder &b, const CallArgs &args, size_t min, size_t max,
                const std::string &path) {
  size_t count = args.positional.size();
  if (count >= min && count <= max)
    return true;
  std::string expected = min == max ? std::to_string(min)
                                    : std::to_string(min) + " to " + std::to_string(max);
  b.error(args.loc, path + " takes " + expected + " positional argument" +
                        (max == 1 ? "" : "s") + ", " + std::to_string(count) + " given");
  return false;
}

std::string shortName(const std::string &path) { return path.substr(path.rfind('.') + 1); }

// T.int32(x), T.float32(0), T.bool(True): a typed constant or a conversion.
// The strings T.float32(...) takes for values a literal cannot spell, as Python's float().
std::optional<double> nonFiniteValue(const std::string &text) {
  std::string lower = llvm::StringRef(text).lower();
  if (lower == "inf" || lower == "+inf" || lower == "infinity")
    return std::numeric_limits<double>::infinity();
  if (lower == "-inf" || lower == "-infinity")
    return -std::numeric_limits<double>::infinity();
  if (lower == "nan")
    return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

Value typedValue(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  DataType dtype = *DataType::parse(shortName(path));
  if (args.positional.empty() && args.keywords.empty()) {
    // `n = T.int64()` declares a size variable; only an assignment can name it.
    b.error(at, path + "() declares a variable and must be assigned to a name");
    return Value::invalid();
  }
  if (!checkArity(b, args, 1, 1, path))
    return Value::invalid();
  const Value &value = args.positional[0];
  // T.float32("inf"), T.float32("-inf"), T.float32("nan"): how TVM prints non-finite values.
  if (value.kind == Value::Kind::String && dtype.isFloat()) {
    std::optional<double> number = nonFiniteValue(value.text);
    if (!number) {
      b.error(value.loc, path + " of a string takes \"inf\", \"-inf\" or \"nan\", got \"" + value.text + "\"");
      return Value::invalid();
    }
    return Value::ofExpr(ir::floatImm(*number, dtype, at), at);
  }
  if (value.literal)
    return Value::ofExpr(b.toExprOf(value, dtype, "a value"), at);
  Expr expr = b.toExpr(value, "a value");
  if (!expr)
    return Value::invalid();
  return Value::ofExpr(ir::castExpr(dtype, expr, at), at);
}

// T.int16x32(1): TVM casts the value to the element type and broadcasts it over the lanes.
Value vectorValue(FunctionBuilder &b, DataType dtype, CallArgs &args, ir::SourceLoc at,
                  const std::string &path) {
  if (!checkArity(b, args, 1, 1, path))
    return Value::invalid();
  CallArgs element;
  element.positional.push_back(args.positional[0]);
  Value scalar = typedValue(b, element, at, "T." + dtype.elementType().str());
  if (!scalar.expr)
    return Value::invalid();
  return Value::ofExpr(ir::make<ir::Broadcast>(scalar.expr, dtype.lanes(), at), at);
}

// T.Cast(dtype, value), built as written.
Value castBuiltin(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  if (!checkArity(b, args, 2, 2, path))
    return Value::invalid();
  std::optional<DataType> dtype = b.toDataType(args.positional[0]);
  Expr value = b.toExpr(args.positional[1], "a value");
  if (!dtype || !value)
    return Value::invalid();
  return Value::ofExpr(ir::make<ir::Cast>(*dtype, value, at), at);
}

// T.cast(value, dtype): TVM's tir.cast, which folds constants (T.Cast builds the node).
Value castFunction(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  const Value *value = argument(args, 0, "x");
  const Value *dtypeValue = argument(args, 1, "dtype");
  if (!value || !dtypeValue) {
    b.error(at, path + " takes a value and a dtype, as in T.cast(x, \"float32\")");
    return Value::invalid();
  }
  std::optional<DataType> dtype = b.toDataType(*dtypeValue);
  Expr expr = b.toExpr(*value, "a value");
  if (!dtype || !expr)
    return Value::invalid();
  return Value::ofExpr(ir::castExpr(*dtype, expr, at), at);
}

// T.min_value(dtype) / T.max_value(dtype): the extreme finite values of a scalar type.
Value extremeValue(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  const Value *dtypeValue = argument(args, 0, "dtype");
  if (!dtypeValue || args.positional.size() > 1) {
    b.error(at, path + " takes one dtype");
    return Value::invalid();
  }
  std::optional<DataType> dtype = b.toDataType(*dtypeValue);
  if (!dtype)
    return Value::invalid();
  bool isMax = shortName(path) == "max_value";
  if (!dtype->isScalar() || !(dtype->isIntOrUInt() || dtype->isFloat() || dtype->isBool()) ||
      (dtype->isFloat() && dtype->bits() != 16 && dtype->bits() != 32 && dtype->bits() != 64)) {
    b.error(dtypeValue->loc, path + " needs a scalar integer, float or bool dtype, got " + dtype->str());
    return Value::invalid();
  }
  if (dtype->isFloat()) {
    double largest = dtype->bits() == 16   ? 65504.0
                     : dtype->bits() == 32 ? double(std::numeric_limits<float>::max())
                                           : std::numeric_limits<double>::max();
    return Value::ofExpr(ir::floatImm(isMax ? largest : -largest, *dtype, at), at);
  }
  if (dtype->isBool())
    return Value::ofExpr(ir::boolImm(isMax, at), at);
  int bits = dtype->bits();
  if (dtype->isUInt() && isMax && bits == 64) {
    b.error(dtypeValue->loc, path + " of uint64 does not fit in the IR's 64-bit signed constants");
    return Value::invalid();
  }
  uint64_t magnitude = uint64_t(1) << (dtype->isUInt() ? bits : bits - 1);
  int64_t value = !isMax ? (dtype->isUInt() ? 0 : int64_t(0 - magnitude)) : int64_t(magnitude - 1);
  return Value::ofExpr(ir::intImm(value, *dtype, at), at);
}

// The written-out operator constructors (T.Add(a, b), T.max(a, b), ...) build
// the node as written; T.floordiv and friends fold like Python operators.
Value binaryBuiltin(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  static const std::unordered_map<std::string, NodeKind> kinds = {
      {"max", NodeKind::Max},           {"min", NodeKind::Min},
      {"floordiv", NodeKind::FloorDiv}, {"floormod", NodeKind::FloorMod},
      {"truncdiv", NodeKind::Div},      {"truncmod", NodeKind::Mod},
      {"Div", NodeKind::Div},           {"Mod", NodeKind::Mod},
      {"FloorDiv", NodeKind::FloorDiv}, {"FloorMod", NodeKind::FloorMod},
      {"Max", NodeKind::Max},           {"Min", NodeKind::Min},
      {"Add", NodeKind::Add},           {"Sub", NodeKind::Sub},
      {"Mul", NodeKind::Mul},           {"EQ", NodeKind::EQ},
      {"NE", NodeKind::NE},             {"LT", NodeKind::LT},
      {"LE", NodeKind::LE},             {"GT", NodeKind::GT},
      {"GE", NodeKind::GE},             {"And", NodeKind::And},
      {"Or", NodeKind::Or},
  };
  if (!checkArity(b, args, 2, 2, path))
    return Value::invalid();
  std::string name = shortName(path);
  NodeKind kind = kinds.at(name);
  Value x = args.positional[0], y = args.positional[1];
  x.expr = b.toExpr(x, "an operand");
  y.expr = b.toExpr(y, "an operand");
  if (!x.expr || !y.expr || !b.matchTypes(x, y, at))
    return Value::invalid();
  if (name == "floordiv" || name == "floormod" || name == "truncdiv")
    return Value::ofExpr(ir::makeBinary(kind, x.expr, y.expr, at), at);
  return Value::ofExpr(ir::make<ir::BinaryExpr>(kind, x.expr, y.expr, at), at);
}

Value notBuiltin(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  if (!checkArity(b, args, 1, 1, path))
    return Value::invalid();
  Expr operand = b.toExprOf(args.positional[0], DataType::boolTy(), "a condition");
  if (!operand)
    return Value::invalid();
  return Value::ofExpr(ir::make<ir::Not>(operand, at), at);
}

// T.if_then_else(c, a, b) / T.Select(c, a, b): the branches share one dtype.
Value ifThenElse(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  if (!checkArity(b, args, 3, 3, path))
    return Value::invalid();
  Expr condition = b.toExprOf(args.positional[0], DataType::boolTy(), "a condition");
  Value x = args.positional[1], y = args.positional[2];
  x.expr = b.toExpr(x, "a value");
  y.expr = b.toExpr(y, "a value");
  if (!condition || !x.expr || !y.expr || !b.matchTypes(x, y, at))
    return Value::invalid();
  if (shortName(path) == "Select")
    return Value::ofExpr(ir::make<ir::Select>(condition, x.expr, y.expr, at), at);
  return Value::ofExpr(
      ir::make<ir::Call>(x.expr->dtype, "tir.if_then_else",
                         std::vector<Expr>{condition, x.expr, y.expr}, at),
      at);
}

std::optional<std::vector<Expr>> exprList(FunctionBuilder &b, const std::vector<Value> &values,
                                          size_t from) {
  std::vector<Expr> exprs;
  bool ok = true;
  for (size_t i = from; i < values.size(); ++i) {
    Expr expr = b.toExpr(values[i], "an argument");
    ok &= bool(expr);
    exprs.push_back(expr);
  }
  if (!ok)
    return std::nullopt;
  return exprs;
}

// A call of an op from the IR's builtin table (Builtins.h): T.shift_right(a, b),
// T.exp(x), T.call_extern("int32", "f", ...) and its older spelling with
// dtype="int32", T.tir.vta.uop_push(...), ...
Value tableCall(FunctionBuilder &b, const ir::BuiltinInfo &info, CallArgs &args, ir::SourceLoc at,
                const std::string &path) {
  // dtype= is the result dtype of any op (`T.exp(x, dtype="float32")`, as TVM's op wrappers take it).
  const Value *dtypeKeyword = args.keyword("dtype");
  for (const auto &[key, value] : args.keywords)
    if (key != "dtype")
      b.error(value.loc, "unexpected keyword argument '" + key + "' for " + path);
  bool dtypeFirst = info.rule == ir::CallTypeRule::DtypeFirst && !dtypeKeyword;
  if (dtypeFirst && args.positional.empty()) {
    b.error(at, path + " needs the result dtype as its first argument");
    return Value::invalid();
  }
  std::vector<Value> operands(args.positional.begin() + (dtypeFirst ? 1 : 0), args.positional.end());
  // Two-operand intrinsics (shift_right, pow, ...) match their operands' types.
  if (info.rule == ir::CallTypeRule::SameAsArg0 && operands.size() == 2) {
    operands[0].expr = b.toExpr(operands[0], "an operand");
    operands[1].expr = b.toExpr(operands[1], "an operand");
    if (!operands[0].expr || !operands[1].expr || !b.matchTypes(operands[0], operands[1], at))
      return Value::invalid();
  }
  auto exprs = exprList(b, operands, 0);
  if (!exprs)
    return Value::invalid();
  std::optional<DataType> dtype;
  if (dtypeKeyword)
    dtype = b.toDataType(*dtypeKeyword);
  else if (info.rule == ir::CallTypeRule::DtypeFirst)
    dtype = b.toDataType(args.positional[0]);
  else if (!(dtype = ir::defaultCallType(info, *exprs)))
    b.error(at, path + " is missing arguments");
  if (!dtype)
    return Value::invalid();
  return Value::ofExpr(ir::make<ir::Call>(*dtype, info.op, std::move(*exprs), at), at);
}

// T.call_intrin("dtype", "op.name", args...): any op, typed as written.
Value callIntrin(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  if (args.positional.size() < 2) {
    b.error(at, path + " needs a dtype and an op name");
    return Value::invalid();
  }
  std::optional<DataType> dtype = b.toDataType(args.positional[0]);
  std::optional<std::string> op = b.toString(args.positional[1], "an op name");
  auto exprs = exprList(b, args.positional, 2);
  if (!dtype || !op || !exprs)
    return Value::invalid();
  return Value::ofExpr(ir::make<ir::Call>(*dtype, *op, std::move(*exprs), at), at);
}

// T.Range(begin, end): a range value (domains of T.iter_var).
Value rangeBuiltin(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  if (!checkArity(b, args, 2, 2, path))
    return Value::invalid();
  Value begin = args.positional[0], end = args.positional[1];
  begin.expr = b.toExpr(begin, "a range bound");
  end.expr = b.toExpr(end, "a range bound");
  if (!begin.expr || !end.expr || !b.matchTypes(begin, end, at))
    return Value::invalid();
  Value range;
  range.kind = Value::Kind::Range;
  range.loc = at;
  range.ranges.push_back(rangeBetween(begin.expr, end.expr));
  return range;
}

// T.Let(body, where={x: value}).
Value letBuiltin(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  const Value *where = args.keyword("where");
  if (!checkArity(b, args, 1, 1, path) || !where || where->kind != Value::Kind::Dict ||
      where->items.size() != 2) {
    b.error(at, "T.Let takes a body and where={variable: value}");
    return Value::invalid();
  }
  Expr var = b.toExpr(where->items[0], "a variable");
  Expr value = b.toExpr(where->items[1], "a value");
  Expr body = b.toExpr(args.positional[0], "a body");
  if (!var || !value || !body)
    return Value::invalid();
  if (!var.isa<ir::Var>()) {
    b.error(where->items[0].loc, "T.Let binds a variable");
    return Value::invalid();
  }
  return Value::ofExpr(ir::make<ir::Let>(ir::cast<ir::Var>(var), value, body, at), at);
}

Value iterVar(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  // T.iter_var(var, dom, "ThreadIndex", "tag")
  if (!checkArity(b, args, 3, 4, path))
    return Value::invalid();
  Expr var = b.toExpr(args.positional[0], "a variable");
  if (!var)
    return Value::invalid();
  if (!var.isa<ir::Var>()) {
    b.error(args.positional[0].loc, "the first argument of T.iter_var must be a variable");
    return Value::invalid();
  }
  ir::Range dom;
  const Value &domain = args.positional[1];
  if (domain.kind == Value::Kind::Range) {
    dom = domain.ranges[0];
  } else if (domain.kind != Value::Kind::None) {
    if (!domain.isInvalid())
      b.error(domain.loc, "the domain of T.iter_var must be None or T.Range(begin, end)");
    return Value::invalid();
  }
  std::optional<std::string> typeName = b.toString(args.positional[2], "an iteration type");
  std::optional<ir::IterType> type = typeName ? ir::parseIterType(*typeName) : std::nullopt;
  if (typeName && !type)
    b.error(args.positional[2].loc, "unknown iteration type '" + *typeName + "'");
  std::optional<std::string> tag = args.positional.size() == 4
                                       ? b.toString(args.positional[3], "a thread tag")
                                       : std::optional<std::string>("");
  if (!type || !tag)
    return Value::invalid();
  Value result;
  result.kind = Value::Kind::IterVar;
  result.loc = at;
  result.iterVar = ir::make<ir::IterVar>(ir::cast<ir::Var>(var), dom, *type, *tag, at);
  return result;
}

Value vectorBuiltin(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  bool isRamp = shortName(path) == "Ramp" || shortName(path) == "ramp";
  size_t arity = isRamp ? 3 : 2;
  if (!checkArity(b, args, arity, arity, path))
    return Value::invalid();
  std::optional<int64_t> lanes = b.toConstInt(args.positional[arity - 1], "a lane count");
  if (!lanes)
    return Value::invalid();
  if (*lanes < 2 || *lanes > 65535) {
    b.error(args.positional[arity - 1].loc, "lane count must be between 2 and 65535");
    return Value::invalid();
  }
  Value base = args.positional[0];
  base.expr = b.toExpr(base, "a value");
  if (!base.expr)
    return Value::invalid();
  if (!isRamp)
    return Value::ofExpr(ir::make<ir::Broadcast>(base.expr, int(*lanes), at), at);
  Value stride = args.positional[1];
  stride.expr = b.toExpr(stride, "a stride");
  if (!stride.expr || !b.matchTypes(base, stride, at))
    return Value::invalid();
  return Value::ofExpr(ir::make<ir::Ramp>(base.expr, stride.expr, int(*lanes), at), at);
}

// T.llvm_lookup_intrinsic_id("llvm.x86...") stands for the intrinsic by its name: TVM's number
// depends on the LLVM version, and TVM prints the call_llvm_(pure_)intrin operand back as the name.
Value llvmIntrinsicName(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  if (!checkArity(b, args, 1, 1, path))
    return Value::invalid();
  std::optional<std::string> name = b.toString(args.positional[0], "an LLVM intrinsic name");
  return name ? Value::ofString(*name, at) : Value::invalid();
}

// T.handle("int8", "scope") as a type: of a parameter, a let or `p = T.handle(...)`.
Value pointerType(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  if (args.positional.empty()) {
    b.error(at, path + "() declares a variable and must be assigned to a name");
    return Value::invalid();
  }
  if (!checkArity(b, args, 1, 2, path))
    return Value::invalid();
  std::optional<DataType> element = b.toDataType(args.positional[0]);
  std::optional<std::string> scope = args.positional.size() > 1
                                         ? b.toString(args.positional[1], "a storage scope")
                                         : std::optional<std::string>("global");
  if (!element || !scope)
    return Value::invalid();
  Value type = Value::ofString("", at, Value::Kind::PointerType);
  type.pointer = ir::PointerType{*element, *scope};
  return type;
}

// Statement-only builtins used as values; the message says where they belong.
Value statementOnly(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  b.error(at, path + "(...) cannot be used as a value here");
  return Value::invalid();
}

const std::unordered_map<std::string, Handler> &builtinTable() {
  static const std::unordered_map<std::string, Handler> table = [] {
    std::unordered_map<std::string, Handler> t;
    for (const char *dtype : {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                              "uint64", "float16", "float32", "float64", "bool"})
      t[std::string("T.") + dtype] = typedValue;
    t["T.Cast"] = castBuiltin;
    t["T.cast"] = castFunction;
    t["T.min_value"] = extremeValue;
    t["T.max_value"] = extremeValue;
    for (const char *name : {"max", "min", "floordiv", "floormod", "truncdiv", "truncmod", "Div",
                             "Mod", "FloorDiv", "FloorMod", "Max", "Min", "Add", "Sub", "Mul",
                             "EQ", "NE", "LT", "LE", "GT", "GE", "And", "Or"})
      t[std::string("T.") + name] = binaryBuiltin;
    t["T.Not"] = notBuiltin;
    t["T.if_then_else"] = ifThenElse;
    t["T.Select"] = ifThenElse;
    t["T.call_intrin"] = callIntrin;
    t["T.iter_var"] = iterVar;
    t["T.Ramp"] = vectorBuiltin;
    t["T.Broadcast"] = vectorBuiltin;
    t["T.ramp"] = vectorBuiltin;
    t["T.broadcast"] = vectorBuiltin;
    t["T.llvm_lookup_intrinsic_id"] = llvmIntrinsicName;
    t["T.Range"] = rangeBuiltin;
    t["T.Let"] = letBuiltin;
    t["T.handle"] = pointerType;
    for (const char *name : {"T.reads", "T.writes", "T.where", "T.block_attr", "T.func_attr",
                             "T.evaluate", "T.attr", "T.grid", "T.serial", "T.parallel",
                             "T.vectorized", "T.unroll", "T.thread_binding", "T.block", "T.init",
                             "T.match_buffer", "T.alloc_buffer", "T.allocate", "T.allocate_const", "T.decl_buffer",
                             "T.buffer_decl", "T.var", "T.axis.remap",
                             "T.axis.spatial", "T.axis.reduce", "T.axis.S", "T.axis.R",
                             "T.LetStmt", "T.Assert", "range", "T.env_thread", "T.launch_thread",
                             "T.meta_var"})
      t[name] = statementOnly;
    return t;
  }();
  return table;
}

const ir::BuiltinInfo *tableBuiltin(const std::string &path) {
  return path.rfind("T.", 0) == 0 ? ir::lookupBuiltinByScriptName(path.substr(2)) : nullptr;
}

} // namespace

bool isKnownBuiltin(const std::string &path) {
  return builtinTable().count(path) != 0 || tableBuiltin(path) || path == "T.Buffer" ||
         path == "T.comm_reducer";
}

Value FunctionBuilder::callBuiltin(const std::string &path, CallArgs &args, ir::SourceLoc at) {
  if (const ir::BuiltinInfo *info = tableBuiltin(path))
    if (path != "T.if_then_else")
      return tableCall(*this, *info, args, at, path);
  if (path == "T.Buffer") {
    // A buffer type (a parameter annotation); statements make declarations of it.
    ir::BufferRef buffer = makeBufferFromArgs("buffer", args, 0, at);
    return buffer ? Value::ofBuffer(buffer, at) : Value::invalid();
  }
  auto found = builtinTable().find(path);
  if (found == builtinTable().end() && path.rfind("T.", 0) == 0)
    if (std::optional<DataType> vector = DataType::parse(path.substr(2)); vector && vector->lanes() > 1)
      return vectorValue(*this, *vector, args, at, path);
  if (found == builtinTable().end()) {
    error(at, "unknown function '" + path + "'");
    return Value::invalid();
  }
  return found->second(*this, args, at, path);
}

// B.vload(begin, dtype): TVM's Buffer::vload, a load of `dtype`'s lanes from `begin` on, the
// last index turned into a ramp over them.
Value vectorLoad(FunctionBuilder &b, const ir::BufferRef &buffer, CallArgs &args, ir::SourceLoc at) {
  const Value *beginValue = argument(args, 0, "begin");
  const Value *dtypeValue = argument(args, 1, "dtype");
  if (!beginValue || !dtypeValue) {
    b.error(at, "vload needs the first indices and a dtype");
    return Value::invalid();
  }
  std::optional<DataType> dtype = b.toDataType(*dtypeValue);
  auto indices = exprList(b, beginValue->items, 0);
  if (!dtype || !indices)
    return Value::invalid();
  if (indices->size() != buffer->shape.size() || dtype->elementType() != buffer->dtype.elementType()) {
    b.error(at, "vload of " + dtype->str() + " does not fit buffer '" + buffer->name + "'");
    return Value::invalid();
  }
  if (dtype->lanes() > 1)
    indices->back() = ir::make<ir::Ramp>(indices->back(), ir::intImm(1, indices->back()->dtype, at),
                                         dtype->lanes(), at);
  return Value::ofExpr(ir::make<ir::BufferLoad>(buffer, std::move(*indices), at), at);
}

Value FunctionBuilder::callMethod(const Value &method, CallArgs &args, ir::SourceLoc at) {
  const Value &object = method.items[0];
  if (method.text == "astype") {
    if (!checkArity(*this, args, 1, 1, "astype"))
      return Value::invalid();
    std::optional<DataType> dtype = toDataType(args.positional[0]);
    if (!dtype)
      return Value::invalid();
    if (object.literal)
      return Value::ofExpr(toExprOf(object, *dtype, "a value"), at);
    return Value::ofExpr(ir::castExpr(*dtype, object.expr, at), at);
  }
  const ir::BufferRef &buffer = object.buffer;
  if (method.text == "vload")
    return vectorLoad(*this, buffer, args, at);
  // B.access_ptr(mask, ptr_type="handle", content_lanes=1, offset=0, extent=None)
  const Value *maskValue = argument(args, 0, "access_mask");
  std::optional<std::string> mask = maskValue ? toString(*maskValue, "an access mask")
                                              : std::nullopt;
  if (!maskValue)
    error(at, "access_ptr needs an access mask such as \"r\", \"w\" or \"rw\"");
  if (!mask)
    return Value::invalid();
  int64_t bits = 0;
  for (char c : *mask) {
    if (c != 'r' && c != 'w') {
      error(maskValue->loc, "access mask must be made of 'r' and 'w'");
      return Value::invalid();
    }
    bits |= c == 'r' ? 1 : 2;
  }
  // The pointer's own type: "handle" by default, "int32" for VTA's SRAM indices.
  DataType pointerType = DataType::handle();
  if (const Value *value = argument(args, 1, "ptr_type")) {
    std::optional<DataType> dtype = toDataType(*value);
    if (!dtype)
      return Value::invalid();
    pointerType = *dtype;
  }
  if (const Value *value = argument(args, 2, "content_lanes")) {
    std::optional<int64_t> lanes = toConstInt(*value, "a lane count");
    if (!lanes)
      return Value::invalid();
    if (*lanes != 1) {
      error(value->loc, "access_ptr supports content_lanes=1 only");
      return Value::invalid();
    }
  }
  Expr offset = ir::intImm(0);
  if (const Value *value = argument(args, 3, "offset"))
    offset = toExprOf(*value, DataType::int32(), "an offset");
  Expr extent;
  if (const Value *value = argument(args, 4, "extent"); value && value->kind != Value::Kind::None) {
    extent = toExprOf(*value, DataType::int32(), "an extent");
  } else if (buffer->shape.empty()) {
    // TVM's Buffer::access_ptr: a zero-dimensional buffer spans its one element, whatever
    // the offset.
    extent = ir::intImm(1);
  } else if (buffer->strides.size() == buffer->shape.size()) {
    // A strided buffer spans its outermost stride times its outermost extent, minus the
    // offset (TVM's rule).
    if (offset)
      extent = ir::makeBinary(NodeKind::Sub, ir::makeBinary(NodeKind::Mul, buffer->strides[0], buffer->shape[0]),
                              offset);
  } else {
    // The whole buffer from the offset on (constant shapes fold, as in TVM).
    extent = ir::intImm(1);
    for (const Expr &dim : buffer->shape)
      extent = ir::makeBinary(NodeKind::Mul, extent, dim);
    if (offset)
      extent = ir::makeBinary(NodeKind::Sub, extent, offset);
  }
  if (!offset || !extent)
    return Value::invalid();
  // The pointer is relative to the buffer's own start, which its elem_offset places.
  if (buffer->elemOffset)
    offset = ir::makeBinary(NodeKind::Add, buffer->elemOffset, offset);
  Expr annotation = ir::make<ir::Call>(buffer->dtype, "tir.type_annotation", std::vector<Expr>{}, at);
  return Value::ofExpr(ir::make<ir::Call>(pointerType, "tir.tvm_access_ptr",
                                          std::vector<Expr>{annotation, buffer->data, offset,
                                                            extent, ir::intImm(bits)},
                                          at),
                       at);
}

} // namespace vtac::frontend
