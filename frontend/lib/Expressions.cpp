// Expressions: evaluation of expression parse trees into Values, and the dtype
// rules of TVM's operators (Python literals adopt the other operand's dtype,
// narrower integers widen, integers meet floats as floats).
#include "FunctionBuilder.h"
#include "Literals.h"

#include "vtac/ir/Arith.h"

#include <cmath>
#include <limits>

namespace vtac::frontend {

using ir::DataType;
using ir::Expr;
using ir::NodeKind;

const char *describeKind(Value::Kind kind) {
  switch (kind) {
  case Value::Kind::Invalid: return "an invalid value";
  case Value::Kind::None: return "None";
  case Value::Kind::Expr: return "an expression";
  case Value::Kind::Buffer: return "a buffer";
  case Value::Kind::IterVar: return "an iteration variable";
  case Value::Kind::String: return "a string";
  case Value::Kind::Tuple: return "a tuple";
  case Value::Kind::List: return "a list";
  case Value::Kind::Dict: return "a dictionary";
  case Value::Kind::Slice: return "a slice";
  case Value::Kind::Region: return "a buffer region";
  case Value::Kind::Range: return "a range";
  case Value::Kind::Path: return "a function";
  case Value::Kind::Method: return "a method";
  case Value::Kind::Reducer: return "a reducer";
  case Value::Kind::PointerType: return "a pointer type";
  }
  return "a value";
}

const Value *CallArgs::keyword(const std::string &name) const {
  for (const auto &[key, value] : keywords)
    if (key == name)
      return &value;
  return nullptr;
}

// ---- literals ----------------------------------------------------------------

std::string withoutUnderscores(const std::string &text) {
  std::string digits;
  for (char c : text)
    if (c != '_')
      digits += c;
  return digits;
}

// The magnitude of an integer literal; up to 2^63, the magnitude of INT64_MIN.
static std::optional<uint64_t> parseIntegerMagnitude(const std::string &text) {
  std::string digits = withoutUnderscores(text);
  int base = 10;
  size_t skip = 0;
  if (digits.size() > 1 && digits[0] == '0' && std::isalpha(static_cast<unsigned char>(digits[1]))) {
    char marker = std::tolower(static_cast<unsigned char>(digits[1]));
    base = marker == 'x' ? 16 : marker == 'o' ? 8 : 2;
    skip = 2;
  }
  errno = 0;
  char *end = nullptr;
  unsigned long long value = std::strtoull(digits.c_str() + skip, &end, base);
  if (errno == ERANGE || value > uint64_t(std::numeric_limits<int64_t>::max()) + 1)
    return std::nullopt;
  return value;
}

std::optional<int64_t> parseIntegerLiteral(const std::string &text) {
  std::optional<uint64_t> magnitude = parseIntegerMagnitude(text);
  if (!magnitude || *magnitude > uint64_t(std::numeric_limits<int64_t>::max()))
    return std::nullopt;
  return int64_t(*magnitude);
}

// The contents of a Python string literal: prefix and quotes removed, escapes
// decoded (raw strings keep their backslashes).
std::string decodeStringLiteral(const std::string &token) {
  size_t prefix = 0;
  bool raw = false;
  while (prefix < token.size() && token[prefix] != '\'' && token[prefix] != '"') {
    raw |= token[prefix] == 'r' || token[prefix] == 'R';
    ++prefix;
  }
  size_t quote = token.compare(prefix, 3, "'''") == 0 || token.compare(prefix, 3, "\"\"\"") == 0 ? 3 : 1;
  std::string body = token.substr(prefix + quote, token.size() - prefix - 2 * quote);
  if (raw)
    return body;
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      out += body[i];
      continue;
    }
    char c = body[++i];
    switch (c) {
    case 'n': out += '\n'; break;
    case 't': out += '\t'; break;
    case 'r': out += '\r'; break;
    case '0': out += '\0'; break;
    case '\\': out += '\\'; break;
    case '\'': out += '\''; break;
    case '"': out += '"'; break;
    case '\n': break;  // an escaped line break continues the string
    case 'x':
      if (i + 2 < body.size() + 0 && std::isxdigit(static_cast<unsigned char>(body[i + 1])) &&
          std::isxdigit(static_cast<unsigned char>(body[i + 2]))) {
        out += char(std::stoi(body.substr(i + 1, 2), nullptr, 16));
        i += 2;
        break;
      }
      [[fallthrough]];
    default:
      out += '\\';
      out += c;
    }
  }
  return out;
}

