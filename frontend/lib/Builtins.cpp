// Builtins: the `T.*` functions that produce values — typed constants and
// casts, math and bitwise intrinsics, extern calls, VTA intrinsics, buffers and
// iteration variables — and the methods `B.access_ptr(...)`, `e.astype(...)`.
// Statement-like builtins (T.reads, T.func_attr, T.grid, ...) are handled
// where they may appear, in Statements.cpp and Blocks.cpp.
#include "FunctionBuilder.h"

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

// T.int32(x), T.float32(0), T.bool(True): a typed constant or a cast.
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
  if (value.literal)
    return Value::ofExpr(b.toExprOf(value, dtype, "a value"), at);
  Expr expr = b.toExpr(value, "a value");
  if (!expr)
    return Value::invalid();
  if (expr->dtype == dtype)
    return Value::ofExpr(expr, at);
  return Value::ofExpr(ir::make<ir::Cast>(dtype, expr, at), at);
}

Value castBuiltin(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  if (!checkArity(b, args, 2, 2, path))
    return Value::invalid();
  // T.Cast(dtype, value); the lower-case T.cast(value, dtype) swaps them.
  bool dtypeFirst = shortName(path) == "Cast";
  std::optional<DataType> dtype = b.toDataType(args.positional[dtypeFirst ? 0 : 1]);
  Expr value = b.toExpr(args.positional[dtypeFirst ? 1 : 0], "a value");
  if (!dtype || !value)
    return Value::invalid();
  return Value::ofExpr(ir::make<ir::Cast>(*dtype, value, at), at);
}

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
  Value x = args.positional[0], y = args.positional[1];
  x.expr = b.toExpr(x, "an operand");
  y.expr = b.toExpr(y, "an operand");
  if (!x.expr || !y.expr || !b.matchTypes(x, y, at))
    return Value::invalid();
  return Value::ofExpr(makeBinary(kinds.at(shortName(path)), x.expr, y.expr, at), at);
}

// Intrinsics whose result has the (matched) dtype of their operands:
// T.shift_right(a, b), T.exp(x), T.bitwise_and(a, b), ...
Value elementwiseIntrinsic(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at,
                           const std::string &path) {
  static const std::unordered_set<std::string> binary = {
      "shift_right", "shift_left", "bitwise_and", "bitwise_or", "bitwise_xor", "pow", "fmod"};
  std::string name = shortName(path);
  size_t arity = binary.count(name) ? 2 : 1;
  if (!checkArity(b, args, arity, arity, path))
    return Value::invalid();
  std::vector<Expr> operands;
  if (arity == 2) {
    Value x = args.positional[0], y = args.positional[1];
    x.expr = b.toExpr(x, "an operand");
    y.expr = b.toExpr(y, "an operand");
    if (!x.expr || !y.expr || !b.matchTypes(x, y, at))
      return Value::invalid();
    operands = {x.expr, y.expr};
  } else {
    Expr x = b.toExpr(args.positional[0], "an operand");
    if (!x)
      return Value::invalid();
    operands = {x};
  }
  DataType dtype = operands[0]->dtype;
  return Value::ofExpr(ir::make<ir::Call>(dtype, "tir." + name, std::move(operands), at), at);
}

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

// T.call_extern("int32", "name", args...) or the older
// T.call_extern("name", args..., dtype="int32"); likewise call_pure_extern.
Value callExtern(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  const Value *dtypeKeyword = args.keyword("dtype");
  size_t nameIndex = dtypeKeyword ? 0 : 1;
  if (args.positional.size() <= nameIndex) {
    b.error(at, path + " needs a result dtype and a function name");
    return Value::invalid();
  }
  std::optional<DataType> dtype = b.toDataType(dtypeKeyword ? *dtypeKeyword : args.positional[0]);
  std::optional<std::string> name = b.toString(args.positional[nameIndex], "a function name");
  auto operands = exprList(b, args.positional, nameIndex + 1);
  if (!dtype || !name || !operands)
    return Value::invalid();
  operands->insert(operands->begin(), ir::make<ir::StringImm>(*name, args.positional[nameIndex].loc));
  return Value::ofExpr(ir::make<ir::Call>(*dtype, "tir." + shortName(path), std::move(*operands), at),
                       at);
}

// Calls whose result dtype is fixed: VTA intrinsics (T.tir.vta.*), thread
// contexts, access pointers.
Value fixedTypeCall(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  std::string name = shortName(path);
  bool isVta = path.rfind("T.tir.vta.", 0) == 0;
  auto operands = exprList(b, args.positional, 0);
  if (!operands)
    return Value::invalid();
  if (!args.keywords.empty()) {
    b.error(at, path + " takes no keyword arguments");
    return Value::invalid();
  }
  DataType dtype = DataType::int32();
  if (name == "command_handle" || name == "tvm_access_ptr")
    dtype = DataType::handle();
  else if (name == "tvm_thread_context") {
    if (!checkArity(b, args, 1, 1, path))
      return Value::invalid();
    dtype = (*operands)[0]->dtype;
  }
  return Value::ofExpr(
      ir::make<ir::Call>(dtype, (isVta ? "tir.vta." : "tir.") + name, std::move(*operands), at), at);
}

