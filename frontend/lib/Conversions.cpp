// Conversions from evaluated Values to what the IR wants: dtypes, strings,
// constant integers, shapes, attribute values, buffer regions, ranges and
// buffers described by `T.Buffer(...)`-style arguments.
#include "FunctionBuilder.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/StructuralEqual.h"

namespace vtac::frontend {

using ir::DataType;
using ir::Expr;

ir::Range rangeBetween(Expr begin, Expr end) {
  if (auto *sum = end.as<ir::BinaryExpr>())
    if (sum->kind() == ir::NodeKind::Add && ir::structuralEqual(sum->a, begin))
      return {begin, sum->b};
  return ir::rangeFromBeginEnd(std::move(begin), std::move(end));
}

std::optional<DataType> FunctionBuilder::toDataType(const Value &value) {
  std::string spelling;
  if (value.kind == Value::Kind::String)
    spelling = value.text.empty() ? "void" : value.text;  // TVM's "" is the void type
  else if (value.kind == Value::Kind::Path && value.text.rfind("T.", 0) == 0)
    spelling = value.text.substr(2);  // T.int32 used as a dtype
  else if (value.kind == Value::Kind::None)
    spelling = "void";
  else {
    if (!value.isInvalid())
      error(value.loc, std::string("expected a dtype, got ") + describeKind(value.kind));
    return std::nullopt;
  }
  std::optional<DataType> dtype = DataType::parse(spelling);
  if (!dtype)
    error(value.loc, "unknown dtype '" + spelling + "'");
  return dtype;
}

std::optional<VarType> FunctionBuilder::toVarType(const Value &value) {
  if (value.kind == Value::Kind::PointerType)
    return VarType{DataType::handle(), value.pointer};
  std::optional<DataType> dtype = toDataType(value);
  if (!dtype)
    return std::nullopt;
  return VarType{*dtype, std::nullopt};
}

std::optional<std::string> FunctionBuilder::toString(const Value &value, const char *what) {
  if (value.kind == Value::Kind::String)
    return value.text;
  if (!value.isInvalid())
    error(value.loc, std::string("expected ") + what + " (a string), got " + describeKind(value.kind));
  return std::nullopt;
}

std::optional<int64_t> FunctionBuilder::toConstInt(const Value &value, const char *what) {
  if (value.kind == Value::Kind::Expr)
    if (auto *integer = value.expr.as<ir::IntImm>())
      return integer->value;
  if (!value.isInvalid())
    error(value.loc, std::string("expected ") + what + " (an integer constant)");
  return std::nullopt;
}

std::optional<std::vector<Expr>> FunctionBuilder::toShape(const Value &value) {
  std::vector<Value> dims = value.isSequence() ? value.items : std::vector<Value>{value};
  std::vector<Expr> shape;
  bool ok = true;
  for (const Value &dim : dims) {
    Expr extent = toExpr(dim, "a shape dimension");
    if (extent && !extent->dtype.isIntOrUInt()) {
      error(dim.loc, "shape dimensions must be integers, got " + extent->dtype.str());
      extent = nullptr;
    }
    ok &= bool(extent);
    shape.push_back(extent);
  }
  if (!ok)
    return std::nullopt;
  return shape;
}

std::optional<ir::AttrValue> FunctionBuilder::toAttrValue(const Value &value) {
  switch (value.kind) {
  case Value::Kind::None:
    return ir::AttrValue();
  case Value::Kind::String:
    return ir::AttrValue(value.text);
  case Value::Kind::Expr:
    if (value.literal) {
      if (auto *integer = value.expr.as<ir::IntImm>())
        return integer->dtype.isBool() ? ir::AttrValue(integer->value != 0)
                                       : ir::AttrValue(integer->value);
      if (auto *number = value.expr.as<ir::FloatImm>())
        return ir::AttrValue(number->value);
    }
    return ir::AttrValue(value.expr);
  case Value::Kind::Tuple:
  case Value::Kind::List: {
    ir::AttrValue::Array array;
    for (const Value &item : value.items) {
      std::optional<ir::AttrValue> converted = toAttrValue(item);
      if (!converted)
        return std::nullopt;
      array.push_back(std::move(*converted));
    }
    return ir::AttrValue(std::move(array));
  }
  case Value::Kind::Dict: {
    std::optional<ir::AttrMap> map = toAttrMap(value);
    if (!map)
      return std::nullopt;
    return ir::AttrValue(std::move(*map));
  }
  default:
    if (!value.isInvalid())
      error(value.loc, std::string(describeKind(value.kind)) + " cannot be an attribute value");
    return std::nullopt;
  }
}

std::optional<ir::AttrMap> FunctionBuilder::toAttrMap(const Value &value) {
  if (value.kind != Value::Kind::Dict) {
    if (!value.isInvalid())
      error(value.loc, std::string("expected a dictionary, got ") + describeKind(value.kind));
    return std::nullopt;
  }
  ir::AttrMap map;
  bool ok = true;
  for (size_t i = 0; i + 1 < value.items.size(); i += 2) {
    std::optional<std::string> key = toString(value.items[i], "an attribute name");
    std::optional<ir::AttrValue> entry = toAttrValue(value.items[i + 1]);
    if (key && map.contains(*key)) {
      error(value.items[i].loc, "duplicate attribute '" + *key + "'");
      ok = false;
    } else if (key && entry) {
      map.set(*key, std::move(*entry));
    } else {
      ok = false;
    }
  }
  if (!ok)
    return std::nullopt;
  return map;
}

ir::BufferRegion FunctionBuilder::toRegion(const Value &value) {
  if (value.kind == Value::Kind::Region)
    return {value.buffer, value.ranges};
  if (value.kind == Value::Kind::Buffer) {
    // A whole buffer.
    std::vector<ir::Range> ranges;
    for (const Expr &extent : value.buffer->shape)
      ranges.push_back(ir::rangeFromExtent(extent));
    return {value.buffer, ranges};
  }
  if (value.kind == Value::Kind::Expr)
    if (auto *load = value.expr.as<ir::BufferLoad>()) {
      std::vector<ir::Range> ranges;
      for (const Expr &index : load->indices)
        ranges.push_back({index, ir::intImm(1, index->dtype)});
      return {load->buffer, ranges};
    }
  if (!value.isInvalid())
    error(value.loc, std::string("expected a buffer region such as A[i, 0:16], got ") +
                         describeKind(value.kind));
  return {};
}

ir::Range FunctionBuilder::toRange(const Value &domain, DataType dtype) {
  if (domain.isSequence()) {
    if (domain.items.size() != 2) {
      error(domain.loc, "a domain must be an extent or a (min, max) pair");
      return {};
    }
    Expr begin = toExprOf(domain.items[0], dtype, "a domain bound");
    Expr end = toExprOf(domain.items[1], dtype, "a domain bound");
    if (!begin || !end)
      return {};
    return rangeBetween(begin, end);
  }
  Expr extent = toExprOf(domain, dtype, "a domain extent");
  if (!extent)
    return {};
  return ir::rangeFromExtent(extent);
}

// T.Buffer(shape, dtype="float32", data=None, strides=None, elem_offset=None,
//          scope="global", align=-1, offset_factor=0, ...) and the same
// arguments after the source of T.match_buffer / T.alloc_buffer / T.decl_buffer.
ir::BufferRef FunctionBuilder::makeBufferFromArgs(const std::string &name, CallArgs &args,
                                                  size_t shapeIndex, ir::SourceLoc at,
                                                  bool regionView) {
  auto argument = [&](size_t offset, const char *keyword) -> const Value * {
    size_t index = shapeIndex + offset;
    if (index < args.positional.size())
      return &args.positional[index];
    return args.keyword(keyword);
  };
  static const char *const known[] = {"shape", "dtype", "data", "strides", "elem_offset", "scope",
                                      "align", "offset_factor", "buffer_type", "axis_separators"};
  for (const auto &[key, value] : args.keywords)
    if (std::find(std::begin(known), std::end(known), key) == std::end(known))
      error(value.loc, "unexpected keyword argument '" + key + "'");
  const Value *shapeValue = argument(0, "shape");
  if (!shapeValue) {
    error(at, "a buffer needs a shape");
    return nullptr;
  }
  std::optional<std::vector<Expr>> shape = toShape(*shapeValue);
  std::optional<DataType> dtype = DataType::float32();
  if (const Value *value = argument(1, "dtype"))
    dtype = toDataType(*value);
  std::string scope = "global";
  if (const Value *value = argument(5, "scope")) {
    std::optional<std::string> text = toString(*value, "a storage scope");
    if (!text)
      return nullptr;
    scope = *text;
  }
  std::vector<Expr> strides;
  if (const Value *value = argument(3, "strides"); value && value->kind != Value::Kind::None) {
    std::optional<std::vector<Expr>> converted = toShape(*value);
    if (!converted)
      return nullptr;
    strides = std::move(*converted);
  }
  Expr elemOffset;
  bool offsetGiven = false;
  if (const Value *value = argument(4, "elem_offset"); value && value->kind != Value::Kind::None) {
    elemOffset = toExprOf(*value, DataType::int32(), "an element offset");
    offsetGiven = true;
  }
  int align = ir::Buffer::kDefaultAlignment;
  if (const Value *value = argument(6, "align")) {
    std::optional<int64_t> constant = toConstInt(*value, "an alignment");
    if (constant && *constant > 0)
      align = int(*constant);
  }
  int offsetFactor = 0;
  if (const Value *value = argument(7, "offset_factor")) {
    std::optional<int64_t> constant = toConstInt(*value, "an offset factor");
    if (constant)
      offsetFactor = int(*constant);
  }
  bool autoBroadcast = false;
  if (const Value *value = argument(8, "buffer_type")) {
    std::optional<std::string> text = toString(*value, "a buffer type");
    if (text && *text != "default" && *text != "auto")
      error(value->loc, "buffer_type must be \"default\" or \"auto\", got \"" + *text + "\"");
    autoBroadcast = text == std::optional<std::string>("auto");
  }
  std::vector<int64_t> axisSeparators;
  if (const Value *value = argument(9, "axis_separators"); value && value->kind != Value::Kind::None) {
    if (!value->isSequence()) {
      error(value->loc, "axis_separators must be a list of integers");
      return nullptr;
    }
    for (const Value &item : value->items) {
      std::optional<int64_t> separator = toConstInt(item, "an axis separator");
      if (!separator)
        return nullptr;
      axisSeparators.push_back(*separator);
    }
  }
  if (!shape || !dtype)
    return nullptr;
  // TVM's decl_buffer: an offset factor without an elem_offset makes the offset a new
  // variable (`A.elem_offset`), typed as the shape, that a match binds to the region's start.
  if (offsetFactor != 0 && !offsetGiven) {
    DataType indexType = !shape->empty() && (*shape)[0] ? (*shape)[0]->dtype : DataType::int32();
    elemOffset = ir::makeVar(name + "_elem_offset", indexType, at);
  }
  ir::VarRef data;
  if (const Value *value = argument(2, "data"); value && value->kind != Value::Kind::None) {
    Expr expr = toExpr(*value, "a data pointer");
    if (!expr)
      return nullptr;
    if (!expr.isa<ir::Var>() || !expr->dtype.isHandle()) {
      error(value->loc, "the data of a buffer must be a handle variable");
      return nullptr;
    }
    data = ir::cast<ir::Var>(expr);
  } else {
    data = ir::make<ir::Var>(name, ir::PointerType{*dtype, scope}, at);
  }
  auto *buffer = new ir::Buffer(name, data, *dtype, std::move(*shape), std::move(strides), elemOffset,
                                align, offsetFactor, at);
  buffer->axisSeparators = std::move(axisSeparators);
  buffer->autoBroadcast = autoBroadcast;
  if (regionView && offsetGiven)
    buffer->elemOffset = elemOffset;
  return ir::BufferRef(buffer);
}

} // namespace vtac::frontend