Value FunctionBuilder::evalAtom(Grammar::AtomContext *atom) {
  ir::SourceLoc at = loc(atom);
  if (auto *name = exactly<Grammar::NameAtomContext>(atom)) {
    std::string text = name->NAME()->getText();
    if (const Value *value = lookup(text)) {
      Value copy = *value;
      copy.loc = at;
      return copy;
    }
    // The namespaces of TVMScript (`T.`, `I.`, `R.`, `tvm.`) and Python's range.
    if (text == "T" || text == "I" || text == "R" || text == "tvm" || text == "range")
      return Value::ofPath(text, at);
    error(at, "undefined name '" + text + "'");
    return Value::invalid();
  }
  if (auto *integer = exactly<Grammar::IntAtomContext>(atom)) {
    std::optional<int64_t> value = parseIntegerLiteral(integer->INTEGER()->getText());
    if (!value) {
      error(at, "integer literal " + integer->INTEGER()->getText() + " does not fit in 64 bits");
      return Value::invalid();
    }
    // As in TVM: Python ints are int32 unless they do not fit.
    bool fits32 = *value <= std::numeric_limits<int32_t>::max();
    return Value::ofExpr(ir::intImm(*value, fits32 ? DataType::int32() : DataType::int64(), at),
                         at, true);
  }
  if (auto *number = exactly<Grammar::FloatAtomContext>(atom)) {
    double value = std::strtod(withoutUnderscores(number->FLOAT_NUMBER()->getText()).c_str(), nullptr);
    return Value::ofExpr(ir::floatImm(value, DataType::float32(), at), at, true);
  }
  if (auto *strings = exactly<Grammar::StringAtomContext>(atom)) {
    std::string text;
    for (auto *piece : strings->STRING())
      text += decodeStringLiteral(piece->getText());
    return Value::ofString(std::move(text), at);
  }
  if (exactly<Grammar::NoneAtomContext>(atom))
    return Value::none(at);
  if (exactly<Grammar::TrueAtomContext>(atom))
    return Value::ofExpr(ir::boolImm(true, at), at, true);
  if (exactly<Grammar::FalseAtomContext>(atom))
    return Value::ofExpr(ir::boolImm(false, at), at, true);
  if (auto *paren = exactly<Grammar::ParenAtomContext>(atom)) {
    // `(e)` is e itself; a comma (or nothing) makes a tuple.
    if (paren->expr().size() == 1 && paren->COMMA().empty())
      return eval(paren->expr(0));
    return Value::ofItems(Value::Kind::Tuple, evalList(paren->expr()), at);
  }
  if (auto *list = exactly<Grammar::ListAtomContext>(atom))
    return Value::ofItems(Value::Kind::List, evalList(list->expr()), at);
  if (auto *dict = exactly<Grammar::DictAtomContext>(atom)) {
    std::vector<Value> items;
    for (auto *entry : dict->dict_entry()) {
      items.push_back(eval(entry->expr(0)));
      items.push_back(eval(entry->expr(1)));
    }
    return Value::ofItems(Value::Kind::Dict, std::move(items), at);
  }
  error(at, "unsupported expression");
  return Value::invalid();
}

std::vector<Value> FunctionBuilder::evalList(const std::vector<Grammar::ExprContext *> &exprs) {
  std::vector<Value> values;
  values.reserve(exprs.size());
  for (auto *expr : exprs)
    values.push_back(eval(expr));
  return values;
}

// ---- dtype rules ----------------------------------------------------------------

Expr FunctionBuilder::toExpr(const Value &value, const char *what) {
  switch (value.kind) {
  case Value::Kind::Invalid:
    return nullptr;
  case Value::Kind::Expr:
    return value.expr;
  case Value::Kind::Buffer:
    return value.buffer->data;
  case Value::Kind::IterVar:  // an env_thread stands for its variable, as TVM's IterVar does
    return value.iterVar->var;
  case Value::Kind::String:
    return ir::make<ir::StringImm>(value.text, value.loc);
  case Value::Kind::Path:
    error(value.loc, std::string("expected ") + what + ", got the function '" + value.text + "'");
    return nullptr;
  default:
    error(value.loc, std::string("expected ") + what + ", got " + describeKind(value.kind));
    return nullptr;
  }
}

