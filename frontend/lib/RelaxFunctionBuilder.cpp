#include "RelaxFunctionBuilder.h"

#include "Literals.h"
#include "SyntaxParser.h"
#include "TVMScriptLexer.h"
#include "vtac/ir/RelaxBuiltins.h"
#include "vtac/ir/RelaxOperators.h"

#include <charconv>

namespace vtac::frontend {

using Grammar = RelaxFunctionBuilder::Grammar;
namespace relax = ir::relax;

namespace {

Grammar::AtomContext *atomOf(Grammar::ExprContext *expr) {
  auto *atom = dynamic_cast<Grammar::AtomExprContext *>(expr);
  return atom ? atom->atom() : nullptr;
}

std::optional<std::string> nameOf(Grammar::ExprContext *expr) {
  if (auto *name = dynamic_cast<Grammar::NameAtomContext *>(atomOf(expr)))
    return name->NAME()->getText();
  return std::nullopt;
}

// "R.call_tir" for the expression `R.call_tir`.
std::optional<std::string> dottedName(Grammar::ExprContext *expr) {
  if (auto *attribute = dynamic_cast<Grammar::AttributeExprContext *>(expr)) {
    std::optional<std::string> base = dottedName(attribute->expr());
    if (!base) return std::nullopt;
    return *base + "." + attribute->NAME()->getText();
  }
  return nameOf(expr);
}

std::optional<std::string> stringOf(Grammar::ExprContext *expr) {
  auto *atom = dynamic_cast<Grammar::StringAtomContext *>(atomOf(expr));
  if (!atom) return std::nullopt;
  std::string text;
  for (antlr4::tree::TerminalNode *token : atom->STRING()) {
    std::string piece = token->getText();
    size_t quote = piece.size() >= 6 && (piece.compare(0, 3, "\"\"\"") == 0 || piece.compare(0, 3, "'''") == 0) ? 3 : 1;
    text += piece.substr(quote, piece.size() - 2 * quote);
  }
  return text;
}

std::optional<int64_t> intOf(Grammar::ExprContext *expr) {
  auto *atom = dynamic_cast<Grammar::IntAtomContext *>(atomOf(expr));
  if (!atom) return std::nullopt;
  std::string text = atom->INTEGER()->getText();
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// An `ndim=`: a count, or -1 (unknown) as TVM prints it.
std::optional<int64_t> ndimOf(Grammar::ExprContext *expr) {
  if (auto *unary = dynamic_cast<Grammar::UnaryExprContext *>(expr))
    return unary->op->getType() == Grammar::MINUS && intOf(unary->expr()) == std::optional<int64_t>(1)
               ? std::optional<int64_t>(-1)
               : std::nullopt;
  return intOf(expr);
}

bool isNone(Grammar::ExprContext *expr) {
  return expr && dynamic_cast<Grammar::NoneAtomContext *>(atomOf(expr));
}

// `True`, `False`.
std::optional<bool> boolOf(Grammar::ExprContext *expr) {
  Grammar::AtomContext *atom = atomOf(expr);
  if (dynamic_cast<Grammar::TrueAtomContext *>(atom)) return true;
  if (dynamic_cast<Grammar::FalseAtomContext *>(atom)) return false;
  return std::nullopt;
}

// `3`, `-1`.
std::optional<int64_t> signedIntOf(Grammar::ExprContext *expr) {
  if (auto *unary = dynamic_cast<Grammar::UnaryExprContext *>(expr)) {
    std::optional<int64_t> value = unary->op->getType() == Grammar::MINUS ? intOf(unary->expr()) : std::nullopt;
    return value ? std::optional<int64_t>(-*value) : std::nullopt;
  }
  return intOf(expr);
}

// The items of `(a, b)`, `(a,)`, `[a, b]`; `(a)` is not a tuple.
std::optional<std::vector<Grammar::ExprContext *>> tupleItems(Grammar::ExprContext *expr) {
  Grammar::AtomContext *atom = atomOf(expr);
  if (auto *paren = dynamic_cast<Grammar::ParenAtomContext *>(atom)) {
    if (paren->expr().size() == 1 && paren->COMMA().empty()) return std::nullopt;
    return paren->expr();
  }
  if (auto *list = dynamic_cast<Grammar::ListAtomContext *>(atom)) return list->expr();
  return std::nullopt;
}

// `(e)` -> `e`.
Grammar::ExprContext *stripParens(Grammar::ExprContext *expr) {
  while (auto *paren = dynamic_cast<Grammar::ParenAtomContext *>(atomOf(expr))) {
    if (paren->expr().size() != 1 || !paren->COMMA().empty()) break;
    expr = paren->expr(0);
  }
  return expr;
}

struct Arguments {
  std::vector<Grammar::ExprContext *> positional;
  std::vector<std::pair<std::string, Grammar::ExprContext *>> keywords;

  Grammar::ExprContext *get(size_t index, const std::string &keyword) const {
    if (index < positional.size()) return positional[index];
    for (const auto &[name, value] : keywords)
      if (name == keyword) return value;
    return nullptr;
  }
};

Arguments argumentsOf(Grammar::CallExprContext *call) {
  Arguments args;
  if (!call->arglist()) return args;
  for (Grammar::ArgumentContext *argument : call->arglist()->argument()) {
    if (auto *keyword = dynamic_cast<Grammar::KeywordArgumentContext *>(argument))
      args.keywords.emplace_back(keyword->NAME()->getText(), keyword->expr());
    else
      args.positional.push_back(dynamic_cast<Grammar::PositionalArgumentContext *>(argument)->expr());
  }
  return args;
}

// The operator token of Python arithmetic or a comparison (`x * y`, `-x`, `x < y`), which TVM
// reads as a high-level Relax operator (R.multiply, R.negative, R.less); null otherwise.
antlr4::Token *operatorToken(Grammar::ExprContext *expr) {
  if (auto *mul = dynamic_cast<Grammar::MulExprContext *>(expr)) return mul->op;
  if (auto *add = dynamic_cast<Grammar::AddExprContext *>(expr)) return add->op;
  if (auto *unary = dynamic_cast<Grammar::UnaryExprContext *>(expr)) return unary->op;
  if (auto *power = dynamic_cast<Grammar::PowerExprContext *>(expr)) return power->POWER()->getSymbol();
  if (auto *compare = dynamic_cast<Grammar::CompareExprContext *>(expr)) return compare->comp_op()->getStart();
  return nullptr;
}

// `x + y`, `x - y`, `x * y`, `x / y` on Relax values: R.add, R.subtract, R.multiply, R.divide,
// as TVM's parser reads Python arithmetic on Relax expressions; null when `expr` is none of
// these (other operators stay errors at the operator, in argument()).
antlr4::Token *arithmeticOperator(Grammar::ExprContext *expr, std::vector<Grammar::ExprContext *> &operands,
                                  std::string &name) {
  antlr4::Token *op = nullptr;
  if (auto *mul = dynamic_cast<Grammar::MulExprContext *>(expr)) op = mul->op, operands = mul->expr();
  if (auto *add = dynamic_cast<Grammar::AddExprContext *>(expr)) op = add->op, operands = add->expr();
  if (!op) return nullptr;
  static const std::vector<std::pair<size_t, const char *>> names = {
      {Grammar::PLUS, "add"}, {Grammar::MINUS, "subtract"}, {Grammar::STAR, "multiply"}, {Grammar::SLASH, "divide"}};
  for (const auto &[type, opName] : names)
    if (op->getType() == type) {
      name = opName;
      return op;
    }
  return nullptr;
}

// The callee's sizes a call binds: each parameter dimension that is a size of its own, to the
// argument's dimension there (TVM's DeriveCallRetStructInfo, for whole-dimension sizes).
using BoundSizes = std::unordered_map<const ir::Node *, ir::Expr>;

// The struct info of a function's result as its caller sees it: sizes the callee names are
// its own, so a dimension that uses one not bound by the call leaves the shape known by its
// rank only.
relax::StructInfo withoutSymbolicSizes(relax::StructInfo sinfo, const BoundSizes &bound = {}) {
  auto resolve = [&](std::optional<std::vector<ir::Expr>> &dims) {
    if (!dims) return;
    for (ir::Expr &dim : *dims) {
      if (dim.isa<ir::IntImm>()) continue;
      auto it = bound.find(dim.get());
      if (it == bound.end()) {
        dims.reset();
        return;
      }
      dim = it->second;
    }
  };
  resolve(sinfo.tensor.shape);
  resolve(sinfo.values);
  if (sinfo.value && !sinfo.value.isa<ir::IntImm>()) sinfo.value = ir::Expr();
  for (relax::StructInfo &field : sinfo.fields) field = withoutSymbolicSizes(field, bound);
  return sinfo;
}

void bindSizes(const relax::StructInfo &param, const relax::StructInfo &arg, BoundSizes &bound) {
  if (param.isTensor() && arg.isTensor() && param.tensor.shape && arg.tensor.shape &&
      param.tensor.shape->size() == arg.tensor.shape->size())
    for (size_t i = 0; i < param.tensor.shape->size(); ++i)
      if ((*param.tensor.shape)[i].isa<ir::Var>()) bound.emplace((*param.tensor.shape)[i].get(), (*arg.tensor.shape)[i]);
  if (param.kind == relax::StructInfo::Kind::Tuple && arg.kind == param.kind && param.fields.size() == arg.fields.size())
    for (size_t i = 0; i < param.fields.size(); ++i) bindSizes(param.fields[i], arg.fields[i], bound);
}

// A shape value written out: `R.shape([8, n])`, or `R.ShapeExpr([8, n])` (TVM's relax.ShapeExpr,
// which R exports too; printed as R.shape).
bool isShapeCall(const std::optional<std::string> &op) { return op == "R.shape" || op == "R.ShapeExpr"; }

// Calls that write a value, not compute one: R.const, R.prim_value, R.shape; R.tuple and
// R.match_cast (a binding's value only) are read where they stand.
bool isLeafCall(const std::optional<std::string> &op) {
  if (isShapeCall(op)) return true;
  static const std::vector<std::string> leaves = {"R.const", "R.prim_value", "R.str", "R.dtype", "R.tuple", "R.match_cast"};
  return op && std::find(leaves.begin(), leaves.end(), *op) != leaves.end();
}

// The struct info of a call's value.
relax::StructInfo callResult(const relax::Call &call) {
  if (!call.sinfoArgs.empty()) return call.sinfoArgs.front();
  if (call.kind == relax::CallKind::CallPacked) return relax::StructInfo::of(relax::StructInfo::Kind::Object, call.calleeLoc);
  if (call.kind == relax::CallKind::Function) {
    const relax::StructInfo &signature = call.calleeVar->sinfo;
    if (!signature.result) return relax::StructInfo::of(relax::StructInfo::Kind::Object, call.calleeLoc);
    BoundSizes bound;
    for (size_t i = 0; !signature.opaque && i < call.args.size(); ++i)
      bindSizes(signature.fields[i], call.args[i].sinfo(), bound);
    relax::StructInfo result = withoutSymbolicSizes(*signature.result, bound);
    result.loc = call.calleeLoc;
    return result;
  }
  return call.outputSinfo();
}

bool isSymbolicVarConstructor(Grammar::ExprContext *expr) {
  auto *call = dynamic_cast<Grammar::CallExprContext *>(expr);
  if (!call) return false;
  std::optional<std::string> callee = dottedName(call->expr());
  return callee && (*callee == "T.int64" || *callee == "T.int32" || *callee == "T.var" ||
                    *callee == "T.Var") &&
         (!call->arglist() || *callee == "T.var" || *callee == "T.Var");
}

}  // namespace

ir::SourceLoc RelaxFunctionBuilder::loc(const antlr4::ParserRuleContext *context) const {
  return locationOf(file_, context);
}

ir::SourceLoc RelaxFunctionBuilder::loc(antlr4::tree::TerminalNode *node) const {
  return locationOf(file_, node ? node->getSymbol() : nullptr);
}

void RelaxFunctionBuilder::error(ir::SourceLoc at, std::string message) {
  diagnostics_.error(at, std::move(message));
}

// ---- Annotations -----------------------------------------------------------------------------

ir::VarRef RelaxFunctionBuilder::symbolicVar(const std::string &name, ir::SourceLoc at,
                                             bool createIfMissing) {
  if (auto it = symbolicByName_.find(name); it != symbolicByName_.end()) return it->second;
  if (!createIfMissing) {
    error(at, "undefined symbolic size '" + name + "'");
    return nullptr;
  }
  ir::VarRef var = ir::makeVar(name, ir::DataType::int64(), at);
  symbolicByName_.emplace(name, var);
  symbolic_.push_back(var);
  return var;
}

ir::Expr RelaxFunctionBuilder::dim(Grammar::ExprContext *expr, bool inSignature) {
  expr = stripParens(expr);
  ir::SourceLoc at = loc(expr);
  if (std::optional<int64_t> value = intOf(expr)) return ir::intImm(*value, ir::DataType::int64(), at);
  if (std::optional<std::string> text = stringOf(expr)) {
    bool identifier = !text->empty() && !std::isdigit(static_cast<unsigned char>((*text)[0])) &&
                      std::all_of(text->begin(), text->end(), [](char c) {
                        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                      });
    if (!identifier) return quotedDim(*text, at, inSignature);
    return symbolicVar(*text, at, inSignature);
  }
  if (std::optional<std::string> name = nameOf(expr)) return symbolicVar(*name, at, quotedNamesDefine_);
  if (auto *call = dynamic_cast<Grammar::CallExprContext *>(expr)) {
    std::optional<std::string> callee = dottedName(call->expr());
    Arguments args = argumentsOf(call);
    if (callee && (*callee == "T.int64" || *callee == "T.int32") && args.positional.size() == 1)
      if (std::optional<int64_t> value = intOf(args.positional[0]))
        return ir::intImm(*value, ir::DataType::int64(), at);
  }
  ir::NodeKind op;
  Grammar::ExprContext *lhs = nullptr, *rhs = nullptr;
  if (auto *add = dynamic_cast<Grammar::AddExprContext *>(expr)) {
    op = add->op->getType() == Grammar::PLUS ? ir::NodeKind::Add : ir::NodeKind::Sub;
    lhs = add->expr(0);
    rhs = add->expr(1);
  } else if (auto *mul = dynamic_cast<Grammar::MulExprContext *>(expr)) {
    size_t type = mul->op->getType();
    if (type == Grammar::STAR) op = ir::NodeKind::Mul;
    else if (type == Grammar::FLOORDIV) op = ir::NodeKind::FloorDiv;
    else if (type == Grammar::PERCENT) op = ir::NodeKind::FloorMod;
    else {
      error(at, "unsupported operator in a shape dimension");
      return nullptr;
    }
    lhs = mul->expr(0);
    rhs = mul->expr(1);
  } else {
    error(at, "expected a shape dimension (an integer or a symbolic size)");
    return nullptr;
  }
  ir::Expr a = dim(lhs, inSignature), b = dim(rhs, inSignature);
  if (!a || !b) return nullptr;
  return ir::binary(op, a, b, at);
}

// A dimension written as a string ("n * 2 + 1", as TVM prints one in a signature): the text
// is parsed as an expression, its tokens placed at the string in the file.
ir::Expr RelaxFunctionBuilder::quotedDim(const std::string &text, ir::SourceLoc at, bool inSignature) {
  // Short enough that the recursive parser and dim() stay shallow.
  constexpr size_t kMaxQuotedDimLength = 200;
  if (text.size() > kMaxQuotedDimLength) {
    error(at, "quoted dimension too long (more than " + std::to_string(kMaxQuotedDimLength) + " characters)");
    return nullptr;
  }
  antlr4::ANTLRInputStream input(text);
  grammar::TVMScriptLexer lexer(&input);
  lexer.removeErrorListeners();
  std::vector<std::unique_ptr<antlr4::Token>> tokens;
  bool clean = true;
  for (std::unique_ptr<antlr4::Token> token = lexer.nextToken();; token = lexer.nextToken()) {
    auto placed = std::make_unique<antlr4::CommonToken>(token.get());
    placed->setLine(at.line);
    placed->setCharPositionInLine(at.column + token->getCharPositionInLine());  // after the quote
    size_t type = token->getType();
    clean &= type != grammar::TVMScriptLexer::UNKNOWN_CHAR && type != grammar::TVMScriptLexer::NEWLINE &&
             type != grammar::TVMScriptLexer::UNTERMINATED_STRING;
    tokens.push_back(std::move(placed));
    if (type == antlr4::Token::EOF) break;
  }
  antlr4::ListTokenSource source(std::move(tokens));
  antlr4::CommonTokenStream stream(&source);
  Grammar parser(&stream);
  parser.removeErrorListeners();
  Grammar::Single_exprContext *parsed = clean ? parser.single_expr() : nullptr;
  if (!parsed || parser.getNumberOfSyntaxErrors() != 0) {
    error(at, "a quoted dimension must be a name or an expression of symbolic sizes, got \"" + text + "\"");
    return nullptr;
  }
  bool outer = quotedNamesDefine_;
  quotedNamesDefine_ = inSignature;
  ir::Expr result = dim(parsed->expr(), inSignature);
  quotedNamesDefine_ = outer;
  return result;
}

// `R.Tuple(a, b)`, `R.Tuple([a, b])`: the items of one tuple argument, or the arguments.
std::optional<std::vector<relax::StructInfo>>
RelaxFunctionBuilder::structInfoList(Grammar::ExprContext *expr, bool inSignature) {
  std::vector<Grammar::ExprContext *> items{expr};
  if (std::optional<std::vector<Grammar::ExprContext *>> tuple = tupleItems(expr)) items = *tuple;
  std::vector<relax::StructInfo> list;
  for (Grammar::ExprContext *item : items) {
    std::optional<relax::StructInfo> sinfo = structInfo(item, inSignature);
    if (!sinfo) return std::nullopt;
    list.push_back(std::move(*sinfo));
  }
  return list;
}

std::optional<relax::StructInfo> RelaxFunctionBuilder::structInfo(Grammar::ExprContext *expr,
                                                                  bool inSignature) {
  using Kind = relax::StructInfo::Kind;
  ir::SourceLoc at = loc(expr);
  auto *call = dynamic_cast<Grammar::CallExprContext *>(expr);
  std::optional<std::string> name = dottedName(call ? call->expr() : expr);
  if (name == std::optional<std::string>("R.Tensor")) return tensorStructInfo(expr, inSignature);
  static const std::vector<std::pair<std::string, Kind>> kinds = {
      {"R.Tuple", Kind::Tuple},   {"R.Shape", Kind::Shape},   {"R.Prim", Kind::Prim},
      {"R.Object", Kind::Object}, {"R.Callable", Kind::Callable}};
  auto kind = std::find_if(kinds.begin(), kinds.end(), [&](const auto &entry) { return entry.first == name; });
  if (kind == kinds.end()) {
    error(at, "expected struct info: R.Tensor, R.Tuple, R.Shape, R.Prim, R.Object or R.Callable");
    return std::nullopt;
  }
  relax::StructInfo sinfo = relax::StructInfo::of(kind->second, at);
  Arguments args = call ? argumentsOf(call) : Arguments{};
  // The parameters of TVM's R.Tuple/R.Shape/R.Prim/R.Object/R.Callable, positional order.
  static const std::unordered_map<std::string, std::vector<std::string>> accepted = {
      {"R.Tuple", {}}, {"R.Shape", {"values", "ndim"}}, {"R.Prim", {"dtype", "value"}},
      {"R.Object", {}}, {"R.Callable", {"params", "ret", "purity"}}};
  const std::vector<std::string> &names = accepted.at(*name);
  for (const auto &[keyword, value] : args.keywords)
    if (std::find(names.begin(), names.end(), keyword) == names.end()) {
      error(loc(value), "unexpected argument '" + keyword + "' to " + *name);
      return std::nullopt;
    }
  if (kind->second != Kind::Tuple && args.positional.size() > names.size()) {
    error(loc(args.positional[names.size()]), *name + " takes at most " + std::to_string(names.size()) +
                                                  " positional arguments");
    return std::nullopt;
  }
  switch (kind->second) {
  case Kind::Tuple: {
    std::vector<Grammar::ExprContext *> fields = args.positional;
    if (fields.size() == 1 && tupleItems(fields[0])) fields = *tupleItems(fields[0]);
    for (Grammar::ExprContext *field : fields) {
      std::optional<relax::StructInfo> item = structInfo(field, inSignature);
      if (!item) return std::nullopt;
      sinfo.fields.push_back(std::move(*item));
    }
    break;
  }
  case Kind::Shape:
    if (Grammar::ExprContext *values = args.get(0, "values"); values && !isNone(values)) {
      std::optional<std::vector<Grammar::ExprContext *>> items = tupleItems(values);
      if (!items) {
        error(loc(values), "expected the shape's values as a list, e.g. [n, 4]");
        return std::nullopt;
      }
      sinfo.values.emplace();
      for (Grammar::ExprContext *item : *items) {
        ir::Expr value = dim(item, inSignature);
        if (!value) return std::nullopt;
        sinfo.values->push_back(value);
      }
      sinfo.ndim = int(items->size());
    }
    if (Grammar::ExprContext *ndim = args.get(1, "ndim")) {
      std::optional<int64_t> value = ndimOf(ndim);
      if (!value || *value < -1 || (sinfo.values && *value != sinfo.ndim)) {
        error(loc(ndim), "ndim must be an integer matching the values");
        return std::nullopt;
      }
      sinfo.ndim = int(*value);
    }
    break;
  case Kind::Prim: {
    Grammar::ExprContext *dtype = args.get(0, "dtype");
    Grammar::ExprContext *value = args.get(1, "value");
    if (dtype && !isNone(dtype)) {
      std::optional<std::string> text = stringOf(dtype);
      std::optional<ir::DataType> parsed = text ? ir::DataType::parse(*text) : std::nullopt;
      if (!parsed || parsed->isVoid()) {
        error(loc(dtype), "expected a type such as \"int64\"");
        return std::nullopt;
      }
      sinfo.dtype = *parsed;
    }
    if (value && !isNone(value)) {
      // A scalar may be negative (R.prim_value(-5)), unlike a size.
      std::optional<int64_t> literal = signedIntOf(value);
      sinfo.value = literal ? ir::intImm(*literal, ir::DataType::int64(), loc(value)) : dim(value, inSignature);
      if (!sinfo.value) return std::nullopt;
      if (sinfo.dtype.isVoid()) sinfo.dtype = ir::DataType::int64();
      if (sinfo.dtype != ir::DataType::int64()) {
        error(loc(dtype), "a known R.Prim value is an int64 size; give the dtype alone");
        return std::nullopt;
      }
    }
    if (sinfo.dtype.isVoid()) {
      error(at, "R.Prim needs a dtype or a value, e.g. R.Prim(\"int64\")");
      return std::nullopt;
    }
    break;
  }
  case Kind::Callable: {
    Grammar::ExprContext *params = args.get(0, "params");
    Grammar::ExprContext *ret = args.get(1, "ret");
    Grammar::ExprContext *purity = args.get(2, "purity");
    sinfo.opaque = !params || isNone(params);
    if (!sinfo.opaque) {
      std::optional<std::vector<relax::StructInfo>> list = structInfoList(params, inSignature);
      if (!list) return std::nullopt;
      sinfo.fields = std::move(*list);
    }
    if (ret && !isNone(ret)) {
      std::optional<relax::StructInfo> result = structInfo(ret, inSignature);
      if (!result) return std::nullopt;
      // R.Object is what an absent result means; kept as absent so both compare equal.
      if (result->kind != Kind::Object) sinfo.result = std::make_shared<const relax::StructInfo>(std::move(*result));
    }
    // TVM's default: an opaque function is impure, one with known parameters pure.
    sinfo.pure = !sinfo.opaque;
    if (purity && !isNone(purity)) {
      auto *atom = atomOf(purity);
      if (!dynamic_cast<Grammar::TrueAtomContext *>(atom) && !dynamic_cast<Grammar::FalseAtomContext *>(atom)) {
        error(loc(purity), "purity must be True or False");
        return std::nullopt;
      }
      sinfo.pure = dynamic_cast<Grammar::TrueAtomContext *>(atom) != nullptr;
    }
    break;
  }
  default: break;
  }
  return sinfo;
}

std::optional<relax::TensorStructInfo>
RelaxFunctionBuilder::tensorStructInfo(Grammar::ExprContext *expr, bool inSignature) {
  ir::SourceLoc at = loc(expr);
  relax::TensorStructInfo sinfo;
  sinfo.loc = at;
  if (dottedName(expr) == std::optional<std::string>("R.Tensor")) return sinfo;
  auto *call = dynamic_cast<Grammar::CallExprContext *>(expr);
  if (!call || dottedName(call->expr()) != std::optional<std::string>("R.Tensor")) {
    error(at, "expected a tensor annotation R.Tensor(shape, dtype)");
    return std::nullopt;
  }
  Arguments args = argumentsOf(call);
  Grammar::ExprContext *shape = args.get(0, "shape");
  Grammar::ExprContext *dtype = args.get(1, "dtype");
  // R.Tensor("float32"): a dtype only.
  if (shape && stringOf(shape) && !dtype) std::swap(shape, dtype);
  for (const auto &[keyword, value] : args.keywords)
    if (keyword != "shape" && keyword != "dtype" && keyword != "vdevice" && keyword != "ndim") {
      error(loc(value), "unexpected argument '" + keyword + "' to R.Tensor");
      return std::nullopt;
    }
  // R.Tensor(shape, dtype, vdevice, ndim), TVM's order.
  if (Grammar::ExprContext *vdevice = args.get(2, "vdevice"); vdevice && !isNone(vdevice)) {
    std::optional<std::string> name = virtualDevice(vdevice);
    if (!name) return std::nullopt;
    sinfo.vdevice = *name;
  }
  // `R.Tensor(None, "float32", ndim=2)`: the shape unknown, as without one.
  if (shape && !isNone(shape)) {
    std::optional<std::vector<Grammar::ExprContext *>> items = tupleItems(shape);
    if (!items) {
      error(loc(shape), "expected the shape as a tuple, e.g. (1, \"n\")");
      return std::nullopt;
    }
    std::vector<ir::Expr> dims;
    for (Grammar::ExprContext *item : *items) {
      ir::Expr d = dim(item, inSignature);
      if (!d) return std::nullopt;
      dims.push_back(d);
    }
    sinfo.ndim = int(dims.size());
    sinfo.shape = std::move(dims);
  }
  if (dtype) {
    std::optional<std::string> text = stringOf(dtype);
    std::optional<ir::DataType> parsed = text ? ir::DataType::parse(*text) : std::nullopt;
    if (!parsed || parsed->isVoid() || parsed->isHandle()) {
      error(loc(dtype), "expected an element type such as \"float32\"");
      return std::nullopt;
    }
    sinfo.dtype = *parsed;
  }
  if (Grammar::ExprContext *ndim = args.get(3, "ndim")) {
    std::optional<int64_t> value = ndimOf(ndim);
    if (!value || *value < -1 || (sinfo.shape && *value != sinfo.ndim)) {
      error(loc(ndim), "ndim must be an integer matching the shape");
      return std::nullopt;
    }
    sinfo.ndim = int(*value);
  }
  return sinfo;
}

// ---- Values ----------------------------------------------------------------------------------

relax::VarPtr RelaxFunctionBuilder::findVar(const std::string &name) const {
  if (inDataflow_)
    if (auto it = dataflowScope_.find(name); it != dataflowScope_.end()) return it->second;
  if (auto it = visible_.find(name); it != visible_.end()) return it->second;
  if (auto it = captured_.find(name); it != captured_.end()) return it->second;
  return nullptr;
}

relax::VarPtr RelaxFunctionBuilder::lookupVar(const std::string &name, ir::SourceLoc at) {
  if (relax::VarPtr var = findVar(name)) return var;
  if (hiddenDataflowNames_.count(name))
    error(at, "'" + name + "' is bound inside a dataflow block and not exposed by its R.output");
  else
    error(at, "undefined variable '" + name + "'");
  return nullptr;
}

std::optional<relax::Arg> RelaxFunctionBuilder::argument(Grammar::ExprContext *expr) {
  expr = stripParens(expr);
  relax::Arg arg;
  arg.loc = loc(expr);
  if (std::optional<std::string> name = nameOf(expr)) {
    arg.var = lookupVar(*name, arg.loc);
    if (!arg.var) return std::nullopt;
    return arg;
  }
  // metadata["relax.expr.Constant"][i]
  if (auto *outer = dynamic_cast<Grammar::SubscriptExprContext *>(expr)) {
    auto *inner = dynamic_cast<Grammar::SubscriptExprContext *>(outer->expr());
    if (inner && nameOf(inner->expr()) == std::optional<std::string>("metadata") &&
        inner->subscriptlist()->subscript().size() == 1 &&
        outer->subscriptlist()->subscript().size() == 1) {
      Grammar::SubscriptContext *key = inner->subscriptlist()->subscript(0);
      Grammar::SubscriptContext *index = outer->subscriptlist()->subscript(0);
      std::optional<std::string> kind = key->expr() && !key->slice_tail() ? stringOf(key->expr()) : std::nullopt;
      int64_t slot = -1;
      if (index->expr() && !index->slice_tail())
        if (std::optional<int64_t> value = intOf(index->expr())) slot = *value;
      if (kind != std::optional<std::string>("relax.expr.Constant") || slot < 0 || slot > 1'000'000) {
        error(arg.loc, "expected metadata[\"relax.expr.Constant\"][index]");
        return std::nullopt;
      }
      if (size_t(slot) >= constants_.size()) constants_.resize(size_t(slot) + 1);
      if (!constants_[slot]) {
        constants_[slot] = std::make_shared<relax::Constant>();
        constants_[slot]->loc = arg.loc;
      }
      arg.constant = constants_[slot];
      return arg;
    }
  }
  if (auto *callExpr = dynamic_cast<Grammar::CallExprContext *>(expr);
      callExpr && dottedName(callExpr->expr()) == std::optional<std::string>("R.const")) {
    arg.constant = inlineConstant(callExpr);
    if (!arg.constant) return std::nullopt;
    return arg;
  }
  if (auto *callExpr = dynamic_cast<Grammar::CallExprContext *>(expr);
      callExpr && isShapeCall(dottedName(callExpr->expr()))) {
    arg.shape = shapeValue(expr);
    if (!arg.shape) return std::nullopt;
    return arg;
  }
  // `R.str("global")`, `R.dtype("float32")`: a string, a data type (TVM's StringImm, DataTypeImm).
  if (auto *callExpr = dynamic_cast<Grammar::CallExprContext *>(expr);
      callExpr && (dottedName(callExpr->expr()) == std::optional<std::string>("R.str") ||
                   dottedName(callExpr->expr()) == std::optional<std::string>("R.dtype"))) {
    bool isString = dottedName(callExpr->expr()) == std::optional<std::string>("R.str");
    Arguments args = argumentsOf(callExpr);
    std::optional<std::string> text =
        args.positional.size() == 1 && args.keywords.empty() ? stringOf(args.positional[0]) : std::nullopt;
    std::optional<ir::DataType> dtype = text && !isString ? ir::DataType::parse(*text) : std::nullopt;
    if (isString ? !text : !dtype || dtype->isVoid()) {
      error(arg.loc, isString ? "expected R.str(\"text\")" : "expected R.dtype(\"float32\"), a data type");
      return std::nullopt;
    }
    if (isString) arg.text = text;
    else arg.dtypeValue = dtype;
    return arg;
  }
  if (auto *callExpr = dynamic_cast<Grammar::CallExprContext *>(expr);
      callExpr && dottedName(callExpr->expr()) == std::optional<std::string>("R.prim_value")) {
    Arguments args = argumentsOf(callExpr);
    if (args.positional.size() != 1 || !args.keywords.empty()) {
      error(arg.loc, "expected R.prim_value(value), a value of symbolic sizes such as n or n % 16 == 0");
      return std::nullopt;
    }
    arg.prim = primValue(args.positional[0]);
    if (!arg.prim) return std::nullopt;
    return arg;
  }
  if (auto *attribute = dynamic_cast<Grammar::AttributeExprContext *>(expr); attribute && namesModule(attribute)) {
    arg.moduleFunction = moduleFunction(attribute);
    if (!arg.moduleFunction) {
      error(loc(attribute->NAME()), "'" + attribute->NAME()->getText() + "' is not a function of the module");
      return std::nullopt;
    }
    return arg;
  }
  if (isNestedValue(expr)) return nestedValue(expr);
  if (antlr4::Token *op = operatorToken(expr)) {
    error(locationOf(file_, op), "operator '" + op->getText() +
                                     "' on Relax values (a high-level operator) is not supported yet");
    return std::nullopt;
  }
  error(arg.loc, "expected a variable, R.const(...) or a metadata constant");
  return std::nullopt;
}

// An argument of a call as TVM's convert_to_expr reads a Python value: an integer is an int64
// scalar (`R.prim_value(2)`), True/False a bool one, a string `R.str("...")`, a list or tuple a
// tuple of such arguments.
std::optional<relax::Arg> RelaxFunctionBuilder::callArgument(Grammar::ExprContext *expr) {
  expr = stripParens(expr);
  relax::Arg arg;
  arg.loc = loc(expr);
  if (signedIntOf(expr) || boolOf(expr)) {
    arg.prim = primValue(expr);
    return arg;
  }
  if ((arg.text = stringOf(expr))) return arg;
  if (std::optional<std::vector<Grammar::ExprContext *>> items = tupleItems(expr))
    return tupleOf(*items, arg.loc, &RelaxFunctionBuilder::callArgument);
  return tupleField(expr);
}

// Does `cls.f` name the module (after `cls = Module`, or by its class name), unhidden by a
// variable?
bool RelaxFunctionBuilder::namesModule(Grammar::AttributeExprContext *attribute) const {
  std::optional<std::string> base = nameOf(attribute->expr());
  return base && (moduleAliases_.count(*base) || (!moduleName_.empty() && *base == moduleName_)) && !findVar(*base);
}

// The module's function `cls.f` names: an unbound variable of its name and R.Callable
// signature; null when the module has none of that name.
relax::VarPtr RelaxFunctionBuilder::moduleFunction(Grammar::AttributeExprContext *attribute) {
  std::optional<relax::StructInfo> signature =
      moduleSignatures_ ? moduleSignatures_(attribute->NAME()->getText()) : std::nullopt;
  if (!signature) return nullptr;
  auto function = std::make_shared<relax::Var>();
  function->name = attribute->NAME()->getText();
  function->sinfo = std::move(*signature);
  // A value's struct info is located where it is used, as that of other values.
  function->loc = function->sinfo.loc = loc(attribute);
  return function;
}

// The value of `R.prim_value(...)`: an integer (int64, as TVM's), True or False, an expression
// of symbolic sizes, or a comparison of two (bool).
ir::Expr RelaxFunctionBuilder::primValue(Grammar::ExprContext *expr) {
  expr = stripParens(expr);
  if (std::optional<int64_t> value = signedIntOf(expr)) return ir::intImm(*value, ir::DataType::int64(), loc(expr));
  if (std::optional<bool> value = boolOf(expr)) return ir::intImm(*value, ir::DataType::boolTy(), loc(expr));
  auto *compare = dynamic_cast<Grammar::CompareExprContext *>(expr);
  if (!compare) return dim(expr, false);
  static const std::vector<std::pair<std::string, ir::NodeKind>> comparisons = {
      {"==", ir::NodeKind::EQ}, {"!=", ir::NodeKind::NE}, {"<", ir::NodeKind::LT},
      {"<=", ir::NodeKind::LE}, {">", ir::NodeKind::GT}, {">=", ir::NodeKind::GE}};
  std::string op = compare->comp_op()->getText();
  auto kind = std::find_if(comparisons.begin(), comparisons.end(), [&](const auto &entry) { return entry.first == op; });
  if (kind == comparisons.end() || compare->expr().size() != 2) {
    error(loc(compare->comp_op()), "unsupported comparison '" + op + "' in R.prim_value");
    return nullptr;
  }
  ir::Expr lhs = primValue(compare->expr(0)), rhs = lhs ? primValue(compare->expr(1)) : nullptr;
  if (!lhs || !rhs) return nullptr;
  return ir::binary(kind->second, lhs, rhs, loc(expr));
}

// `t[0]`, `t[0][1]`: a field of a named tuple, or of a field (not
// `metadata["relax.expr.Constant"][0]`, a constant).
bool isTupleField(Grammar::ExprContext *expr) {
  auto *subscript = dynamic_cast<Grammar::SubscriptExprContext *>(expr);
  if (!subscript) return false;
  Grammar::ExprContext *base = stripParens(subscript->expr());
  if (auto *inner = dynamic_cast<Grammar::SubscriptExprContext *>(base);
      inner && nameOf(inner->expr()) == std::optional<std::string>("metadata"))
    return false;
  return nameOf(base) || isTupleField(base);
}

// A value that is no variable or constant where TVM's normalizer wants one: a call
// (`R.add(x, y)`, `R.call_tir(...)`), Python arithmetic (`x + y`) or a tuple field (`t[0]`).
bool RelaxFunctionBuilder::isNestedValue(Grammar::ExprContext *expr) {
  std::vector<Grammar::ExprContext *> operands;
  std::string name;
  if (arithmeticOperator(expr, operands, name)) return true;
  if (isTupleField(expr)) return true;
  auto *callExpr = dynamic_cast<Grammar::CallExprContext *>(expr);
  std::optional<std::string> op = callExpr ? dottedName(callExpr->expr()) : std::nullopt;
  // Leaves and tuples stay arguments; R.match_cast is a binding only.
  return callExpr && !isLeafCall(op);
}

// A nested value as TVM's BlockBuilder::NormalizeArgument reads it: bound first to a fresh
// variable ("lv", "lv1", ... in a dataflow block, "gv", ... outside), which the call or return
// then uses. `y = R.nn.relu(R.add(x, w))` is `lv = R.add(x, w)` then `y = R.nn.relu(lv)`, and
// `return R.add(x, w)` is `gv = R.add(x, w)` then `return gv`.
std::optional<relax::Arg> RelaxFunctionBuilder::nestedValue(Grammar::ExprContext *expr) {
  relax::Binding binding;
  binding.loc = loc(expr);
  std::optional<relax::StructInfo> sinfo = bindingValue(expr, binding);
  if (!sinfo) return std::nullopt;
  relax::Arg arg;
  arg.loc = loc(expr);
  // The generated name is not in scope: the text cannot name it, and it must not hide a
  // variable the text binds under the same name.
  arg.var = emit(std::move(binding), freshName(), loc(expr), *sinfo, /*inScope=*/false);
  return arg;
}

// TVM's NameSupply::FreshName for the BlockBuilder's binding names: the prefix itself the first
// time, then the prefix with a count (no underscore).
std::string RelaxFunctionBuilder::freshName() {
  std::string prefix = inDataflow_ ? "lv" : "gv";
  if (emittedNames_.try_emplace(prefix, 0).second) return prefix;
  unsigned &count = emittedNames_[prefix];  // a reference survives rehashing
  std::string name = prefix;
  while (!emittedNames_.try_emplace(name, 0).second) name = prefix + std::to_string(++count);
  return name;
}

relax::VarPtr RelaxFunctionBuilder::emit(relax::Binding binding, const std::string &name, ir::SourceLoc at,
                                         relax::StructInfo sinfo, bool inScope) {
  auto var = std::make_shared<relax::Var>();
  var->name = name;
  var->loc = at;
  var->sinfo = std::move(sinfo);
  var->dataflow = inDataflow_;
  binding.var = var;
  if (inDataflow_) {
    if (inScope) dataflowScope_[name] = var;
    blocks_.back().bindings.push_back(std::move(binding));
  } else {
    if (inScope) {
      visible_[name] = var;
      hiddenDataflowNames_.erase(name);
    }
    bindingBlockOutsideDataflow().bindings.push_back(std::move(binding));
  }
  return var;
}

// A field of a tuple or a returned value: an argument, or a tuple itself (`(a, (b, c))`,
// `R.tuple()`).
std::optional<relax::Arg> RelaxFunctionBuilder::tupleField(Grammar::ExprContext *expr) {
  expr = stripParens(expr);
  std::optional<std::vector<Grammar::ExprContext *>> items = tupleItems(expr);
  auto *callExpr = dynamic_cast<Grammar::CallExprContext *>(expr);
  if (callExpr && dottedName(callExpr->expr()) == std::optional<std::string>("R.tuple")) {
    Arguments args = argumentsOf(callExpr);
    if (!args.keywords.empty()) {
      error(loc(args.keywords[0].second), "R.tuple takes its fields as positional arguments");
      return std::nullopt;
    }
    items = args.positional;
  }
  if (!items) return argument(expr);
  return tupleOf(*items, loc(expr), &RelaxFunctionBuilder::tupleField);
}

// The tuple of `items`, each read by `field` (a nested tuple, a value).
std::optional<relax::Arg> RelaxFunctionBuilder::tupleOf(const std::vector<Grammar::ExprContext *> &items, ir::SourceLoc at,
                                                        FieldReader read) {
  relax::Arg arg;
  arg.loc = at;
  auto fields = std::make_shared<std::vector<relax::Arg>>();
  for (Grammar::ExprContext *item : items) {
    std::optional<relax::Arg> field = (this->*read)(item);
    if (!field) return std::nullopt;
    fields->push_back(*field);
  }
  arg.fields = std::move(fields);
  return arg;
}

// `R.const(2)`, `R.const(0.5, "float16")`, `R.const(True, dtype="bool")`: a scalar. Without a
// dtype an int is int32, a float float32 and True/False bool, as TVM's relax.const.
std::shared_ptr<const relax::Constant> RelaxFunctionBuilder::inlineConstant(Grammar::CallExprContext *call) {
  ir::SourceLoc at = loc(call);
  Arguments args = argumentsOf(call);
  Grammar::ExprContext *value = args.get(0, "value");
  Grammar::ExprContext *dtypeExpr = args.get(1, "dtype");
  if (!value || args.positional.size() + args.keywords.size() > 2) {
    error(at, "expected R.const(value) or R.const(value, dtype)");
    return nullptr;
  }
  std::optional<ir::AttrValue> literal = attrLiteral(value);
  if (!literal) return nullptr;
  // A tensor is written as nested lists of numbers (numpy's array of them): its shape is the
  // lists' lengths, every list of a level as long as the first.
  std::vector<int64_t> shape;
  for (const ir::AttrValue *level = &*literal; level->isArray() && !level->asArray().empty();
       level = &level->asArray().front())
    shape.push_back(int64_t(level->asArray().size()));
  std::vector<const ir::AttrValue *> elements;
  bool rectangular = true;
  std::function<void(const ir::AttrValue &, size_t)> flatten = [&](const ir::AttrValue &item, size_t depth) {
    if (depth == shape.size()) {
      elements.push_back(&item);
      return;
    }
    if (!item.isArray() || int64_t(item.asArray().size()) != shape[depth]) {
      rectangular = false;
      return;
    }
    for (const ir::AttrValue &field : item.asArray()) flatten(field, depth + 1);
  };
  flatten(*literal, 0);
  bool numbers = rectangular && !elements.empty() && std::all_of(elements.begin(), elements.end(), [](const ir::AttrValue *e) {
    return e->isInt() || e->isFloat() || e->isBool();
  });
  if (!numbers) {
    error(loc(value), "R.const takes a number, True, False, or nested lists of them of one length per level "
                      "(a tensor such as [[1, 2], [3, 4]])");
    return nullptr;
  }
  // TVM's default types: numpy's, with int64 as int32 and float64 as float32.
  bool anyFloat = std::any_of(elements.begin(), elements.end(), [](const ir::AttrValue *e) { return e->isFloat(); });
  bool allBool = std::all_of(elements.begin(), elements.end(), [](const ir::AttrValue *e) { return e->isBool(); });
  ir::DataType dtype = allBool ? ir::DataType::boolTy() : anyFloat ? ir::DataType::float32() : ir::DataType::int32();
  if (dtypeExpr) {
    std::optional<std::string> text = stringOf(dtypeExpr);
    std::optional<ir::DataType> parsed = text ? ir::DataType::parse(*text) : std::nullopt;
    if (!parsed || parsed->isVoid() || parsed->lanes() != 1) {
      error(loc(dtypeExpr), "expected a scalar dtype string such as \"float32\"");
      return nullptr;
    }
    dtype = *parsed;
  }
  std::vector<ir::Expr> literals;
  for (const ir::AttrValue *element : elements)
    literals.push_back(element->isFloat() ? ir::floatImm(element->asFloat(), ir::DataType::floatTy(64))
                                          : ir::intImm(element->isBool() ? int64_t(element->asBool()) : element->asInt(),
                                                       ir::DataType::int64()));
  llvm::Expected<ir::ConstantDataRef> data = ir::ConstantData::fromLiterals(dtype, literals);
  if (!data) {
    // The message speaks of T.allocate_const, whose literal rules R.const shares.
    error(loc(value), "R.const of " + dtype.str() + ": " + llvm::toString(data.takeError()));
    return nullptr;
  }
  auto constant = std::make_shared<relax::Constant>();
  std::vector<ir::Expr> dims;
  for (int64_t extent : shape) dims.push_back(ir::intImm(extent, ir::DataType::int64()));
  constant->sinfo = relax::TensorStructInfo::known(std::move(dims), dtype, at);
  constant->data = std::make_shared<const relax::TensorData>(relax::TensorData{dtype, shape, (*data)->bytes()});
  // A scalar prints inline; a tensor as a metadata reference, as TVM prints it.
  if (shape.empty()) constant->scalar = (*data)->element(0);
  constant->loc = at;
  return constant;
}

std::optional<relax::Call> RelaxFunctionBuilder::call(Grammar::CallExprContext *expr) {
  std::optional<std::string> op = dottedName(expr->expr());
  if (std::optional<std::string> name = nameOf(expr->expr()))
    if (relax::VarPtr callee = findVar(*name); callee && callee->sinfo.kind == relax::StructInfo::Kind::Callable)
      return localFunctionCall(expr, callee);
  if (auto *attribute = dynamic_cast<Grammar::AttributeExprContext *>(expr->expr()); attribute && namesModule(attribute))
    if (relax::VarPtr callee = moduleFunction(attribute)) return localFunctionCall(expr, callee, /*moduleCallee=*/true);
  if (op == std::optional<std::string>("R.call_packed")) return packedCall(expr, relax::CallKind::CallPacked);
  if (op == std::optional<std::string>("R.call_pure_packed")) return packedCall(expr, relax::CallKind::CallPurePacked);
  relax::Call call;
  if (op == std::optional<std::string>("R.call_tir")) {
    call.kind = relax::CallKind::CallTIR;
  } else if (op == std::optional<std::string>("R.call_tir_inplace")) {
    call.kind = relax::CallKind::CallTIRInplace;
  } else if (op == std::optional<std::string>("R.call_dps_packed")) {
    call.kind = relax::CallKind::CallDPSPacked;
  } else if (op && llvm::StringRef(*op).starts_with("R.")) {
    if (relax::lookupBuiltin(op->substr(2))) return builtinCall(expr, op->substr(2));
    return operatorCall(expr, op->substr(2));
  } else {
    error(loc(expr), "expected R.call_tir, R.call_dps_packed or a high-level operator" +
                         (op ? ", got " + *op : std::string()));
    return std::nullopt;
  }
  Arguments args = argumentsOf(expr);
  bool inplace = call.kind == relax::CallKind::CallTIRInplace;
  bool tir = call.kind != relax::CallKind::CallDPSPacked;
  std::string opName = relax::callKindName(call.kind);
  for (const auto &[keyword, value] : args.keywords)
    if (keyword != "args" && keyword != "out_sinfo" && !(tir ? keyword == "gvar" : keyword == "func") &&
        !(inplace && keyword == "inplace_indices") && !(tir && keyword == "tir_vars")) {
      error(loc(value), std::string("unexpected argument '") + keyword + "' to " + opName);
      return std::nullopt;
    }
  // TVM's order: R.call_tir_inplace(gvar, args, inplace_indices, out_sinfo, tir_vars).
  size_t outSinfoIndex = inplace ? 3 : 2;
  size_t parameters = outSinfoIndex + (tir ? 2 : 1);
  if (args.positional.size() > parameters) {
    error(loc(args.positional[parameters]),
          opName + (inplace ? " takes (callee, args, inplace_indices, out_sinfo, tir_vars)"
                    : tir   ? " takes (callee, args, out_sinfo, tir_vars)"
                            : " takes (callee, args, out_sinfo)"));
    return std::nullopt;
  }
  Grammar::ExprContext *callee = args.get(0, tir ? "gvar" : "func");
  Grammar::ExprContext *callArgs = args.get(1, "args");
  Grammar::ExprContext *outSinfo = args.get(outSinfoIndex, "out_sinfo");
  Grammar::ExprContext *indices = inplace ? args.get(2, "inplace_indices") : nullptr;
  if (!callee || !callArgs || !outSinfo || (inplace && !indices)) {
    error(loc(expr), opName + " needs a callee, a tuple of arguments" + (inplace ? ", inplace_indices" : "") +
                         " and out_sinfo");
    return std::nullopt;
  }

  call.calleeLoc = loc(callee);
  if (tir) {
    auto *attribute = dynamic_cast<Grammar::AttributeExprContext *>(callee);
    std::optional<std::string> base = attribute ? nameOf(attribute->expr()) : std::nullopt;
    // `cls.func` after `cls = Module`, or the class's own name, `Module.func` (TVM's parser
    // takes both), unless a local variable hides it.
    bool namesModule = base && !moduleName_.empty() && *base == moduleName_ && !visible_.count(*base) &&
                       !dataflowScope_.count(*base);
    if (!base || !(moduleAliases_.count(*base) || namesModule)) {
      error(call.calleeLoc, "expected a prim_func of the module, e.g. " +
                                (moduleName_.empty() ? std::string("cls") : moduleName_) + ".func");
      return std::nullopt;
    }
    call.callee = attribute->NAME()->getText();
  } else {
    std::optional<std::string> name = stringOf(callee);
    if (!name || name->empty()) {
      error(call.calleeLoc, "expected the name of the function to call as a string");
      return std::nullopt;
    }
    call.callee = *name;
  }

  // `(x, w)`, `[x, w]`, `R.tuple(x, w)` (TVM prints no arguments as `R.tuple()`), or one.
  std::vector<Grammar::ExprContext *> items;
  auto *tupleCall = dynamic_cast<Grammar::CallExprContext *>(stripParens(callArgs));
  if (std::optional<std::vector<Grammar::ExprContext *>> tuple = tupleItems(callArgs)) items = *tuple;
  else if (tupleCall && dottedName(tupleCall->expr()) == std::optional<std::string>("R.tuple") &&
           argumentsOf(tupleCall).keywords.empty())
    items = argumentsOf(tupleCall).positional;
  else items.push_back(callArgs);
  for (Grammar::ExprContext *item : items) {
    std::optional<relax::Arg> arg = callArgument(item);
    if (!arg) return std::nullopt;
    call.args.push_back(*arg);
  }

  if (indices) {
    // One output, written into argument i (or, for -1, a fresh tensor).
    std::optional<std::vector<Grammar::ExprContext *>> items = tupleItems(indices);
    std::optional<int64_t> index = items && items->size() == 1 ? signedIntOf((*items)[0]) : std::nullopt;
    if (!index) {
      error(loc(indices), items && items->size() > 1 ? "calls with several outputs are not supported; give one index"
                                                     : "expected inplace_indices as a list of one integer, e.g. [0]");
      return std::nullopt;
    }
    if (*index < -1 || *index >= int64_t(call.args.size())) {
      error(loc(indices), "inplace index " + std::to_string(*index) + " is not an argument of the call (it has " +
                              std::to_string(call.args.size()) + ")");
      return std::nullopt;
    }
    call.inplaceIndices.push_back(*index);
  }
  // `out_sinfo=[a, b]`: several outputs, the call's value a tuple of them (one in a list is
  // a single output, as TVM's call_tir wrapper reads it).
  std::vector<Grammar::ExprContext *> outputs = tupleItems(outSinfo).value_or(std::vector{outSinfo});
  if (outputs.empty()) {
    error(loc(outSinfo), opName + " needs at least one output in out_sinfo");
    return std::nullopt;
  }
  if (outputs.size() > 1 && inplace) {
    error(loc(outSinfo), "R.call_tir_inplace with several outputs is not supported yet; give one R.Tensor");
    return std::nullopt;
  }
  for (Grammar::ExprContext *output : outputs) {
    std::optional<relax::TensorStructInfo> sinfo = tensorStructInfo(output, false);
    if (!sinfo) return std::nullopt;
    // R.call_dps_packed's output may leave its element type unknown (`R.Tensor((n,))`), as
    // TVM's may; a prim_func's output buffers have one.
    if (!sinfo->hasShape() || (tir && sinfo->dtype.isVoid())) {
      error(loc(output), tir ? "the output of a call needs a shape and an element type" : "the output of a call needs a shape");
      return std::nullopt;
    }
    if (outputs.size() > 1) call.tupleOutSinfo.push_back(*sinfo);
    else call.outSinfo = *sinfo;
  }
  if (outputs.size() > 1) call.outSinfo.loc = loc(outSinfo);
  // `tir_vars=R.shape([m])` (or a list or tuple of sizes, which TVM's wrapper makes a shape):
  // the values of the callee's trailing scalar parameters, checked against them with the
  // buffers (RelaxCallChecks.cpp).
  if (Grammar::ExprContext *tirVars = tir ? args.get(outSinfoIndex + 1, "tir_vars") : nullptr) {
    std::optional<std::vector<ir::Expr>> values = shapeValue(tirVars);
    if (!values) return std::nullopt;
    call.tirVars.shape = std::move(*values);
    call.tirVars.loc = loc(tirVars);
  }
  return call;
}

// `R.call_packed("name", x, y, sinfo_args=R.Tensor(...))`, `R.call_pure_packed(...)`: a runtime
// function called directly with any values, the struct info of its result given.
std::optional<relax::Call> RelaxFunctionBuilder::packedCall(Grammar::CallExprContext *expr, relax::CallKind kind) {
  relax::Call call;
  call.kind = kind;
  std::string opName = relax::callKindName(kind);
  Arguments args = argumentsOf(expr);
  std::optional<std::string> name = args.positional.empty() ? std::nullopt : stringOf(args.positional[0]);
  if (!name || name->empty()) {
    error(args.positional.empty() ? loc(expr) : loc(args.positional[0]),
          opName + " needs the name of the function to call, a string, as its first argument");
    return std::nullopt;
  }
  call.callee = *name;
  call.calleeLoc = loc(args.positional[0]);
  for (size_t i = 1; i < args.positional.size(); ++i) {
    std::optional<relax::Arg> arg = callArgument(args.positional[i]);
    if (!arg) return std::nullopt;
    call.args.push_back(*arg);
  }
  Grammar::ExprContext *sinfoArgs = nullptr;
  for (const auto &[keyword, value] : args.keywords) {
    if (keyword != "sinfo_args") {
      error(loc(value), "unexpected argument '" + keyword + "' to " + opName);
      return std::nullopt;
    }
    sinfoArgs = value;
  }
  // R.call_packed without sinfo_args gives an R.Object (TVM's call of an ExternFunc without
  // them); R.call_pure_packed needs them.
  if (!sinfoArgs && kind == relax::CallKind::CallPacked) return call;
  if (!sinfoArgs) {
    error(loc(expr), opName + " needs sinfo_args, the struct info of its result");
    return std::nullopt;
  }
  std::vector<Grammar::ExprContext *> items{sinfoArgs};
  if (std::optional<std::vector<Grammar::ExprContext *>> tuple = tupleItems(sinfoArgs)) items = *tuple;
  if (items.size() != 1) {
    error(loc(sinfoArgs), "sinfo_args takes one struct info, the result's");
    return std::nullopt;
  }
  std::optional<relax::StructInfo> sinfo = sinfoArgument(items[0]);
  if (!sinfo) return std::nullopt;
  call.sinfoArgs.push_back(std::move(*sinfo));
  return call;
}

// A struct info argument: an annotation, or `x.struct_info` (the variable's, which TVM's
// Python evaluates).
std::optional<relax::StructInfo> RelaxFunctionBuilder::sinfoArgument(Grammar::ExprContext *expr) {
  expr = stripParens(expr);
  if (auto *attribute = dynamic_cast<Grammar::AttributeExprContext *>(expr);
      attribute && attribute->NAME()->getText() == "struct_info")
    if (std::optional<std::string> name = nameOf(attribute->expr())) {
      relax::VarPtr var = lookupVar(*name, loc(attribute->expr()));
      if (!var) return std::nullopt;
      relax::StructInfo sinfo = var->sinfo;
      sinfo.loc = loc(expr);
      return sinfo;
    }
  return structInfo(expr, false);
}


// `inner(x, y)`: a call of a local function (or a parameter of R.Callable struct info), or of
// a Relax function of the module, `cls.f(x, y)` (`callee` then holds its signature).
std::optional<relax::Call> RelaxFunctionBuilder::localFunctionCall(Grammar::CallExprContext *expr, relax::VarPtr callee,
                                                                   bool moduleCallee) {
  relax::Call call;
  call.kind = relax::CallKind::Function;
  call.moduleCallee = moduleCallee;
  call.callee = callee->name;
  call.calleeLoc = loc(expr->expr());
  call.calleeVar = callee;
  Arguments args = argumentsOf(expr);
  if (!args.keywords.empty()) {
    error(loc(args.keywords[0].second), "a Relax function takes positional arguments only");
    return std::nullopt;
  }
  // A tuple is an argument as it is (TVM's normalizer keeps tuples inline).
  for (Grammar::ExprContext *item : args.positional) {
    std::optional<relax::Arg> arg = tupleField(item);
    if (!arg) return std::nullopt;
    call.args.push_back(*arg);
  }
  const relax::StructInfo &signature = callee->sinfo;
  if (!signature.opaque && signature.fields.size() != call.args.size()) {
    error(loc(expr), "'" + callee->name + "' takes " + std::to_string(signature.fields.size()) + " argument" +
                         (signature.fields.size() == 1 ? "" : "s") + ", the call passes " + std::to_string(call.args.size()));
    return std::nullopt;
  }
  for (size_t i = 0; !signature.opaque && i < call.args.size(); ++i) {
    // Sizes are the callee's own, so only kinds, element types and ranks are compared.
    relax::StructInfo expected = withoutSymbolicSizes(signature.fields[i]);
    if (std::optional<std::string> conflict = relax::structInfoConflict(expected, withoutSymbolicSizes(call.args[i].sinfo()))) {
      error(call.args[i].loc, "argument " + std::to_string(i) + " of '" + callee->name + "': " + *conflict);
      return std::nullopt;
    }
  }
  return call;
}

// The attribute parameters of conv2d and the pools after their tensors, in the order of TVM's
// Python wrappers (relax/op/nn/nn.py), which a positional argument follows.
static std::vector<std::string> windowParameters(const relax::OperatorInfo &info) {
  switch (info.family) {
  case relax::OperatorFamily::Conv2D:
    return {"strides", "padding", "dilation", "groups", "data_layout", "kernel_layout", "out_layout", "out_dtype"};
  case relax::OperatorFamily::Pool2D:
    return {"pool_size", "strides", "padding", "dilation", "ceil_mode", "count_include_pad", "layout", "out_layout"};
  case relax::OperatorFamily::AdaptivePool2D: return {"output_size", "layout", "out_layout"};
  default: return {};
  }
}

// `R.add(x, y)`, `R.matmul(x, w, out_dtype="float32")`, `R.permute_dims(x, axes=[1, 0])`: the
// tensors (positional or by TVM's parameter names), then the operator's attributes; the
// result's struct info is inferred here, so a shape or type mismatch is reported at the call.
std::optional<relax::Call> RelaxFunctionBuilder::operatorCall(Grammar::CallExprContext *expr, const std::string &name) {
  const relax::OperatorInfo *info = relax::lookupOperator(name);
  if (!info) {
    error(loc(expr->expr()), "high-level operator R." + name + " is not supported yet" + relax::unknownOperatorHint(name));
    return std::nullopt;
  }
  relax::Call call;
  call.kind = relax::CallKind::Operator;
  call.callee = name;
  call.calleeLoc = loc(expr->expr());
  if (info->family == relax::OperatorFamily::Full || info->family == relax::OperatorFamily::FullLike ||
      info->family == relax::OperatorFamily::Arange)
    return creationCall(expr, std::move(call));
  std::vector<std::string> params(info->tensorParams.begin(), info->tensorParams.end());
  if (info->family == relax::OperatorFamily::Matmul) params.push_back("out_dtype");
  if (info->family == relax::OperatorFamily::PermuteDims) params.push_back("axes");
  if (info->family == relax::OperatorFamily::Reshape || info->family == relax::OperatorFamily::BroadcastTo)
    params.push_back("shape");
  if (info->family == relax::OperatorFamily::Astype) params.push_back("dtype");
  if (info->family == relax::OperatorFamily::Statistical || info->family == relax::OperatorFamily::ArgReduce)
    params.insert(params.end(), {"axis", "keepdims"});
  if (info->family == relax::OperatorFamily::LayerNorm)
    params.insert(params.end(), {"axes", "epsilon", "center", "scale"});
  if (info->family == relax::OperatorFamily::BatchNorm)
    params.insert(params.end(), {"axis", "epsilon", "center", "scale", "momentum", "training"});
  if (info->family == relax::OperatorFamily::Tile) params.push_back("repeats");
  if (info->family == relax::OperatorFamily::Clip) params.insert(params.end(), {"min", "max"});
  if (info->family == relax::OperatorFamily::Concat || info->family == relax::OperatorFamily::ExpandDims ||
      info->family == relax::OperatorFamily::Squeeze || info->family == relax::OperatorFamily::Take ||
      info->family == relax::OperatorFamily::Softmax)
    params.push_back("axis");
  if (info->family == relax::OperatorFamily::StridedSlice)
    params.insert(params.end(), {"axes", "begin", "end", "strides", "assume_inbound"});
  if (info->family == relax::OperatorFamily::Split) params.insert(params.end(), {"indices_or_sections", "axis"});
  if (info->family == relax::OperatorFamily::Quantize) params.insert(params.end(), {"axis", "out_dtype"});
  std::vector<std::string> window = windowParameters(*info);
  params.insert(params.end(), window.begin(), window.end());
  if (!operatorArgumentsFit(expr, params, name)) return std::nullopt;
  Arguments args = argumentsOf(expr);
  for (size_t i = 0; i < info->tensorParams.size(); ++i) {
    Grammar::ExprContext *tensor = args.get(i, params[i]);
    if (!tensor) {
      error(loc(expr), "R." + name + " needs its argument '" + params[i] + "'");
      return std::nullopt;
    }
    // R.concat's tensors: a tuple written at the call, one argument per field.
    std::vector<Grammar::ExprContext *> tensors{tensor};
    if (info->family == relax::OperatorFamily::Concat) {
      std::optional<std::vector<Grammar::ExprContext *>> items = tupleItems(stripParens(tensor));
      if (!items) {
        error(loc(tensor), "R.concat takes its tensors as a tuple written at the call, such as (x, y)");
        return std::nullopt;
      }
      tensors = *items;
    }
    for (Grammar::ExprContext *item : tensors) {
      std::optional<relax::Arg> arg = argument(item);
      if (!arg) return std::nullopt;
      call.args.push_back(*arg);
    }
  }
  ir::SourceLoc axesLoc = loc(expr);
  size_t attribute = info->tensorParams.size();
  if (!window.empty() && !windowAttributes(expr, params, call)) return std::nullopt;
  if (info->family == relax::OperatorFamily::Clip) {
    relax::ClipAttrs bounds;
    for (auto [index, bound] : {std::pair{attribute, &bounds.min}, std::pair{attribute + 1, &bounds.max}}) {
      Grammar::ExprContext *value = args.get(index, params[index]);
      if (!value) {
        error(loc(expr), "R.clip needs its argument '" + params[index] + "'");
        return std::nullopt;
      }
      std::optional<std::variant<int64_t, double>> number = clipBound(value);
      if (!number) return std::nullopt;
      *bound = *number;
    }
    call.attrs = bounds;
  }
  if (info->family == relax::OperatorFamily::StridedSlice)
    return stridedSliceAttributes(expr, params, call) ? withInferredStructInfo(std::move(call), loc(expr), loc(expr))
                                                      : std::nullopt;
  if (info->family == relax::OperatorFamily::Split) {
    // A number of sections (positive) or the indices to split at, constant integers.
    Grammar::ExprContext *given = args.get(attribute, params[attribute]);
    if (!given) {
      error(loc(expr), "R.split needs its argument 'indices_or_sections'");
      return std::nullopt;
    }
    relax::SplitAttrs split;
    if (std::optional<std::vector<Grammar::ExprContext *>> items = tupleItems(stripParens(given))) {
      std::vector<int64_t> indices;
      for (Grammar::ExprContext *item : *items) {
        std::optional<int64_t> index = signedIntOf(item);
        if (!index) {
          error(loc(item), "R.split takes constant integers as indices");
          return std::nullopt;
        }
        indices.push_back(*index);
      }
      split.indicesOrSections = std::move(indices);
    } else if (std::optional<int64_t> sections = signedIntOf(given); sections && *sections > 0) {
      split.indicesOrSections = *sections;
    } else {
      error(loc(given), sections ? "R.split needs a positive number of sections, got " + std::to_string(*sections)
                                 : std::string("expected indices_or_sections as an integer or a list of integers"));
      return std::nullopt;
    }
    call.attrs = split;
    ++attribute;  // the axis follows
  }
  if (info->family == relax::OperatorFamily::Tile) {
    // An integer or a list of them, each 0 or more.
    Grammar::ExprContext *given = args.get(attribute, params[attribute]);
    if (!given) {
      error(loc(expr), "R.tile needs its argument 'repeats'");
      return std::nullopt;
    }
    std::optional<std::vector<Grammar::ExprContext *>> items = tupleItems(stripParens(given));
    relax::TileAttrs tile;
    for (Grammar::ExprContext *item : items ? *items : std::vector<Grammar::ExprContext *>{given}) {
      std::optional<int64_t> repeat = signedIntOf(item);
      if (!repeat || *repeat < 0) {
        error(loc(item), repeat ? "R.tile needs repeats of 0 or more, got " + std::to_string(*repeat)
                                : std::string("expected repeats as an integer or a list of integers"));
        return std::nullopt;
      }
      tile.repeats.push_back(*repeat);
    }
    call.attrs = tile;
  }
  // quantize's out_dtype follows its axis; TVM's defaults: int8, and float32 for dequantize.
  bool quantize = info->family == relax::OperatorFamily::Quantize;
  if (quantize) call.outDtype = name == "quantize" ? ir::DataType::intTy(8) : ir::DataType::float32();
  if (Grammar::ExprContext *outDtype = info->family == relax::OperatorFamily::Matmul || quantize
                                           ? args.get(attribute + quantize, "out_dtype")
                                           : nullptr) {
    std::optional<std::string> text = stringOf(outDtype);
    std::optional<ir::DataType> dtype = text && *text != "void" && !text->empty() ? ir::DataType::parse(*text) : std::nullopt;
    if (!text || (*text != "void" && !text->empty() && (!dtype || dtype->isVoid() || dtype->lanes() != 1))) {
      error(loc(outDtype), "expected a dtype string for out_dtype, such as \"float32\" or \"void\"");
      return std::nullopt;
    }
    if (dtype) call.outDtype = *dtype;
    if (std::string problem = quantize ? relax::quantizeOutDtypeProblem(name, call.outDtype) : ""; !problem.empty()) {
      error(loc(outDtype), problem);
      return std::nullopt;
    }
  }
  bool shaped = info->family == relax::OperatorFamily::Reshape || info->family == relax::OperatorFamily::BroadcastTo;
  if (shaped || info->family == relax::OperatorFamily::Astype) {
    Grammar::ExprContext *value = args.get(attribute, params[attribute]);
    if (!value) {
      error(loc(expr), "R." + name + " needs its argument '" + params[attribute] + "'");
      return std::nullopt;
    }
    axesLoc = loc(value);
    if (shaped) {
      std::optional<std::vector<ir::Expr>> shape = shapeValue(value);
      if (!shape) return std::nullopt;
      call.outSinfo.shape = std::move(*shape);
    } else {
      std::optional<std::string> text = stringOf(value);
      std::optional<ir::DataType> dtype = text ? ir::DataType::parse(*text) : std::nullopt;
      if (!dtype || dtype->isVoid() || dtype->lanes() != 1) {
        error(axesLoc, "expected a dtype string for R.astype, such as \"float16\"");
        return std::nullopt;
      }
      call.outDtype = *dtype;
    }
  }
  // permute_dims' axes, the reduced, added or squeezed axes (a list, one integer, or None),
  // concat's axis (one integer, 0 when absent, or None), take's (one integer or None, the
  // default), softmax's (one integer, -1 when absent).
  using F = relax::OperatorFamily;
  if (info->family == F::Concat || info->family == F::Split) call.axes = std::vector<int64_t>{0};
  if (info->family == F::Softmax) call.axes = std::vector<int64_t>{-1};
  if (quantize) call.axes = std::vector<int64_t>{-1};
  bool single = info->family == F::Concat || info->family == F::Take || info->family == F::Softmax ||
                info->family == F::ArgReduce || info->family == F::Split || info->family == F::BatchNorm || quantize,
       list = !single;
  const char *axesName = info->family == F::PermuteDims || info->family == F::LayerNorm ? "axes" : "axis";
  Grammar::ExprContext *axes = info->family == F::PermuteDims || info->family == F::Statistical || single ||
                                       info->family == F::ExpandDims || info->family == F::Squeeze ||
                                       info->family == F::LayerNorm || info->family == F::BatchNorm
                                   ? args.get(attribute, axesName)
                                   : nullptr;
  // Axes that must be given (layer_norm, expand_dims), or that may be left out but not None.
  const char *required = info->family == F::LayerNorm    ? "R.nn.layer_norm needs its argument 'axes' (a list of integers)"
                         : info->family == F::ExpandDims ? "R.expand_dims needs its argument 'axis' (an integer or a list of them)"
                         : info->family == F::BatchNorm  ? "R.nn.batch_norm needs its argument 'axis' (an integer)"
                                                         : nullptr;
  const char *notNone = info->family == F::Softmax ? "expected the axis as an integer"
                        : info->family == F::Split ? "R.split needs an integer axis, not None"
                                                   : nullptr;
  if ((required && (!axes || isNone(axes))) || (notNone && axes && isNone(axes))) {
    error(axes ? loc(axes) : loc(expr), required ? required : notNone);
    return std::nullopt;
  }
  if ((info->family == F::LayerNorm || info->family == F::BatchNorm) && !normAttributes(expr, params, call))
    return std::nullopt;
  if (axes) {
    axesLoc = loc(axes);
    call.axes.reset();
    if (!isNone(axes)) {
      std::optional<std::vector<Grammar::ExprContext *>> items = list ? tupleItems(axes) : std::nullopt;
      if (!items && info->family != F::PermuteDims) items = std::vector<Grammar::ExprContext *>{axes};
      std::vector<int64_t> values;
      for (Grammar::ExprContext *item : items ? *items : std::vector<Grammar::ExprContext *>{}) {
        std::optional<int64_t> value = signedIntOf(item);
        if (!value) break;
        values.push_back(*value);
      }
      if (!items || values.size() != items->size()) {
        bool noneAllowed = info->family != F::Softmax && info->family != F::BatchNorm;
        error(axesLoc, single ? std::string("expected the axis as an integer") + (noneAllowed ? " or None" : "")
                              : std::string("expected the ") + axesName + " as a list of integers, e.g. [1, 0], or None");
        return std::nullopt;
      }
      call.axes = std::move(values);
    }
  }
  bool reduces = info->family == F::Statistical || info->family == F::ArgReduce;
  if (Grammar::ExprContext *keepdims = reduces ? args.get(attribute + 1, "keepdims") : nullptr) {
    std::optional<ir::AttrValue> flag = attrLiteral(keepdims);
    if (!flag) return std::nullopt;
    if (!flag->isBool()) {
      error(loc(keepdims), "expected True or False for keepdims");
      return std::nullopt;
    }
    call.keepdims = flag->asBool();
  }
  return withInferredStructInfo(std::move(call), loc(expr), axesLoc);
}

// `R.memory.alloc_storage(R.shape([32]), 0, "global", "float32")`: a memory or VM builtin, its
// arguments by position or TVM's parameter names, each converted to the form TVM's Python
// wrapper gives it (a number to R.prim_value, a string to R.str or R.dtype, a list to R.shape).
std::optional<relax::Call> RelaxFunctionBuilder::builtinCall(Grammar::CallExprContext *expr, const std::string &name) {
  const relax::BuiltinInfo &info = *relax::lookupBuiltin(name);
  std::vector<std::string> params;
  for (const relax::BuiltinParam &param : info.params) params.push_back(param.name.str());
  relax::Call call;
  call.kind = relax::CallKind::Builtin;
  call.callee = name;
  call.calleeLoc = loc(expr->expr());
  Arguments args = argumentsOf(expr);
  // R.call_builtin_with_ctx(func, args, sinfo_args=...): the result's struct info, one.
  if (info.sinfoArgs)
    for (auto it = args.keywords.begin(); it != args.keywords.end(); ++it) {
      if (it->first != "sinfo_args") continue;
      std::vector<Grammar::ExprContext *> items = tupleItems(it->second).value_or(std::vector{it->second});
      if (items.size() != 1) {
        error(loc(it->second), "sinfo_args takes one struct info, the result's");
        return std::nullopt;
      }
      std::optional<relax::StructInfo> sinfo = sinfoArgument(items[0]);
      if (!sinfo) return std::nullopt;
      call.sinfoArgs.push_back(std::move(*sinfo));
      args.keywords.erase(it);
      break;
    }
  // R.print(*values, format=...) and R.assert_op(condition, format_args, format=...): the
  // values are every positional argument but the condition (format_args also a list of them,
  // or by keyword); the other parameters by keyword.
  std::vector<Grammar::ExprContext *> values;
  if (info.variadic) {
    size_t fixed = name == "assert_op" ? 1 : 0;
    for (size_t i = fixed; i < args.positional.size(); ++i) values.push_back(args.positional[i]);
    args.positional.resize(std::min(args.positional.size(), fixed));
    for (auto it = args.keywords.begin(); it != args.keywords.end();)
      if (it->first == "format_args" && name == "assert_op") {
        values.push_back(it->second);
        it = args.keywords.erase(it);
      } else {
        ++it;
      }
    if (values.size() == 1)
      if (std::optional<std::vector<Grammar::ExprContext *>> items = tupleItems(values[0])) values = *items;
    for (const auto &[keyword, value] : args.keywords)
      if (std::find(params.begin(), params.end(), keyword) == params.end()) {
        error(loc(value), "unexpected argument '" + keyword + "' to R." + name);
        return std::nullopt;
      }
  } else {
    // sinfo_args, read above, is keyword-only.
    std::vector<std::string> accepted = params;
    if (info.sinfoArgs) accepted.push_back("sinfo_args");
    if (!operatorArgumentsFit(expr, accepted, name)) return std::nullopt;
    if (args.positional.size() > params.size()) {
      error(loc(args.positional[params.size()]), "R." + name + " takes " + std::to_string(params.size()) +
                                                     " arguments and sinfo_args by keyword");
      return std::nullopt;
    }
  }
  using K = relax::BuiltinParam::Kind;
  for (size_t i = 0; i < info.params.size(); ++i) {
    const relax::BuiltinParam &param = info.params[i];
    Grammar::ExprContext *value = args.get(i, params[i]);
    relax::Arg arg;
    arg.loc = value ? loc(value) : loc(expr);
    if (!value || isNone(value)) {
      if (param.required) {
        error(loc(expr), "R." + name + " needs its argument '" + params[i] + "'");
        return std::nullopt;
      }
      if (param.defaultValue) arg.text = *param.defaultValue;
      call.args.push_back(arg);
      continue;
    }
    // The wrapped forms TVM prints: R.str("global"), R.dtype("float32").
    Grammar::ExprContext *inner = stripParens(value);
    auto *wrapped = dynamic_cast<Grammar::CallExprContext *>(inner);
    std::optional<std::string> wrapper = wrapped ? dottedName(wrapped->expr()) : std::nullopt;
    if ((param.kind == K::String && wrapper == std::optional<std::string>("R.str")) ||
        (param.kind == K::DType && wrapper == std::optional<std::string>("R.dtype"))) {
      Arguments wrappedArgs = argumentsOf(wrapped);
      inner = wrappedArgs.positional.size() == 1 && wrappedArgs.keywords.empty() ? wrappedArgs.positional[0] : nullptr;
    }
    std::optional<std::string> text = inner ? stringOf(inner) : std::nullopt;
    switch (param.kind) {
    case K::Value: {
      std::optional<relax::Arg> parsed = argument(value);
      if (!parsed) return std::nullopt;
      arg = *parsed;
      break;
    }
    case K::Shape: {
      std::optional<std::vector<ir::Expr>> shape = shapeValue(value);
      if (!shape) return std::nullopt;
      arg.shape = std::move(*shape);
      break;
    }
    case K::Prim:
      if (wrapper == std::optional<std::string>("R.prim_value")) {
        std::optional<relax::Arg> parsed = argument(value);
        if (!parsed) return std::nullopt;
        arg.prim = parsed->prim;
      } else {
        arg.prim = primValue(value);
      }
      if (!arg.prim) return std::nullopt;
      break;
    case K::String:
      if (!text) {
        error(arg.loc, "expected a string for '" + params[i] + "' of R." + name + ", such as \"global\"");
        return std::nullopt;
      }
      arg.text = *text;
      break;
    case K::DType: {
      std::optional<ir::DataType> dtype = text ? ir::DataType::parse(*text) : std::nullopt;
      if (!dtype || dtype->isVoid()) {
        error(arg.loc, "expected a data type for '" + params[i] + "' of R." + name + ", such as \"float32\"");
        return std::nullopt;
      }
      arg.dtypeValue = *dtype;
      break;
    }
    case K::VDevice: {
      std::optional<std::string> vdevice = virtualDevice(value);
      if (!vdevice) return std::nullopt;
      arg.text = *vdevice;
      break;
    }
    case K::Extern:
      if (!text || text->empty()) {
        error(arg.loc, "expected the name of a runtime function for '" + params[i] + "' of R." + name +
                           ", such as \"vm.builtin.alloc_shape_heap\"");
        return std::nullopt;
      }
      arg.text = *text;
      break;
    case K::Callee: {
      // `cls.f` or `Module.f`; that f is a prim_func is checked once the module is read.
      auto *attribute = dynamic_cast<Grammar::AttributeExprContext *>(inner);
      std::optional<std::string> base = attribute ? nameOf(attribute->expr()) : std::nullopt;
      if (!base || !(moduleAliases_.count(*base) || (!moduleName_.empty() && *base == moduleName_)) || findVar(*base)) {
        error(arg.loc, "expected a prim_func of the module for '" + params[i] + "' of R." + name + ", e.g. " +
                           (moduleName_.empty() ? std::string("cls") : moduleName_) + ".func");
        return std::nullopt;
      }
      arg.text = attribute->NAME()->getText();
      break;
    }
    case K::Tuple: {
      // `(x, y)`, `[x, y]`: a tuple of values, a number among them an R.prim_value (as TVM's
      // wrapper converts it).
      std::optional<std::vector<Grammar::ExprContext *>> items = tupleItems(inner);
      if (!items) {
        error(arg.loc, "expected a tuple of values for '" + params[i] + "' of R." + name + ", such as (x, R.prim_value(0))");
        return std::nullopt;
      }
      std::vector<relax::Arg> fields;
      for (Grammar::ExprContext *item : *items) {
        std::optional<relax::Arg> field;
        if (std::optional<int64_t> number = signedIntOf(item)) {
          field.emplace();
          field->prim = ir::intImm(*number, ir::DataType::int64(), loc(item));
          field->loc = loc(item);
        } else {
          field = argument(item);
        }
        if (!field) return std::nullopt;
        fields.push_back(std::move(*field));
      }
      arg.fields = std::make_shared<const std::vector<relax::Arg>>(std::move(fields));
      break;
    }
    }
    call.args.push_back(arg);
  }
  // Optional arguments left out at the end are not kept (nor printed).
  while (!call.args.empty() && call.args.back().isNone()) call.args.pop_back();
  for (Grammar::ExprContext *value : values) {
    std::optional<relax::Arg> arg = argument(value);
    if (!arg) return std::nullopt;
    call.args.push_back(*arg);
  }
  relax::RelaxDiagnostic diagnostic;
  std::optional<relax::StructInfo> result = relax::inferBuiltinStructInfo(call, loc(expr), diagnostic);
  if (!result) {
    error(diagnostic.loc, diagnostic.message);
    return std::nullopt;
  }
  call.sinfoArgs = {*result};
  return call;
}

// A bound of R.clip: a number, or a PrimValue of one as TVM prints it (`R.prim_value(0)`,
// `R.prim_value(T.float32(0.5))`).
std::optional<std::variant<int64_t, double>> RelaxFunctionBuilder::clipBound(Grammar::ExprContext *expr) {
  Grammar::ExprContext *number = stripParens(expr);
  for (const char *wrapper : {"R.prim_value", "T.int64", "T.int32", "T.float32", "T.float64"}) {
    auto *callExpr = dynamic_cast<Grammar::CallExprContext *>(number);
    if (!callExpr || dottedName(callExpr->expr()) != std::optional<std::string>(wrapper)) continue;
    Arguments args = argumentsOf(callExpr);
    if (args.positional.size() != 1 || !args.keywords.empty()) break;
    number = stripParens(args.positional[0]);
  }
  std::optional<ir::AttrValue> literal = attrLiteral(number);
  if (!literal) return std::nullopt;
  if (literal->isInt()) return literal->asInt();
  if (literal->isFloat()) return literal->asFloat();
  error(loc(expr), "expected a number for the bound of R.clip, such as 0, 6.0 or R.prim_value(127)");
  return std::nullopt;
}

// No more positional arguments than the operator has parameters (`params`, in TVM's order), no
// keyword that names none of them.
bool RelaxFunctionBuilder::operatorArgumentsFit(Grammar::CallExprContext *expr, const std::vector<std::string> &params,
                                                const std::string &name) {
  Arguments args = argumentsOf(expr);
  if (args.positional.size() > params.size()) {
    error(loc(args.positional[params.size()]), "R." + name + " takes " + std::to_string(params.size()) +
                                                   " arguments at most");
    return false;
  }
  for (const auto &[keyword, value] : args.keywords)
    if (std::find(params.begin(), params.end(), keyword) == params.end()) {
      error(loc(value), "unexpected argument '" + keyword + "' to R." + name);
      return false;
    }
  return true;
}

// The creation operators, with the parameters of TVM's Python wrappers (relax/op/create.py):
// R.zeros/R.ones(shape, dtype), R.full(shape, fill_value, dtype=None), R.zeros_like/R.ones_like(x,
// dtype=None), R.full_like(x, fill_value, dtype=None), R.arange(start, end=None, step=1,
// dtype=None). The shape becomes a shape value argument (R.shape([2, 3])) and arange's bounds
// R.prim_value arguments (`R.arange(5)` is 0 to 5), as the wrappers make them; the dtype is
// `outDtype` (void when None: the fill value's or x's; arange's int64).
std::optional<relax::Call> RelaxFunctionBuilder::creationCall(Grammar::CallExprContext *expr, relax::Call call) {
  using F = relax::OperatorFamily;
  F family = relax::lookupOperator(call.callee)->family;
  std::vector<std::string> params = family == F::Full       ? std::vector<std::string>{"shape"}
                                    : family == F::FullLike ? std::vector<std::string>{"x"}
                                                            : std::vector<std::string>{"start", "end", "step"};
  if (call.callee == "full" || call.callee == "full_like") params.push_back("fill_value");
  params.push_back("dtype");
  if (!operatorArgumentsFit(expr, params, call.callee)) return std::nullopt;
  Arguments args = argumentsOf(expr);
  for (size_t i = 0; i + 1 < params.size(); ++i) {
    Grammar::ExprContext *value = args.get(i, params[i]);
    if (family == F::Arange && i > 0 && (!value || isNone(value))) {
      // end=None: the range is [0, start); step 1.
      relax::Arg bound;
      bound.loc = call.args.front().loc;
      bound.prim = ir::intImm(i == 2 ? 1 : 0, ir::DataType::int64());
      if (i == 1) {
        bound.prim = call.args.front().prim;
        call.args.front().prim = ir::intImm(0, ir::DataType::int64());
      }
      call.args.push_back(bound);
      continue;
    }
    if (!value) {
      error(loc(expr), "R." + call.callee + " needs its argument '" + params[i] + "'");
      return std::nullopt;
    }
    relax::Arg arg;
    arg.loc = loc(value);
    if (params[i] == "shape") {
      arg.shape = shapeValue(value);
      if (!arg.shape) return std::nullopt;
    } else if (family == F::Arange) {
      // A bound is an R.prim_value or the value itself (an integer or an expression of sizes).
      auto *prim = dynamic_cast<Grammar::CallExprContext *>(stripParens(value));
      if (prim && dottedName(prim->expr()) == std::optional<std::string>("R.prim_value")) {
        std::optional<relax::Arg> written = argument(value);
        if (!written) return std::nullopt;
        arg = *written;
      } else {
        arg.prim = primValue(value);
        if (!arg.prim) return std::nullopt;
      }
    } else {
      std::optional<relax::Arg> tensor = argument(value);
      if (!tensor) return std::nullopt;
      arg = *tensor;
    }
    call.args.push_back(arg);
  }
  ir::SourceLoc dtypeLoc = loc(expr);
  if (family == F::Arange) call.outDtype = ir::DataType::int64();
  if (Grammar::ExprContext *dtype = args.get(params.size() - 1, "dtype"); dtype && !isNone(dtype)) {
    dtypeLoc = loc(dtype);
    std::optional<std::string> text = stringOf(dtype);
    bool isVoid = text && (text->empty() || *text == "void") && family != F::Arange;
    std::optional<ir::DataType> parsed = text && !isVoid ? ir::DataType::parse(*text) : std::nullopt;
    if (!isVoid && (!parsed || parsed->isVoid() || parsed->lanes() != 1)) {
      error(dtypeLoc, "expected a dtype string for R." + call.callee + ", such as \"float32\"");
      return std::nullopt;
    }
    call.outDtype = parsed ? *parsed : ir::DataType::voidTy();
  }
  return withInferredStructInfo(std::move(call), loc(expr), dtypeLoc);
}

// conv2d's and the pools' attributes with TVM's defaults and normalisation: one integer (or a
// tuple of one) for both spatial dimensions; padding of 1 value (all sides), 2 (top and bottom,
// left and right) or 4 (top, left, bottom, right); the output layout the input's when None;
// out_dtype None or "void": the data's. Layouts vtac cannot handle are errors at the argument.
bool RelaxFunctionBuilder::windowAttributes(Grammar::CallExprContext *expr, const std::vector<std::string> &params,
                                            relax::Call &call) {
  Arguments args = argumentsOf(expr);
  auto value = [&](const std::string &name) {
    size_t index = size_t(std::find(params.begin(), params.end(), name) - params.begin());
    return args.get(index, name);
  };
  auto ints = [&](const std::string &name, std::vector<int64_t> &out) {
    Grammar::ExprContext *given = value(name);
    if (!given || (name == "output_size" && isNone(given))) return true;
    std::vector<Grammar::ExprContext *> items = tupleItems(given).value_or(std::vector<Grammar::ExprContext *>{given});
    std::vector<int64_t> values;
    for (Grammar::ExprContext *item : items) {
      std::optional<int64_t> number = signedIntOf(item);
      if (!number) {
        error(loc(item), "expected " + name + " as integers: one, or a tuple such as (1, 1)");
        return false;
      }
      values.push_back(*number);
    }
    bool padding = name == "padding";
    if (values.size() == 1) values.resize(padding ? 4 : 2, values[0]);
    else if (padding && values.size() == 2) values = {values[0], values[1], values[0], values[1]};
    if (values.size() != (padding ? 4u : 2u)) {
      error(loc(given), padding ? "expected 1, 2 or 4 values for padding (top, left, bottom, right), got " +
                                      std::to_string(items.size())
                                : "expected 1 or 2 values for " + name + " (height, width), got " +
                                      std::to_string(items.size()));
      return false;
    }
    for (int64_t number : values)
      if (number < (padding ? 0 : 1)) {
        error(loc(given), name + (padding ? " needs sizes of 0 or more" : " needs sizes of 1 or more") + ", got " +
                              std::to_string(number));
        return false;
      }
    out = std::move(values);
    return true;
  };
  auto flag = [&](const std::string &name, bool &out) {
    Grammar::ExprContext *given = value(name);
    if (!given) return true;
    std::optional<ir::AttrValue> literal = attrLiteral(given);
    if (!literal) return false;
    if (!literal->isBool()) {
      error(loc(given), "expected True or False for " + name);
      return false;
    }
    out = literal->asBool();
    return true;
  };
  // A layout string; out_layout None (or absent) is `input`.
  auto layout = [&](const std::string &name, std::string &out, const std::string *input) {
    Grammar::ExprContext *given = value(name);
    if (input && (!given || isNone(given))) {
      out = *input;
      return true;
    }
    if (!given) return true;
    std::optional<std::string> text = stringOf(given);
    if (!text || !relax::layoutAxes(*text)) {
      error(loc(given), "expected a layout string for " + name + ", such as \"NCHW\"");
      return false;
    }
    out = *text;
    return true;
  };
  auto supported = [&](const std::vector<std::string> &names) {
    for (const std::string &name : names)
      if (std::string problem = relax::layoutProblem(call, name); !problem.empty()) {
        Grammar::ExprContext *given = value(name);
        error(given ? loc(given) : call.calleeLoc, problem);
        return false;
      }
    return true;
  };
  const relax::OperatorInfo &info = *relax::lookupOperator(call.callee);
  if (info.family == relax::OperatorFamily::Conv2D) {
    relax::Conv2DAttrs attrs;
    if (!ints("strides", attrs.strides) || !ints("padding", attrs.padding) || !ints("dilation", attrs.dilation) ||
        !layout("data_layout", attrs.dataLayout, nullptr) || !layout("kernel_layout", attrs.kernelLayout, nullptr) ||
        !layout("out_layout", attrs.outLayout, &attrs.dataLayout))
      return false;
    if (Grammar::ExprContext *groups = value("groups")) {
      std::optional<int64_t> count = signedIntOf(groups);
      if (!count || *count < 1) {
        error(loc(groups), "expected groups as an integer of 1 or more");
        return false;
      }
      attrs.groups = *count;
    }
    if (Grammar::ExprContext *outDtype = value("out_dtype"); outDtype && !isNone(outDtype)) {
      std::optional<std::string> text = stringOf(outDtype);
      bool isVoid = text && (text->empty() || *text == "void");
      std::optional<ir::DataType> dtype = text && !isVoid ? ir::DataType::parse(*text) : std::nullopt;
      if (!isVoid && (!dtype || dtype->isVoid() || dtype->lanes() != 1)) {
        error(loc(outDtype), "expected a dtype string for out_dtype, such as \"int32\" or \"void\"");
        return false;
      }
      if (dtype) attrs.outDtype = *dtype;
    }
    call.attrs = attrs;
    return supported({"data_layout", "kernel_layout", "out_layout"});
  }
  if (info.family == relax::OperatorFamily::Pool2D) {
    relax::Pool2DAttrs attrs;
    if (!ints("pool_size", attrs.poolSize) || !ints("strides", attrs.strides) || !ints("padding", attrs.padding) ||
        !ints("dilation", attrs.dilation) || !flag("ceil_mode", attrs.ceilMode) ||
        !flag("count_include_pad", attrs.countIncludePad) || !layout("layout", attrs.layout, nullptr) ||
        !layout("out_layout", attrs.outLayout, &attrs.layout))
      return false;
    call.attrs = attrs;
    return supported({"layout", "out_layout"});
  }
  relax::AdaptivePool2DAttrs attrs;
  std::vector<int64_t> outputSize;
  if (!ints("output_size", outputSize) || !layout("layout", attrs.layout, nullptr) ||
      !layout("out_layout", attrs.outLayout, &attrs.layout))
    return false;
  if (!outputSize.empty()) attrs.outputSize = outputSize;
  call.attrs = attrs;
  return supported({"layout", "out_layout"});
}

// R.strided_slice's axes, begin, end (lists of constant integers, as many as axes), strides (1
// each when absent or None) and assume_inbound; TVM's wrapper turns the lists into tuples of
// PrimValues, vtac keeps them constant.
bool RelaxFunctionBuilder::stridedSliceAttributes(Grammar::CallExprContext *expr, const std::vector<std::string> &params,
                                                  relax::Call &call) {
  Arguments args = argumentsOf(expr);
  auto value = [&](const std::string &name) {
    return args.get(size_t(std::find(params.begin(), params.end(), name) - params.begin()), name);
  };
  relax::StridedSliceAttrs attrs;
  std::vector<int64_t> axes;
  auto ints = [&](const std::string &name, std::vector<int64_t> &out) {
    Grammar::ExprContext *given = value(name);
    if (!given) {
      error(loc(expr), "R.strided_slice needs its argument '" + name + "'");
      return false;
    }
    std::optional<std::vector<Grammar::ExprContext *>> items = tupleItems(given);
    if (!items) {
      error(loc(given), "expected " + name + " as a list of integers, e.g. [0, 2]");
      return false;
    }
    for (Grammar::ExprContext *item : *items) {
      std::optional<int64_t> number = signedIntOf(item);
      if (!number) {
        error(loc(item), "R.strided_slice takes constant integers as " + name +
                             (name == "axes" ? std::string() : " (symbolic bounds are not supported yet)"));
        return false;
      }
      out.push_back(*number);
    }
    if (name != "axes" && out.size() != axes.size()) {
      error(loc(given), "R.strided_slice needs as many values in " + name + " as axes (" +
                            std::to_string(axes.size()) + "), got " + std::to_string(out.size()));
      return false;
    }
    return true;
  };
  if (!ints("axes", axes) || !ints("begin", attrs.begin) || !ints("end", attrs.end)) return false;
  if (Grammar::ExprContext *strides = value("strides"); strides && !isNone(strides)) {
    if (!ints("strides", attrs.strides)) return false;
    attrs.stridesGiven = true;
    if (std::count(attrs.strides.begin(), attrs.strides.end(), 0)) {
      error(loc(strides), "R.strided_slice needs strides other than 0");
      return false;
    }
  } else {
    attrs.strides.assign(axes.size(), 1);
  }
  if (Grammar::ExprContext *inbound = value("assume_inbound")) {
    std::optional<ir::AttrValue> flag = attrLiteral(inbound);
    if (!flag) return false;
    if (!flag->isBool()) {
      error(loc(inbound), "expected True or False for assume_inbound");
      return false;
    }
    attrs.assumeInbound = flag->asBool();
  }
  call.axes = std::move(axes);
  call.attrs = attrs;
  return true;
}

// The attributes of R.nn.layer_norm and R.nn.batch_norm besides the axes: epsilon (a number,
// 1e-5 when absent), center and scale (True or False, True when absent); batch_norm's momentum
// (0.1) and training (True) too.
bool RelaxFunctionBuilder::normAttributes(Grammar::CallExprContext *expr, const std::vector<std::string> &params,
                                          relax::Call &call) {
  Arguments args = argumentsOf(expr);
  auto value = [&](const std::string &name) {
    return args.get(size_t(std::find(params.begin(), params.end(), name) - params.begin()), name);
  };
  bool batch = call.callee == "nn.batch_norm";
  relax::BatchNormAttrs attrs;  // layer_norm's are its first ones
  // Each number with an example of it for the message.
  std::vector<std::tuple<const char *, double *, const char *>> numbers{{"epsilon", &attrs.epsilon, "1e-05"}};
  std::vector<std::pair<const char *, bool *>> flags{{"center", &attrs.center}, {"scale", &attrs.scale}};
  if (batch) {
    numbers.emplace_back("momentum", &attrs.momentum, "0.1");
    flags.emplace_back("training", &attrs.training);
  }
  for (auto [name, number, example] : numbers) {
    Grammar::ExprContext *given = value(name);
    if (!given) continue;
    std::optional<ir::AttrValue> literal = attrLiteral(given);
    if (!literal) return false;
    if (!literal->isFloat() && !literal->isInt()) {
      error(loc(given), std::string("expected a number for ") + name + ", such as " + example);
      return false;
    }
    *number = literal->isFloat() ? literal->asFloat() : double(literal->asInt());
  }
  for (auto [name, flag] : flags) {
    Grammar::ExprContext *given = value(name);
    if (!given) continue;
    std::optional<ir::AttrValue> literal = attrLiteral(given);
    if (!literal) return false;
    if (!literal->isBool()) {
      error(loc(given), std::string("expected True or False for ") + name);
      return false;
    }
    *flag = literal->asBool();
  }
  if (batch) call.attrs = attrs;
  else call.attrs = relax::LayerNormAttrs{attrs.epsilon, attrs.center, attrs.scale};
  return true;
}

// A shape written at the call: `(8, 3)`, `[a // 2, b * 2]` or `R.shape([8, 3])`, sizes -1
// included (R.reshape infers it). A variable holding a shape value is not read yet.
std::optional<std::vector<ir::Expr>> RelaxFunctionBuilder::shapeValue(Grammar::ExprContext *expr) {
  Grammar::ExprContext *list = stripParens(expr);
  if (auto *callExpr = dynamic_cast<Grammar::CallExprContext *>(list);
      callExpr && isShapeCall(dottedName(callExpr->expr()))) {
    Arguments args = argumentsOf(callExpr);
    list = args.positional.size() == 1 && args.keywords.empty() ? args.positional[0] : nullptr;
  }
  std::optional<std::vector<Grammar::ExprContext *>> items = list ? tupleItems(list) : std::nullopt;
  if (!items) {
    error(loc(expr), "expected a shape written at the call: a tuple of sizes such as (8, 3), or R.shape([8, 3])");
    return std::nullopt;
  }
  std::vector<ir::Expr> shape;
  for (Grammar::ExprContext *item : *items) {
    if (std::optional<int64_t> value = signedIntOf(item)) {
      shape.push_back(ir::intImm(*value, ir::DataType::int64()));
      continue;
    }
    ir::Expr size = dim(item, false);
    if (!size) return std::nullopt;
    shape.push_back(size);
  }
  return shape;
}

// `"llvm"`, `"cuda:1"` (the second virtual device of target kind cuda), `"vdevice:3"` (the fourth
// of the module's list, TVM's other form): the module's virtual device, as "kind:index".
std::optional<std::string> RelaxFunctionBuilder::virtualDevice(Grammar::ExprContext *expr) {
  std::optional<std::string> text = stringOf(expr);
  std::string kind = text ? *text : "";
  std::optional<int64_t> index = 0;
  if (size_t colon = kind.find(':'); colon != std::string::npos) {
    std::string digits = kind.substr(colon + 1);
    bool number = !digits.empty() && digits.size() < 10 && std::all_of(digits.begin(), digits.end(), [](char c) {
      return c >= '0' && c <= '9';
    });
    index = number ? std::optional<int64_t>(std::stoll(digits)) : std::nullopt;
    kind.resize(colon);
  }
  if (!text || kind.empty() || !index || *index < 0) {
    error(loc(expr), "expected a virtual device such as \"llvm\" or \"cuda:1\"");
    return std::nullopt;
  }
  static const std::vector<ir::VDevice> none;
  const std::vector<ir::VDevice> &devices = vdevices_ ? *vdevices_ : none;
  // The position among the devices of its kind of device `at` of the list.
  auto named = [&](size_t at) {
    int64_t before = std::count_if(devices.begin(), devices.begin() + at,
                                   [&](const ir::VDevice &d) { return d.kind() == devices[at].kind(); });
    return devices[at].kind() + ":" + std::to_string(before);
  };
  if (kind == "vdevice") {
    if (size_t(*index) < devices.size()) return named(size_t(*index));
  } else {
    int64_t seen = 0;
    for (size_t at = 0; at < devices.size(); ++at)
      if (devices[at].kind() == kind && seen++ == *index) return named(at);
  }
  error(loc(expr), "no virtual device \"" + *text + "\" in the module's I.module_global_infos (" +
                       (devices.empty() ? std::string("it declares none") : "it declares " + std::to_string(devices.size())) +
                       ")");
  return std::nullopt;
}

bool readModuleGlobalInfos(const SourceFile &file, DiagnosticEngine &diagnostics, Grammar::CallExprContext *call,
                           std::vector<ir::VDevice> &vdevices) {
  auto loc = [&](const antlr4::ParserRuleContext *context) { return locationOf(file, context); };
  auto error = [&](const antlr4::ParserRuleContext *at, const std::string &message) {
    diagnostics.error(loc(at), message);
    return false;
  };
  Arguments args = argumentsOf(call);
  auto *dict = args.positional.size() == 1 && args.keywords.empty()
                   ? dynamic_cast<Grammar::DictAtomContext *>(atomOf(args.positional[0]))
                   : nullptr;
  if (!dict) return error(call, "I.module_global_infos takes one dictionary, {\"vdevice\": [I.vdevice(...), ...]}");
  for (Grammar::Dict_entryContext *entry : dict->dict_entry()) {
    std::optional<std::string> key = stringOf(entry->expr(0));
    if (key == std::optional<std::string>("mesh"))
      return error(entry->expr(0), "device meshes (R.dist) are not supported yet");
    if (key != std::optional<std::string>("vdevice"))
      return error(entry->expr(0), "unknown global info; vtac reads \"vdevice\", a list of I.vdevice(...)");
    std::optional<std::vector<Grammar::ExprContext *>> items = tupleItems(entry->expr(1));
    if (!items) return error(entry->expr(1), "expected a list of I.vdevice(target, vdevice_id, memory_scope)");
    for (Grammar::ExprContext *item : *items) {
      auto *device = dynamic_cast<Grammar::CallExprContext *>(stripParens(item));
      if (!device || dottedName(device->expr()) != std::optional<std::string>("I.vdevice"))
        return error(item, "expected I.vdevice(target, vdevice_id, memory_scope)");
      Arguments deviceArgs = argumentsOf(device);
      if (deviceArgs.positional.size() > 3) return error(deviceArgs.positional[3], "I.vdevice takes 3 arguments at most");
      for (const auto &[keyword, value] : deviceArgs.keywords)
        if (keyword != "target" && keyword != "vdevice_id" && keyword != "memory_scope")
          return error(value, "unexpected argument '" + keyword + "' to I.vdevice");
      ir::VDevice vdevice;
      vdevice.loc = loc(device);
      Grammar::ExprContext *target = deviceArgs.get(0, "target");
      std::optional<std::string> targetText = target ? stringOf(target) : std::nullopt;
      if (!targetText || targetText->empty() || targetText->front() == ' ')
        return error(target ? target : static_cast<antlr4::ParserRuleContext *>(device),
                     "expected the target as a string, such as \"llvm\" or \"cuda -arch=sm_80\"");
      vdevice.target = *targetText;
      if (Grammar::ExprContext *id = deviceArgs.get(1, "vdevice_id")) {
        std::optional<int64_t> value = intOf(id);
        if (!value) return error(id, "expected the device index, a non-negative integer");
        vdevice.id = *value;
      }
      if (Grammar::ExprContext *scope = deviceArgs.get(2, "memory_scope")) {
        std::optional<std::string> text = stringOf(scope);
        if (!text) return error(scope, "expected the memory scope as a string, such as \"global\"");
        vdevice.memoryScope = *text;
      }
      vdevices.push_back(std::move(vdevice));
    }
  }
  return true;
}

std::optional<relax::Call> RelaxFunctionBuilder::withInferredStructInfo(relax::Call call, ir::SourceLoc callLoc,
                                                                        ir::SourceLoc axesLoc) {
  relax::RelaxDiagnostic diagnostic;
  std::optional<relax::StructInfo> sinfo = relax::inferOperatorStructInfo(call, callLoc, axesLoc, diagnostic);
  if (!sinfo) {
    error(diagnostic.loc, diagnostic.message);
    return std::nullopt;
  }
  // The result lives where its tensors do (TVM's operators take the device of the arguments
  // that have one, and refuse two different ones).
  std::string vdevice;
  for (const relax::Arg &arg : call.args) {
    relax::StructInfo argSinfo = arg.sinfo();
    if (!argSinfo.isTensor() || argSinfo.tensor.vdevice.empty()) continue;
    if (!vdevice.empty() && vdevice != argSinfo.tensor.vdevice) {
      error(arg.loc, "R." + call.callee + " takes tensors on different virtual devices, " + vdevice + " and " +
                         argSinfo.tensor.vdevice);
      return std::nullopt;
    }
    vdevice = argSinfo.tensor.vdevice;
  }
  if (sinfo->isTensor()) sinfo->tensor.vdevice = vdevice;
  for (relax::StructInfo &field : sinfo->fields) field.tensor.vdevice = vdevice;
  if (sinfo->isTensor()) {
    call.outSinfo = sinfo->tensor;
    return call;
  }
  call.outSinfo.loc = callLoc;
  for (const relax::StructInfo &field : sinfo->fields) call.tupleOutSinfo.push_back(field.tensor);
  return call;
}

std::optional<relax::Call> RelaxFunctionBuilder::arithmeticCall(Grammar::ExprContext *expr) {
  std::vector<Grammar::ExprContext *> operands;
  relax::Call call;
  call.kind = relax::CallKind::Operator;
  antlr4::Token *op = arithmeticOperator(expr, operands, call.callee);
  call.calleeLoc = locationOf(file_, op);
  for (Grammar::ExprContext *operand : operands) {
    std::optional<relax::Arg> arg = argument(stripParens(operand));
    if (!arg) return std::nullopt;
    call.args.push_back(*arg);
  }
  return withInferredStructInfo(std::move(call), call.calleeLoc, call.calleeLoc);
}

// ---- Statements ------------------------------------------------------------------------------

relax::BindingBlock &RelaxFunctionBuilder::bindingBlockOutsideDataflow() {
  if (blocks_.empty() || blocks_.back().dataflow) {
    blocks_.emplace_back();
    blocks_.back().dataflow = false;
  }
  return blocks_.back();
}

relax::VarPtr RelaxFunctionBuilder::bind(const std::string &name, ir::SourceLoc at,
                                         std::optional<relax::StructInfo> annotation,
                                         Grammar::ExprContext *value) {
  relax::Binding binding;
  binding.loc = at;
  std::optional<relax::StructInfo> inferred = bindingValue(stripParens(value), binding);
  if (!inferred) return nullptr;
  return emitBinding(name, at, std::move(annotation), std::move(binding), *inferred);
}

// `t = a, (b,)`: the right-hand side of an assignment, a tuple when written with commas and
// no parentheses, as Python reads it.
relax::VarPtr RelaxFunctionBuilder::bind(const std::string &name, ir::SourceLoc at,
                                         std::optional<relax::StructInfo> annotation,
                                         Grammar::TestlistContext *values) {
  if (values->expr().size() == 1 && values->COMMA().empty()) return bind(name, at, std::move(annotation), values->expr(0));
  relax::Binding binding;
  binding.loc = at;
  std::optional<relax::Arg> tuple = tupleOf(values->expr(), loc(values), &RelaxFunctionBuilder::tupleField);
  if (!tuple) return nullptr;
  binding.tuple = *tuple->fields;
  return emitBinding(name, at, std::move(annotation), std::move(binding), tuple->sinfo());
}

relax::VarPtr RelaxFunctionBuilder::emitBinding(const std::string &name, ir::SourceLoc at,
                                                std::optional<relax::StructInfo> annotation,
                                                relax::Binding binding, const relax::StructInfo &inferred) {
  if (annotation) {
    // Reported, then bound as annotated so later uses do not echo the error.
    if (std::optional<std::string> conflict = relax::structInfoConflict(*annotation, inferred))
      error(annotation->loc, "the annotation of '" + name + "' does not match its value: " + *conflict);
  }
  // TVM's parser emits every binding under a fresh name and renames it after; the names used
  // up decide those of the bindings nested values get.
  freshName();
  return emit(std::move(binding), name, at, annotation ? *annotation : inferred, /*inScope=*/true);
}

// The value of a binding, into `binding`; returns its struct info, or nullopt after an error.
std::optional<relax::StructInfo> RelaxFunctionBuilder::bindingValue(Grammar::ExprContext *value,
                                                                     relax::Binding &binding) {
  auto *callExpr = dynamic_cast<Grammar::CallExprContext *>(value);
  std::optional<std::string> op = callExpr ? dottedName(callExpr->expr()) : std::nullopt;
  if (tupleItems(value) || op == std::optional<std::string>("R.tuple")) {
    std::optional<relax::Arg> tuple = tupleField(value);
    if (!tuple) return std::nullopt;
    binding.tuple = *tuple->fields;
    return tuple->sinfo();
  }
  if (auto *subscript = dynamic_cast<Grammar::SubscriptExprContext *>(value);
      subscript && isTupleField(value)) {
    std::vector<Grammar::SubscriptContext *> indices = subscript->subscriptlist()->subscript();
    std::optional<int64_t> index = indices.size() == 1 && indices[0]->expr() && !indices[0]->slice_tail()
                                       ? intOf(indices[0]->expr())
                                       : std::nullopt;
    if (!index) {
      error(loc(subscript->subscriptlist()), "expected a constant index of a tuple field, e.g. t[0]");
      return std::nullopt;
    }
    std::optional<relax::Arg> tuple = argument(subscript->expr());
    if (!tuple) return std::nullopt;
    relax::StructInfo sinfo = tuple->sinfo();
    if (sinfo.kind != relax::StructInfo::Kind::Tuple) {
      error(tuple->loc, "'" + subscript->expr()->getText() + "' is " + relax::printStructInfo(sinfo) + ", not a tuple");
      return std::nullopt;
    }
    if (*index < 0 || size_t(*index) >= sinfo.fields.size()) {
      error(loc(indices[0]), "index " + std::to_string(*index) + " is out of range for a tuple of " +
                                 std::to_string(sinfo.fields.size()) + " fields");
      return std::nullopt;
    }
    binding.alias = *tuple;
    binding.index = *index;
    return sinfo.fields[size_t(*index)];
  }
  if (op == std::optional<std::string>("R.match_cast")) {
    Arguments args = argumentsOf(callExpr);
    if (args.positional.size() != 2 || !args.keywords.empty()) {
      error(loc(callExpr), "expected R.match_cast(value, struct_info)");
      return std::nullopt;
    }
    std::optional<relax::Arg> source = argument(args.positional[0]);
    std::optional<relax::StructInfo> cast = structInfo(args.positional[1], /*inSignature=*/true);
    if (!source || !cast) return std::nullopt;
    // R.match_cast checks at run time what is not known before; a value of the same kind that
    // can never match is an error now.
    relax::StructInfo actual = source->sinfo();
    if (actual.kind == cast->kind)
      if (std::optional<std::string> conflict = relax::structInfoConflict(*cast, actual)) {
        error(cast->loc, "R.match_cast can never succeed: " + *conflict);
        return std::nullopt;
      }
    binding.alias = *source;
    binding.matchCast = *cast;
    return *cast;
  }
  std::vector<Grammar::ExprContext *> operands;
  std::string arithmetic;
  if (arithmeticOperator(value, operands, arithmetic)) {
    binding.call = arithmeticCall(value);
    if (!binding.call) return std::nullopt;
    return binding.call->outputSinfo();
  }
  if (callExpr && !isLeafCall(op)) {
    binding.call = call(callExpr);
    if (!binding.call) return std::nullopt;
    return callResult(*binding.call);
  }
  std::optional<relax::Arg> alias = argument(value);
  if (!alias) return std::nullopt;
  binding.alias = *alias;
  return alias->sinfo();
}

bool RelaxFunctionBuilder::declareSymbolicVars(Grammar::Expr_stmtContext *stmt) {
  std::vector<Grammar::ExprContext *> targets = stmt->testlist(0)->expr();
  std::vector<Grammar::ExprContext *> values = stmt->testlist(1)->expr();
  if (values.empty() || !std::all_of(values.begin(), values.end(), isSymbolicVarConstructor))
    return false;
  if (targets.size() != values.size()) {
    error(loc(stmt), "expected one name per symbolic size");
    return true;
  }
  for (Grammar::ExprContext *target : targets) {
    std::optional<std::string> name = nameOf(target);
    if (!name) {
      error(loc(target), "expected a name for the symbolic size");
      continue;
    }
    // A size the signature already introduced ("m") is the same variable.
    symbolicVar(*name, loc(target), true);
  }
  return true;
}

void RelaxFunctionBuilder::assignment(Grammar::Expr_stmtContext *stmt) {
  ir::SourceLoc at = loc(stmt);
  if (stmt->augassign()) {
    error(at, "augmented assignment is not allowed in a Relax function");
    return;
  }
  std::vector<Grammar::ExprContext *> targets = stmt->testlist(0)->expr();
  if (Grammar::AnnassignContext *annotated = stmt->annassign()) {
    std::optional<std::string> name = targets.size() == 1 ? nameOf(targets[0]) : std::nullopt;
    if (!name || !annotated->testlist()) {
      error(at, "expected `name: R.Tensor(...) = value`");
      return;
    }
    std::optional<relax::StructInfo> annotation = structInfo(annotated->expr(), false);
    if (!annotation) return;
    bind(*name, loc(targets[0]), annotation, annotated->testlist());
    return;
  }
  if (declareSymbolicVars(stmt)) return;
  std::vector<Grammar::ExprContext *> values = stmt->testlist(1)->expr();
  std::optional<std::string> name = targets.size() == 1 ? nameOf(targets[0]) : std::nullopt;
  if (!name || stmt->testlist().size() != 2) {
    error(at, "expected `name = value` (one variable per binding)");
    return;
  }
  // `cls = Module`: a name for the enclosing module, used as `cls.func` (a Python name, so
  // one defined inside a dataflow block is the function's too).
  if (std::optional<std::string> rhs = values.size() == 1 ? nameOf(values[0]) : std::nullopt;
      rhs && !moduleName_.empty() && *rhs == moduleName_ && !visible_.count(*rhs) &&
      !dataflowScope_.count(*rhs)) {
    moduleAliases_.insert(*name);
    return;
  }
  bind(*name, loc(targets[0]), std::nullopt, stmt->testlist(1));
}

void RelaxFunctionBuilder::output(Grammar::CallExprContext *call, bool lastInBlock) {
  ir::SourceLoc at = loc(call);
  if (!inDataflow_) {
    error(at, "R.output is only allowed inside a dataflow block");
    return;
  }
  if (!lastInBlock) error(at, "R.output must be the last statement of its dataflow block");
  Arguments args = argumentsOf(call);
  if (!args.keywords.empty()) error(loc(args.keywords[0].second), "R.output takes variables only");
  for (Grammar::ExprContext *expr : args.positional) {
    std::optional<std::string> name = nameOf(expr);
    auto it = name ? dataflowScope_.find(*name) : dataflowScope_.end();
    if (it == dataflowScope_.end()) {
      error(loc(expr), "R.output lists " + (name ? "'" + *name + "'" : std::string("an expression")) +
                           ", which is not bound in this dataflow block");
      continue;
    }
    it->second->dataflow = false;
  }
}

// `R.func_attr({"num_input": 1})`: the function's attributes, literals only (the graph level
// has no TIR expressions to hold).
void RelaxFunctionBuilder::functionAttributes(Grammar::CallExprContext *call) {
  ir::SourceLoc at = loc(call);
  if (inDataflow_ || !blocks_.empty()) {
    error(at, "R.func_attr must come before the function's bindings");
    return;
  }
  Arguments args = argumentsOf(call);
  auto *dict = args.positional.size() == 1 && args.keywords.empty()
                   ? dynamic_cast<Grammar::DictAtomContext *>(atomOf(args.positional[0]))
                   : nullptr;
  if (!dict) {
    error(at, "R.func_attr takes one dictionary");
    return;
  }
  std::optional<ir::AttrValue> attrs = attrLiteral(args.positional[0]);
  if (!attrs) return;
  for (const auto &[key, value] : attrs->asMap()) attrs_.set(key, value);
}

std::optional<ir::AttrValue> readAttrLiteral(const SourceFile &file, DiagnosticEngine &diagnostics,
                                             Grammar::ExprContext *expr) {
  auto attrLiteral = [&](Grammar::ExprContext *inner) { return readAttrLiteral(file, diagnostics, inner); };
  auto error = [&](ir::SourceLoc at, std::string message) { diagnostics.error(at, std::move(message)); };
  auto loc = [&](const antlr4::ParserRuleContext *context) { return locationOf(file, context); };
  Grammar::AtomContext *atom = atomOf(expr);
  if (auto *string = dynamic_cast<Grammar::StringAtomContext *>(atom)) {
    std::string text;
    for (antlr4::tree::TerminalNode *token : string->STRING()) text += decodeStringLiteral(token->getText());
    return ir::AttrValue(std::move(text));
  }
  if (dynamic_cast<Grammar::TrueAtomContext *>(atom)) return ir::AttrValue(true);
  if (dynamic_cast<Grammar::FalseAtomContext *>(atom)) return ir::AttrValue(false);
  if (dynamic_cast<Grammar::NoneAtomContext *>(atom)) return ir::AttrValue();
  if (auto *number = dynamic_cast<Grammar::FloatAtomContext *>(atom))
    return ir::AttrValue(std::strtod(withoutUnderscores(number->FLOAT_NUMBER()->getText()).c_str(), nullptr));
  if (auto *integer = dynamic_cast<Grammar::IntAtomContext *>(atom)) {
    if (std::optional<int64_t> value = parseIntegerLiteral(integer->INTEGER()->getText())) return ir::AttrValue(*value);
  } else if (auto *unary = dynamic_cast<Grammar::UnaryExprContext *>(expr);
             unary && unary->op->getType() == Grammar::MINUS) {
    std::optional<ir::AttrValue> operand = attrLiteral(unary->expr());
    if (!operand) return std::nullopt;
    if (operand->isInt() && operand->asInt() != INT64_MIN) return ir::AttrValue(-operand->asInt());
    if (operand->isFloat()) return ir::AttrValue(-operand->asFloat());
  } else if (std::optional<std::vector<Grammar::ExprContext *>> items = tupleItems(expr)) {
    ir::AttrValue::Array array;
    for (Grammar::ExprContext *item : *items) {
      std::optional<ir::AttrValue> value = attrLiteral(item);
      if (!value) return std::nullopt;
      array.push_back(std::move(*value));
    }
    return ir::AttrValue(std::move(array));
  } else if (auto *dict = dynamic_cast<Grammar::DictAtomContext *>(atom)) {
    ir::AttrMap map;
    for (Grammar::Dict_entryContext *entry : dict->dict_entry()) {
      std::optional<ir::AttrValue> key = attrLiteral(entry->expr(0));
      if (!key) return std::nullopt;
      if (!key->isString()) {
        error(loc(entry->expr(0)), "an attribute name must be a string");
        return std::nullopt;
      }
      std::optional<ir::AttrValue> value = attrLiteral(entry->expr(1));
      if (!value) return std::nullopt;
      map.set(key->asString(), std::move(*value));
    }
    return ir::AttrValue(std::move(map));
  }
  error(loc(expr), "expected a literal attribute value (string, number, True/False/None, list or dictionary)");
  return std::nullopt;
}

std::optional<ir::AttrValue> RelaxFunctionBuilder::attrLiteral(Grammar::ExprContext *expr) {
  return readAttrLiteral(file_, diagnostics_, expr);
}

void RelaxFunctionBuilder::returnStatement(Grammar::TestlistContext *values, ir::SourceLoc at) {
  if (inDataflow_) {
    error(at, "return inside a dataflow block");
    return;
  }
  if (branchDepth_) {
    error(at, "return inside an if branch; bind the value in both branches and return it after the if");
    return;
  }
  if (!values) {
    error(at, "a Relax function must return a value");
    return;
  }
  std::vector<Grammar::ExprContext *> items = values->expr();
  resultIsTuple_ = items.size() > 1 || !values->COMMA().empty();
  if (!resultIsTuple_) {
    auto *callExpr = dynamic_cast<Grammar::CallExprContext *>(stripParens(items[0]));
    if (std::optional<std::vector<Grammar::ExprContext *>> tuple = tupleItems(items[0])) {
      items = *tuple;
      resultIsTuple_ = true;
    } else if (callExpr && dottedName(callExpr->expr()) == std::optional<std::string>("R.tuple") &&
               argumentsOf(callExpr).keywords.empty()) {
      // `return R.tuple()`: TVM's unit value.
      items = argumentsOf(callExpr).positional;
      resultIsTuple_ = true;
      returned_ = items.empty();
    }
  }
  if (items.empty() && !returned_) {
    error(at, "a Relax function must return a value");
    return;
  }
  for (Grammar::ExprContext *item : items)
    if (std::optional<relax::Arg> arg = resultIsTuple_ ? tupleField(item) : argument(item)) results_.push_back(*arg);
  returned_ = true;
}

void RelaxFunctionBuilder::smallStatement(Grammar::Small_stmtContext *stmt, bool lastInBlock) {
  ir::SourceLoc at = loc(stmt);
  if (returned_) {
    error(at, "statement after return");
    return;
  }
  if (stmt->RETURN()) {
    returnStatement(stmt->testlist(), at);
    return;
  }
  if (stmt->PASS()) return;
  Grammar::Expr_stmtContext *exprStmt = stmt->expr_stmt();
  if (!exprStmt) {
    error(at, "unsupported statement in a Relax function");
    return;
  }
  if (exprStmt->annassign() || exprStmt->augassign() || exprStmt->ASSIGN()) {
    assignment(exprStmt);
    return;
  }
  std::vector<Grammar::ExprContext *> exprs = exprStmt->testlist(0)->expr();
  auto *callExpr = exprs.size() == 1 ? dynamic_cast<Grammar::CallExprContext *>(exprs[0]) : nullptr;
  if (callExpr && dottedName(callExpr->expr()) == std::optional<std::string>("R.output")) {
    output(callExpr, lastInBlock);
    return;
  }
  if (callExpr && dottedName(callExpr->expr()) == std::optional<std::string>("R.func_attr")) {
    functionAttributes(callExpr);
    return;
  }
  if (exprs.size() == 1 && stringOf(exprs[0])) return;  // a docstring
  // A call whose result is void (R.Tuple: a kill, a prim_func writing into its arguments)
  // stands alone; TVM binds it to `_`.
  if (callExpr) {
    if (relax::VarPtr var = bind("_", at, std::nullopt, callExpr); var && !relax::isVoid(var->sinfo))
      error(at, "a value of " + relax::printStructInfo(var->sinfo) +
                    " must be bound to a variable; only a call without a result (R.Tuple) stands alone");
    return;
  }
  error(at, "an expression statement has no effect in a Relax function; bind its value");
}

void RelaxFunctionBuilder::dataflowBlock(Grammar::With_stmtContext *stmt) {
  ir::SourceLoc at = loc(stmt);
  std::vector<Grammar::With_itemContext *> items = stmt->with_item();
  auto *callExpr = items.size() == 1 ? dynamic_cast<Grammar::CallExprContext *>(items[0]->expr()) : nullptr;
  if (!callExpr || dottedName(callExpr->expr()) != std::optional<std::string>("R.dataflow") ||
      callExpr->arglist() || items[0]->target()) {
    error(at, "expected `with R.dataflow():`");
    return;
  }
  if (inDataflow_) {
    error(at, "dataflow blocks cannot be nested");
    return;
  }
  if (returned_) {
    error(at, "statement after return");
    return;
  }
  blocks_.emplace_back();
  blocks_.back().dataflow = true;
  blocks_.back().loc = at;
  inDataflow_ = true;
  suite(stmt->suite());
  inDataflow_ = false;
  // What R.output exposed joins the function scope; the rest is gone.
  for (auto &[name, var] : dataflowScope_) {
    if (var->dataflow) {
      hiddenDataflowNames_.insert(name);
    } else {
      visible_[name] = var;
      hiddenDataflowNames_.erase(name);
    }
  }
  dataflowScope_.clear();
}

// `if cond: ... else: ...` as TVM's parser reads it: each branch's bindings, its last binding
// naming the variable the If binds (the same in both); the branches' variables are not
// visible after the if. The value of that last binding is what the branch yields.
void RelaxFunctionBuilder::ifStatement(Grammar::If_stmtContext *stmt) {
  ir::SourceLoc at = loc(stmt);
  if (returned_) {
    error(at, "statement after return");
    return;
  }
  if (inDataflow_) {
    error(at, "an if is not allowed inside a dataflow block");
    return;
  }
  if (!stmt->elif_clause().empty()) {
    error(loc(stmt->elif_clause(0)), "elif is not supported in a Relax function; nest an if in the else branch");
    return;
  }
  if (!stmt->else_clause()) {
    error(at, "an if in a Relax function needs an else branch (both branches bind its value)");
    return;
  }
  // `if n == 16:` compares sizes: TVM's parser reads it as R.prim_value(n == 16).
  std::optional<relax::Arg> condition;
  if (dynamic_cast<Grammar::CompareExprContext *>(stmt->expr())) {
    condition.emplace();
    condition->loc = loc(stmt->expr());
    condition->prim = primValue(stmt->expr());
    if (!condition->prim) return;
  } else {
    condition = argument(stmt->expr());
  }
  if (!condition) return;
  relax::StructInfo conditionSinfo = condition->sinfo();
  bool boolTensor = conditionSinfo.isTensor() && conditionSinfo.tensor.rank() <= 0 &&
                    (conditionSinfo.tensor.dtype.isVoid() || conditionSinfo.tensor.dtype.isBool());
  bool boolPrim = conditionSinfo.kind == relax::StructInfo::Kind::Prim && conditionSinfo.dtype.isBool();
  if (!boolTensor && !boolPrim) {
    error(condition->loc, "the condition of an if must be a bool scalar (R.Tensor((), \"bool\") or R.Prim(\"bool\")), not " +
                              relax::printStructInfo(conditionSinfo));
    return;
  }
  std::optional<std::string> thenName, elseName;
  std::optional<relax::IfBranch> thenBranch = ifBranch(stmt->suite(), at, thenName);
  if (!thenBranch) return;
  std::optional<relax::IfBranch> elseBranch = ifBranch(stmt->else_clause()->suite(), loc(stmt->else_clause()), elseName);
  if (!elseBranch) return;
  if (*thenName != *elseName) {
    error(elseBranch->loc, "the last bindings of both branches must bind the same variable: the if branch binds '" +
                               *thenName + "', the else branch '" + *elseName + "'");
    return;
  }
  relax::Binding binding;
  binding.loc = at;
  relax::StructInfo sinfo = relax::structInfoUnion(thenBranch->result.sinfo(), elseBranch->result.sinfo());
  sinfo.loc = thenBranch->loc;
  auto ifElse = std::make_shared<relax::IfElse>();
  ifElse->condition = *condition;
  ifElse->thenBranch = std::move(*thenBranch);
  ifElse->elseBranch = std::move(*elseBranch);
  binding.ifElse = std::move(ifElse);
  freshName();  // as bind(): TVM's parser names every binding freshly first
  emit(std::move(binding), *thenName, at, std::move(sinfo), /*inScope=*/true);
}

// One branch of an if, read into blocks of its own; `name` is what its last binding binds.
std::optional<relax::IfBranch> RelaxFunctionBuilder::ifBranch(Grammar::SuiteContext *body, ir::SourceLoc at,
                                                               std::optional<std::string> &name) {
  size_t errors = diagnostics_.errorCount();
  std::vector<relax::BindingBlock> outerBlocks = std::move(blocks_);
  auto outerVisible = visible_;
  auto outerHidden = hiddenDataflowNames_;
  blocks_.clear();
  ++branchDepth_;
  suite(body);
  --branchDepth_;
  relax::IfBranch branch;
  branch.blocks = std::move(blocks_);
  blocks_ = std::move(outerBlocks);
  visible_ = std::move(outerVisible);
  hiddenDataflowNames_ = std::move(outerHidden);
  if (diagnostics_.errorCount() != errors) return std::nullopt;
  if (branch.blocks.empty() || branch.blocks.back().dataflow) {
    error(at, "an if branch must end with a binding of the if's variable, e.g. `y = ...`, outside dataflow blocks");
    return std::nullopt;
  }
  relax::Binding last = std::move(branch.blocks.back().bindings.back());
  branch.blocks.back().bindings.pop_back();
  if (branch.blocks.back().bindings.empty()) branch.blocks.pop_back();
  name = last.var->name;
  branch.loc = last.loc;
  if (last.ifElse || last.function || last.matchCast) {
    error(last.loc, std::string("an if branch cannot end with ") +
                        (last.ifElse ? "an if" : last.function ? "a local function" : "R.match_cast") +
                        "; bind it, then the if's variable to it");
    return std::nullopt;
  }
  if (last.isAlias()) {
    branch.result = last.alias;
  } else if (last.tuple) {
    branch.result.loc = last.loc;
    branch.result.fields = std::make_shared<const std::vector<relax::Arg>>(std::move(*last.tuple));
  } else {
    // A call (or tuple field) is bound to a fresh variable, which the branch yields, as TVM's
    // normalizer does with a SeqExpr's body.
    last.var->name = freshName();
    branch.result.var = last.var;
    branch.result.loc = last.loc;
    if (branch.blocks.empty() || branch.blocks.back().dataflow) {
      branch.blocks.emplace_back();
      branch.blocks.back().dataflow = false;
    }
    branch.blocks.back().bindings.push_back(std::move(last));
  }
  return branch;
}

// `@R.function def inner(...)` inside a function: a local function, bound to a variable of its
// name (R.Callable struct info); it may use the enclosing function's variables.
void RelaxFunctionBuilder::localFunction(Grammar::DecoratedContext *decorated) {
  ir::SourceLoc at = loc(decorated);
  Grammar::FuncdefContext *def = decorated->funcdef();
  std::vector<Grammar::DecoratorContext *> decorators = decorated->decorator();
  auto *decoratorCall = dynamic_cast<Grammar::CallExprContext *>(decorators[0]->expr());
  std::optional<std::string> decorator = dottedName(decoratorCall ? decoratorCall->expr() : decorators[0]->expr());
  if (!def || decorators.size() != 1 || decorator != std::optional<std::string>("R.function")) {
    error(at, "only a @R.function def may be defined inside a Relax function");
    return;
  }
  if (returned_) {
    error(at, "statement after return");
    return;
  }
  RelaxFunctionBuilder inner(file_, diagnostics_, moduleName_, moduleSignatures_);
  inner.captured_ = captured_;
  for (const auto &[name, var] : visible_) inner.captured_[name] = var;
  if (inDataflow_)
    for (const auto &[name, var] : dataflowScope_) inner.captured_[name] = var;
  inner.moduleAliases_ = moduleAliases_;
  ir::RelaxFunctionRef function = inner.build(def);
  if (!function) return;
  relax::StructInfo sinfo = relax::StructInfo::of(relax::StructInfo::Kind::Callable, loc(def->NAME()));
  for (const relax::VarPtr &param : function->params) sinfo.fields.push_back(param->sinfo);
  sinfo.result = std::make_shared<const relax::StructInfo>(function->retSinfo);
  relax::Binding binding;
  binding.loc = loc(def->NAME());
  binding.function = function;
  freshName();
  emit(std::move(binding), def->NAME()->getText(), loc(def->NAME()), std::move(sinfo), /*inScope=*/true);
}

void RelaxFunctionBuilder::suite(Grammar::SuiteContext *suite) {
  if (Grammar::Simple_stmtContext *simple = suite->simple_stmt()) {
    std::vector<Grammar::Small_stmtContext *> smalls = simple->small_stmt();
    for (size_t i = 0; i < smalls.size(); ++i) smallStatement(smalls[i], i + 1 == smalls.size());
    return;
  }
  statements(suite->stmt());
}

void RelaxFunctionBuilder::statements(const std::vector<Grammar::StmtContext *> &stmts) {
  for (size_t s = 0; s < stmts.size() && !diagnostics_.limitReached(); ++s) {
    bool lastStmt = s + 1 == stmts.size();
    if (Grammar::Simple_stmtContext *simple = stmts[s]->simple_stmt()) {
      std::vector<Grammar::Small_stmtContext *> smalls = simple->small_stmt();
      for (size_t i = 0; i < smalls.size(); ++i)
        smallStatement(smalls[i], lastStmt && i + 1 == smalls.size());
      continue;
    }
    Grammar::Compound_stmtContext *compound = stmts[s]->compound_stmt();
    if (Grammar::With_stmtContext *with = compound->with_stmt()) {
      dataflowBlock(with);
      continue;
    }
    if (Grammar::If_stmtContext *ifStmt = compound->if_stmt()) {
      ifStatement(ifStmt);
      continue;
    }
    if (Grammar::DecoratedContext *decorated = compound->decorated()) {
      localFunction(decorated);
      continue;
    }
    error(loc(compound), "unsupported statement in a Relax function");
  }
}

// ---- The function ----------------------------------------------------------------------------

std::optional<relax::StructInfo> RelaxFunctionBuilder::signature(Grammar::FuncdefContext *def) {
  size_t errors = diagnostics_.errorCount();
  relax::StructInfo sinfo = relax::StructInfo::of(relax::StructInfo::Kind::Callable, loc(def->NAME()));
  if (Grammar::ParametersContext *parameters = def->parameters())
    for (Grammar::ParameterContext *parameter : parameters->parameter()) {
      std::optional<relax::StructInfo> param =
          parameter->COLON() ? structInfo(parameter->expr(0), true) : std::nullopt;
      if (param) sinfo.fields.push_back(std::move(*param));
    }
  if (def->expr())
    if (std::optional<relax::StructInfo> result = structInfo(def->expr(), true))
      sinfo.result = std::make_shared<const relax::StructInfo>(std::move(*result));
  if (diagnostics_.errorCount() != errors) return std::nullopt;
  return sinfo;
}

ir::RelaxFunctionRef RelaxFunctionBuilder::build(Grammar::FuncdefContext *def) {
  errorsAtStart_ = diagnostics_.errorCount();
  if (Grammar::ParametersContext *parameters = def->parameters()) {
    for (Grammar::ParameterContext *parameter : parameters->parameter()) {
      std::string name = parameter->NAME()->getText();
      ir::SourceLoc at = loc(parameter);
      if (!parameter->COLON()) {
        error(at, "parameter '" + name + "' needs a struct info annotation such as R.Tensor(shape, dtype)");
        continue;
      }
      std::optional<relax::StructInfo> sinfo = structInfo(parameter->expr(0), true);
      if (visible_.count(name)) error(at, "duplicate parameter '" + name + "'");
      auto var = std::make_shared<relax::Var>();
      var->name = name;
      // A bad annotation was reported; the parameter stays defined so its uses do not echo it.
      var->sinfo = sinfo ? *sinfo : relax::StructInfo::of(relax::StructInfo::Kind::Object, at);
      var->loc = at;
      params_.push_back(var);
      visible_[name] = var;
    }
  }
  std::optional<relax::StructInfo> retAnnotation;
  if (def->expr()) retAnnotation = structInfo(def->expr(), true);

  Grammar::SuiteContext *body = def->suite();
  if (body->simple_stmt()) suite(body);
  else statements(body->stmt());

  ir::SourceLoc at = loc(def->NAME());
  if (!returned_ && diagnostics_.errorCount() == errorsAtStart_)
    error(at, "Relax function '" + def->NAME()->getText() + "' has no return statement");
  if (diagnostics_.errorCount() != errorsAtStart_) return nullptr;

  relax::StructInfo retSinfo = resultIsTuple_ ? relax::StructInfo() : results_.front().sinfo();
  if (resultIsTuple_) {
    retSinfo = relax::StructInfo::of(relax::StructInfo::Kind::Tuple, loc(def->NAME()));
    for (const relax::Arg &result : results_) retSinfo.fields.push_back(result.sinfo());
  }
  if (retAnnotation) {
    // `return (a, b)` against `-> R.Tuple(...)`: compared field by field, to point at one.
    if (resultIsTuple_ && retAnnotation->kind == relax::StructInfo::Kind::Tuple) {
      const std::vector<relax::StructInfo> &fields = retAnnotation->fields;
      if (fields.size() != results_.size()) {
        error(loc(def->expr()), "the return annotation has " + std::to_string(fields.size()) +
                                    " fields, the function returns " + std::to_string(results_.size()) +
                                    " values");
        return nullptr;
      }
      for (size_t i = 0; i < results_.size(); ++i)
        if (std::optional<std::string> conflict = relax::structInfoConflict(fields[i], results_[i].sinfo())) {
          error(fields[i].loc, "returned value " + std::to_string(i) +
                                   " does not match the return annotation: " + *conflict);
          return nullptr;
        }
    } else if (std::optional<std::string> conflict = relax::structInfoConflict(*retAnnotation, retSinfo)) {
      error(retAnnotation->loc, "the returned value does not match the return annotation: " + *conflict);
      return nullptr;
    }
    retSinfo = *retAnnotation;
  }
  // Dataflow variables that were never output cannot be returned; the scope check saw to that.
  return ir::make<ir::RelaxFunction>(std::move(params_), std::move(symbolic_), std::move(blocks_),
                                     std::move(results_), resultIsTuple_, std::move(retSinfo),
                                     std::move(attrs_), loc(def));
}

} // namespace vtac::frontend