Value typeAnnotation(FunctionBuilder &b, CallArgs &args, ir::SourceLoc at, const std::string &path) {
  if (!checkArity(b, args, 1, 1, path))
    return Value::invalid();
  std::optional<DataType> dtype = b.toDataType(args.positional[0]);
  if (!dtype)
    return Value::invalid();
  return Value::ofExpr(ir::make<ir::Call>(*dtype, "tir.type_annotation", std::vector<Expr>{}, at), at);
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
  if (args.positional[1].kind != Value::Kind::None) {
    std::optional<std::vector<Expr>> bounds;
    const Value &domain = args.positional[1];
    if (domain.isSequence() && domain.items.size() == 2)
      bounds = exprList(b, domain.items, 0);
    if (!bounds) {
      b.error(domain.loc, "the domain of T.iter_var must be None or (min, extent)");
      return Value::invalid();
    }
    dom = {(*bounds)[0], (*bounds)[1]};
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
  bool isRamp = shortName(path) == "Ramp";
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
    for (const char *name : {"Cast", "cast"})
      t[std::string("T.") + name] = castBuiltin;
    // The capitalised forms are how TVM prints an operator whose operands are
    // both constants (Python would fold `16 * 16`).
    for (const char *name : {"max", "min", "floordiv", "floormod", "truncdiv", "truncmod", "Div",
                             "Mod", "FloorDiv", "FloorMod", "Max", "Min", "Add", "Sub", "Mul",
                             "EQ", "NE", "LT", "LE", "GT", "GE", "And", "Or"})
      t[std::string("T.") + name] = binaryBuiltin;
    for (const char *name : {"shift_right", "shift_left", "bitwise_and", "bitwise_or",
                             "bitwise_xor", "bitwise_not", "pow", "fmod", "exp", "exp2", "exp10",
                             "log", "log2", "log10", "sqrt", "rsqrt", "tanh", "sigmoid", "sin",
                             "cos", "tan", "floor", "ceil", "round", "trunc", "fabs", "erf",
                             "popcount", "isnan", "likely"})
      t[std::string("T.") + name] = elementwiseIntrinsic;
    for (const char *name : {"if_then_else", "Select"})
      t[std::string("T.") + name] = ifThenElse;
    for (const char *name : {"call_extern", "call_pure_extern"})
      t[std::string("T.") + name] = callExtern;
    for (const char *name : {"tvm_thread_context", "tvm_access_ptr"})
      t[std::string("T.") + name] = fixedTypeCall;
    t["T.type_annotation"] = typeAnnotation;
    t["T.iter_var"] = iterVar;
    t["T.Ramp"] = vectorBuiltin;
    t["T.Broadcast"] = vectorBuiltin;
    for (const char *name : {"T.reads", "T.writes", "T.where", "T.block_attr", "T.func_attr",
                             "T.evaluate", "T.attr", "T.grid", "T.serial", "T.parallel",
                             "T.vectorized", "T.unroll", "T.thread_binding", "T.block", "T.init",
                             "T.match_buffer", "T.alloc_buffer", "T.allocate", "T.decl_buffer",
                             "T.buffer_decl", "T.var", "T.axis.remap", "T.axis.spatial",
                             "T.axis.reduce", "T.axis.S", "T.axis.R", "range"})
      t[name] = statementOnly;
    return t;
  }();
  return table;
}

} // namespace

bool isKnownBuiltin(const std::string &path) {
  return builtinTable().count(path) != 0 || path.rfind("T.tir.vta.", 0) == 0 || path == "T.Buffer";
}

Value FunctionBuilder::callBuiltin(const std::string &path, CallArgs &args, ir::SourceLoc at) {
  if (path.rfind("T.tir.vta.", 0) == 0)
    return fixedTypeCall(*this, args, at, path);
  if (path == "T.Buffer") {
    // A buffer type (a parameter annotation); statements make declarations of it.
    ir::BufferRef buffer = makeBufferFromArgs("buffer", args, 0, at);
    return buffer ? Value::ofBuffer(buffer, at) : Value::invalid();
  }
  auto found = builtinTable().find(path);
  if (found == builtinTable().end()) {
    error(at, "unknown function '" + path + "'");
    return Value::invalid();
  }
  return found->second(*this, args, at, path);
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
    return Value::ofExpr(ir::make<ir::Cast>(*dtype, object.expr, at), at);
  }
  // B.access_ptr(mask, ptr_type="handle", content_lanes=1, offset=0, extent=None)
  const ir::BufferRef &buffer = object.buffer;
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
  Expr offset = ir::intImm(0);
  if (const Value *value = argument(args, 3, "offset"))
    offset = toExprOf(*value, DataType::int32(), "an offset");
  Expr extent;
  if (const Value *value = argument(args, 4, "extent"); value && value->kind != Value::Kind::None) {
    extent = toExprOf(*value, DataType::int32(), "an extent");
  } else {
    // The whole buffer from the offset on; constant shapes fold as TVM's do.
    int64_t constantSize = 1;
    bool constant = true;
    for (const Expr &dim : buffer->shape) {
      auto *value = dim.as<ir::IntImm>();
      constant &= value != nullptr;
      if (value)
        constantSize *= value->value;
    }
    extent = constant ? ir::intImm(constantSize) : buffer->shape[0];
    for (size_t i = 1; !constant && i < buffer->shape.size(); ++i)
      extent = makeBinary(NodeKind::Mul, extent, buffer->shape[i]);
    if (!offset.isa<ir::IntImm>() || offset.as<ir::IntImm>()->value != 0)
      extent = makeBinary(NodeKind::Sub, extent, offset);
  }
  if (!offset || !extent)
    return Value::invalid();
  Expr annotation = ir::make<ir::Call>(buffer->dtype, "tir.type_annotation", std::vector<Expr>{}, at);
  return Value::ofExpr(ir::make<ir::Call>(DataType::handle(), "tir.tvm_access_ptr",
                                          std::vector<Expr>{annotation, buffer->data, offset,
                                                            extent, ir::intImm(bits)},
                                          at),
                       at);
}

} // namespace vtac::frontend