Expr FunctionBuilder::toExprOf(const Value &value, DataType dtype, const char *what) {
  Expr expr = toExpr(value, what);
  if (!expr || !value.literal)
    return expr;
  // As TVM's FloatImm: a finite literal the dtype cannot represent is an error (it would
  // otherwise become infinity, or print as a value that does not parse back the same).
  if (auto *number = expr.as<ir::FloatImm>(); number && dtype.isFloat() && dtype.bits() <= 32) {
    double largest = dtype.bits() == 16 ? 65504.0 : double(std::numeric_limits<float>::max());
    if (std::isfinite(number->value) && std::fabs(number->value) > largest) {
      char text[64];
      std::snprintf(text, sizeof text, "%g", number->value);
      error(value.loc, std::string("literal value ") + text + " exceeds the range of " + dtype.str());
      return nullptr;
    }
  }
  if (expr->dtype == dtype)
    return expr;
  if (auto *integer = expr.as<ir::IntImm>()) {
    if (dtype.isFloat())
      return ir::floatImm(double(integer->value), dtype, value.loc);
    if (dtype.isBool())
      return ir::boolImm(integer->value != 0, value.loc);
    if (dtype.isIntOrUInt())
      return ir::intImm(integer->value, dtype, value.loc);
  }
  if (auto *number = expr.as<ir::FloatImm>()) {
    if (dtype.isFloat())
      return ir::floatImm(number->value, dtype, value.loc);
    error(value.loc, "float literal cannot be used as " + dtype.str() + " without a cast");
    return nullptr;
  }
  return expr;
}

bool FunctionBuilder::matchTypes(Value &a, Value &b, ir::SourceLoc at) {
  // A Python literal takes the dtype of the other operand, as TVM converts it
  // (a float literal meeting an integer makes the integer side float instead).
  auto adopt = [&](Value &literal, const Value &typed) {
    DataType target = typed.expr->dtype;
    if (literal.expr->dtype.isFloat() && !target.isFloat())
      return true;
    literal = Value::ofExpr(toExprOf(literal, target, "an operand"), literal.loc);
    return bool(literal.expr);
  };
  if (a.literal && !b.literal && !adopt(a, b))
    return false;
  if (b.literal && !a.literal && !adopt(b, a))
    return false;
  DataType ta = a.expr->dtype, tb = b.expr->dtype;
  auto numeric = [](DataType t) { return t.isIntOrUInt() || t.isFloat() || t.isBool(); };
  if (ta != tb && (!numeric(ta) || !numeric(tb) ||
                   (ta.lanes() != tb.lanes() && !ta.isScalar() && !tb.isScalar()))) {
    error(at, "operands have incompatible types " + ta.str() + " and " + tb.str());
    return false;
  }
  ir::matchBinaryTypes(a.expr, b.expr);
  return true;
}

Value FunctionBuilder::evalBinary(NodeKind op, Value a, Value b, ir::SourceLoc at) {
  a.expr = toExpr(a, "an operand");
  b.expr = toExpr(b, "an operand");
  if (!a.expr || !b.expr)
    return Value::invalid();
  bool divides = op == NodeKind::Div || op == NodeKind::Mod || op == NodeKind::FloorDiv ||
                 op == NodeKind::FloorMod;
  if (divides && b.expr->dtype.isIntOrUInt() && ir::isZero(b.expr)) {
    error(at, "division by zero");
    return Value::invalid();
  }
  if (!matchTypes(a, b, at))
    return Value::invalid();
  // Arithmetic on two Python literals is still a Python literal.
  bool literal = a.literal && b.literal;
  bool integers = ir::asConstInt(a.expr) && ir::asConstInt(b.expr) &&
                  a.expr->dtype.isIntOrUInt() && !a.expr->dtype.isBool();
  bool arithmetic = !ir::BinaryExpr::isComparison(op) && !ir::BinaryExpr::isLogical(op);
  if (integers && arithmetic)
    return foldIntegers(op, a, b, literal, at);
  return Value::ofExpr(ir::makeBinary(op, a.expr, b.expr, at), at, literal);
}

// Arithmetic on two integer constants. Python computes on literals exactly,
// and the result becomes int32 or int64 by its size, as TVM converts a Python
// int; on typed constants a result the dtype cannot hold is an error (TVM's
// IntImm range check), not a silent wrap-around.
Value FunctionBuilder::foldIntegers(NodeKind op, const Value &a, const Value &b, bool literal,
                                    ir::SourceLoc at) {
  int64_t x = *ir::asConstInt(a.expr), y = *ir::asConstInt(b.expr);
  std::optional<int64_t> exact = ir::exactIntArith(op, x, y);
  DataType dtype = a.expr->dtype;
  if (exact && literal)
    dtype = ir::fitsIntType(*exact, DataType::int32()) ? DataType::int32() : DataType::int64();
  if (!exact || !ir::fitsIntType(*exact, dtype)) {
    error(at, "integer overflow: " + std::string(ir::nodeKindName(op)) + "(" + std::to_string(x) + ", " +
                  std::to_string(y) + ") does not fit in " + (literal ? std::string("64 bits") : dtype.str()));
    return Value::invalid();
  }
  return Value::ofExpr(ir::intImm(*exact, dtype, at), at, literal);
}

Value FunctionBuilder::evalCompare(Grammar::CompareExprContext *expr) {
  ir::SourceLoc at = loc(expr);
  auto *op = expr->comp_op();
  NodeKind kind;
  if (op->LT()) kind = NodeKind::LT;
  else if (op->GT()) kind = NodeKind::GT;
  else if (op->LE()) kind = NodeKind::LE;
  else if (op->GE()) kind = NodeKind::GE;
  else if (op->EQ()) kind = NodeKind::EQ;
  else if (op->NE()) kind = NodeKind::NE;
  else {
    error(at, "operator '" + op->getText() + "' is not supported in TVMScript expressions");
    return Value::invalid();
  }
  // Python chains comparisons: `a < b < c` means `a < b and b < c`.
  auto *left = exactly<Grammar::CompareExprContext>(expr->expr(0));
  if (left) {
    Value chained = evalCompare(left);
    Value middle = eval(left->expr(1));
    Value last = evalBinary(kind, middle, eval(expr->expr(1)), at);
    return evalBinary(NodeKind::And, chained, last, at);
  }
  return evalBinary(kind, eval(expr->expr(0)), eval(expr->expr(1)), at);
}

Value FunctionBuilder::evalLogical(NodeKind op, Grammar::ExprContext *a, Grammar::ExprContext *b,
                                   ir::SourceLoc at) {
  Value va = eval(a), vb = eval(b);
  Expr ea = toExprOf(va, DataType::boolTy(), "a condition");
  Expr eb = toExprOf(vb, DataType::boolTy(), "a condition");
  if (!ea || !eb)
    return Value::invalid();
  return Value::ofExpr(ir::makeBinary(op, ea, eb, at), at, va.literal && vb.literal);
}

Value FunctionBuilder::evalUnary(Grammar::UnaryExprContext *expr) {
  ir::SourceLoc at = loc(expr);
  // Python's ints are unbounded, so `-9223372036854775808` (INT64_MIN, as TVM
  // prints it) is the negation of a literal just outside int64.
  if (expr->MINUS())
    if (auto *atom = exactly<Grammar::AtomExprContext>(expr->expr()))
      if (auto *integer = exactly<Grammar::IntAtomContext>(atom->atom()))
        if (parseIntegerMagnitude(integer->INTEGER()->getText()) ==
            uint64_t(std::numeric_limits<int64_t>::max()) + 1)
          return Value::ofExpr(ir::intImm(std::numeric_limits<int64_t>::min(), DataType::int64(), at),
                               at, true);
  Value operand = eval(expr->expr());
  if (operand.isInvalid())
    return operand;
  if (expr->PLUS())
    return operand;
  Expr value = toExpr(operand, "an operand");
  if (!value)
    return Value::invalid();
  if (expr->TILDE()) {
    error(at, "operator '~' is not supported");
    return Value::invalid();
  }
  // Negative literals stay literals (`-1` adopts its context's dtype).
  if (operand.literal) {
    if (value.as<ir::IntImm>()) {
      Value zero = Value::ofExpr(ir::intImm(0, value->dtype, at), at, true);
      return evalBinary(NodeKind::Sub, zero, operand, at);
    }
    if (auto *number = value.as<ir::FloatImm>())
      return Value::ofExpr(ir::floatImm(-number->value, value->dtype, at), at, true);
  }
  // TVM negates an expression by multiplying it with -1.
  Value minusOne = Value::ofExpr(ir::intImm(-1, DataType::int32(), at), at, true);
  return evalBinary(NodeKind::Mul, operand, minusOne, at);
}

// ---- attribute access, calls and subscripts ----------------------------------------

Value FunctionBuilder::evalAttribute(Grammar::AttributeExprContext *expr) {
  ir::SourceLoc at = loc(expr->NAME());
  std::string attribute = expr->NAME()->getText();
  Value object = eval(expr->expr());
  switch (object.kind) {
  case Value::Kind::Invalid:
    return object;
  case Value::Kind::Path:
    return Value::ofPath(object.text + "." + attribute, object.loc);
  case Value::Kind::Buffer:
    if (attribute == "data")
      return Value::ofExpr(object.buffer->data, at);
    if (attribute == "dtype")
      return Value::ofString(object.buffer->dtype.str(), at);
    if (attribute == "shape" || attribute == "strides") {
      std::vector<Value> dims;
      for (const Expr &dim : attribute == "shape" ? object.buffer->shape : object.buffer->strides)
        dims.push_back(Value::ofExpr(dim, at));
      return Value::ofItems(Value::Kind::Tuple, std::move(dims), at);
    }
    if (attribute == "elem_offset") {
      // A buffer without an offset variable starts at its data pointer (null means 0).
      const Expr &offset = object.buffer->elemOffset;
      return Value::ofExpr(offset ? offset : ir::intImm(0, DataType::int32(), at), at);
    }
    if (attribute == "access_ptr" || attribute == "vload") {
      return Value::ofMethod(attribute, std::move(object), at);
    }
    error(at, "buffer '" + object.buffer->name + "' has no attribute '" + attribute + "'");
    return Value::invalid();
  case Value::Kind::Expr:
    if (attribute == "astype") {
      return Value::ofMethod(attribute, std::move(object), at);
    }
    if (attribute == "dtype")
      return Value::ofString(object.expr->dtype.str(), at);
    break;
  case Value::Kind::IterVar:
    if (attribute == "var")
      return Value::ofExpr(object.iterVar->var, at);
    break;
  default:
    break;
  }
  error(at, std::string(describeKind(object.kind)) + " has no attribute '" + attribute + "'");
  return Value::invalid();
}

CallArgs FunctionBuilder::evalArgs(Grammar::ArglistContext *arglist, ir::SourceLoc at) {
  CallArgs args;
  args.loc = at;
  if (!arglist)
    return args;
  for (auto *argument : arglist->argument()) {
    if (auto *keyword = exactly<Grammar::KeywordArgumentContext>(argument)) {
      std::string name = keyword->NAME()->getText();
      if (args.keyword(name))
        error(loc(keyword), "keyword argument '" + name + "' repeated");
      args.keywords.emplace_back(name, eval(keyword->expr()));
    } else {
      auto *positional = static_cast<Grammar::PositionalArgumentContext *>(argument);
      if (!args.keywords.empty())
        error(loc(positional), "positional argument follows keyword argument");
      args.positional.push_back(eval(positional->expr()));
    }
  }
  return args;
}

Value FunctionBuilder::evalCall(Grammar::CallExprContext *expr) {
  ir::SourceLoc at = loc(expr);
  Value callee = eval(expr->expr());
  if (callee.isInvalid())
    return callee;
  if (callee.kind == Value::Kind::Path && callee.text == "T.comm_reducer")
    return evalCommReducer(expr->arglist(), at);
  CallArgs args = evalArgs(expr->arglist(), at);
  if (callee.kind == Value::Kind::Path)
    return callBuiltin(callee.text, args, at);
  if (callee.kind == Value::Kind::Method)
    return callMethod(callee, args, at);
  error(at, std::string(describeKind(callee.kind)) + " is not callable");
  return Value::invalid();
}

// The range of slice `start:stop` of dimension `dim` of buffer; an omitted
// bound is the start or the end of the dimension.
static ir::Range sliceRange(const ir::Buffer &buffer, size_t dim, const Expr &start,
                            const Expr &stop) {
  Expr begin = start ? start : ir::intImm(0, stop ? stop->dtype : DataType::int32());
  Expr end = stop ? stop : buffer.shape[dim];
  ir::matchBinaryTypes(begin, end);
  return rangeBetween(begin, end);
}

Value FunctionBuilder::evalIndex(const Value &object, Grammar::SubscriptlistContext *subscripts,
                                 ir::SourceLoc at) {
  std::vector<Grammar::SubscriptContext *> items = subscripts->subscript();
  if (object.kind == Value::Kind::Path && object.text == "T.Buffer") {
    // The old annotation spelling `T.Buffer[(128,), "float32"]`.
    CallArgs args;
    args.loc = at;
    for (auto *item : items)
      args.positional.push_back(item->expr() ? eval(item->expr()) : Value::invalid());
    return callBuiltin("T.Buffer", args, at);
  }
  if (object.isSequence() && items.size() == 1 && !items[0]->slice_tail()) {
    std::optional<int64_t> index = toConstInt(eval(items[0]->expr()), "an index");
    if (!index)
      return Value::invalid();
    int64_t size = int64_t(object.items.size());
    if (*index < -size || *index >= size) {
      error(at, "index " + std::to_string(*index) + " out of range");
      return Value::invalid();
    }
    return object.items[size_t(*index < 0 ? *index + size : *index)];
  }
  if (object.kind != Value::Kind::Buffer) {
    if (!object.isInvalid())
      error(at, std::string(describeKind(object.kind)) + " cannot be indexed");
    return Value::invalid();
  }
  // `A[()]`: the element of a zero-dimensional buffer.
  if (items.size() == 1 && !items[0]->slice_tail())
    if (auto *atom = exactly<Grammar::AtomExprContext>(items[0]->expr()))
      if (auto *paren = exactly<Grammar::ParenAtomContext>(atom->atom()); paren && paren->expr().empty()) {
        if (object.buffer->rank() != 0) {
          error(at, "buffer '" + object.buffer->name + "' has " + std::to_string(object.buffer->rank()) +
                        " dimensions; only a zero-dimensional buffer is indexed with ()");
          return Value::invalid();
        }
        return Value::ofExpr(ir::bufferLoad(object.buffer, {}, at), at);
      }
  const ir::Buffer &buffer = *object.buffer;
  bool isRegion = false;
  bool ok = true;
  std::vector<Expr> indices;
  std::vector<ir::Range> ranges;
  for (size_t dim = 0; dim < items.size(); ++dim) {
    auto *item = items[dim];
    Expr start;
    if (item->expr()) {
      start = toExpr(eval(item->expr()), "an index");
      ok &= bool(start);
    }
    if (auto *slice = item->slice_tail()) {
      isRegion = true;
      Expr stop;
      if (!slice->expr().empty() && slice->COLON().size() == 1) {
        stop = toExpr(eval(slice->expr(0)), "a slice bound");
        ok &= bool(stop);
      } else if (slice->COLON().size() == 2) {
        error(loc(slice), "slices with a step are not supported");
        ok = false;
      }
      if (ok && dim < buffer.rank())
        ranges.push_back(sliceRange(buffer, dim, start, stop));
    } else if (start) {
      ranges.push_back({start, ir::intImm(1, start->dtype)});
      indices.push_back(start);
    }
  }
  if (items.size() != buffer.rank()) {
    error(at, "buffer '" + buffer.name + "' has " + std::to_string(buffer.rank()) +
                  (buffer.rank() == 1 ? " dimension" : " dimensions") + " but is indexed with " +
                  std::to_string(items.size()) + (items.size() == 1 ? " index" : " indices"));
    return Value::invalid();
  }
  if (!ok)
    return Value::invalid();
  if (isRegion) {
    Value region = Value::ofBuffer(object.buffer, at);
    region.kind = Value::Kind::Region;
    region.ranges = std::move(ranges);
    return region;
  }
  return Value::ofExpr(ir::bufferLoad(object.buffer, std::move(indices), at), at);
}

Value FunctionBuilder::evalSubscript(Grammar::SubscriptExprContext *expr) {
  return evalIndex(eval(expr->expr()), expr->subscriptlist(), loc(expr));
}

// ---- dispatch ------------------------------------------------------------------

static NodeKind arithmeticKind(const antlr4::Token *op) {
  switch (op->getType()) {
  case Grammar::PLUS: return NodeKind::Add;
  case Grammar::MINUS: return NodeKind::Sub;
  case Grammar::STAR: return NodeKind::Mul;
  case Grammar::SLASH: return NodeKind::Div;
  case Grammar::FLOORDIV: return NodeKind::FloorDiv;
  default: return NodeKind::FloorMod;  // PERCENT: TVMScript's % is floormod
  }
}

Value FunctionBuilder::eval(Grammar::ExprContext *expr) {
  if (auto *atom = exactly<Grammar::AtomExprContext>(expr))
    return evalAtom(atom->atom());
  if (auto *call = exactly<Grammar::CallExprContext>(expr))
    return evalCall(call);
  if (auto *attribute = exactly<Grammar::AttributeExprContext>(expr))
    return evalAttribute(attribute);
  if (auto *subscript = exactly<Grammar::SubscriptExprContext>(expr))
    return evalSubscript(subscript);
  if (auto *add = exactly<Grammar::AddExprContext>(expr))
    return evalBinary(arithmeticKind(add->op), eval(add->expr(0)), eval(add->expr(1)), loc(add));
  if (auto *mul = exactly<Grammar::MulExprContext>(expr)) {
    if (mul->op->getType() == Grammar::AT) {
      error(loc(mul->op), "operator '@' is not supported in TVMScript expressions");
      return Value::invalid();
    }
    return evalBinary(arithmeticKind(mul->op), eval(mul->expr(0)), eval(mul->expr(1)), loc(mul));
  }
  if (auto *compare = exactly<Grammar::CompareExprContext>(expr))
    return evalCompare(compare);
  if (auto *logicalAnd = exactly<Grammar::AndExprContext>(expr))
    return evalLogical(NodeKind::And, logicalAnd->expr(0), logicalAnd->expr(1), loc(logicalAnd));
  if (auto *logicalOr = exactly<Grammar::OrExprContext>(expr))
    return evalLogical(NodeKind::Or, logicalOr->expr(0), logicalOr->expr(1), loc(logicalOr));
  if (auto *logicalNot = exactly<Grammar::NotExprContext>(expr)) {
    Expr operand = toExprOf(eval(logicalNot->expr()), DataType::boolTy(), "a condition");
    if (!operand)
      return Value::invalid();
    return Value::ofExpr(ir::notExpr(operand, loc(expr)), loc(expr));
  }
  if (auto *unary = exactly<Grammar::UnaryExprContext>(expr))
    return evalUnary(unary);
  if (auto *conditional = exactly<Grammar::ConditionalExprContext>(expr)) {
    // `a if c else b` is T.Select(c, a, b).
    Value trueValue = eval(conditional->expr(0));
    Expr condition = toExprOf(eval(conditional->expr(1)), DataType::boolTy(), "a condition");
    Value falseValue = eval(conditional->expr(2));
    if (!condition || trueValue.isInvalid() || falseValue.isInvalid())
      return Value::invalid();
    trueValue.expr = toExpr(trueValue, "a value");
    falseValue.expr = toExpr(falseValue, "a value");
    if (!trueValue.expr || !falseValue.expr || !matchTypes(trueValue, falseValue, loc(expr)))
      return Value::invalid();
    return Value::ofExpr(ir::make<ir::Select>(condition, trueValue.expr, falseValue.expr, loc(expr)),
                         loc(expr));
  }
  // Bitwise operators are the builtins TVM maps them to.
  auto bitwise = [&](const char *builtin, Grammar::ExprContext *a, Grammar::ExprContext *b) {
    CallArgs args;
    args.loc = loc(expr);
    args.positional = {eval(a), eval(b)};
    return callBuiltin(builtin, args, args.loc);
  };
  if (auto *shift = exactly<Grammar::ShiftExprContext>(expr))
    return bitwise(shift->LSHIFT() ? "T.shift_left" : "T.shift_right", shift->expr(0), shift->expr(1));
  if (auto *bitAnd = exactly<Grammar::BitAndExprContext>(expr))
    return bitwise("T.bitwise_and", bitAnd->expr(0), bitAnd->expr(1));
  if (auto *bitOr = exactly<Grammar::BitOrExprContext>(expr))
    return bitwise("T.bitwise_or", bitOr->expr(0), bitOr->expr(1));
  if (auto *bitXor = exactly<Grammar::BitXorExprContext>(expr))
    return bitwise("T.bitwise_xor", bitXor->expr(0), bitXor->expr(1));
  const char *what = exactly<Grammar::PowerExprContext>(expr) ? "'**'"
                     : exactly<Grammar::LambdaExprContext>(expr) ? "lambda"
                     : exactly<Grammar::StarredExprContext>(expr) ? "'*' unpacking"
                                                                        : "this expression";
  error(loc(expr), std::string(what) + " is not supported in TVMScript expressions");
  return Value::invalid();
}

} // namespace vtac::frontend
