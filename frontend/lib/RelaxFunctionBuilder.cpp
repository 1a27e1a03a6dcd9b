#include "RelaxFunctionBuilder.h"

#include "SyntaxParser.h"
#include "TVMScriptLexer.h"

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

std::optional<relax::TensorStructInfo>
RelaxFunctionBuilder::structInfo(Grammar::ExprContext *expr, bool inSignature) {
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
    if (keyword != "shape" && keyword != "dtype" && keyword != "ndim") {
      error(loc(value), "unexpected argument '" + keyword + "' to R.Tensor");
      return std::nullopt;
    }
  if (shape) {
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
  if (Grammar::ExprContext *ndim = args.get(size_t(-1), "ndim")) {
    std::optional<int64_t> value = intOf(ndim);
    if (!value || *value < -1 || (sinfo.shape && *value != sinfo.ndim)) {
      error(loc(ndim), "ndim must be an integer matching the shape");
      return std::nullopt;
    }
    sinfo.ndim = int(*value);
  }
  return sinfo;
}

// ---- Values ----------------------------------------------------------------------------------

relax::VarPtr RelaxFunctionBuilder::lookupVar(const std::string &name, ir::SourceLoc at) {
  if (inDataflow_)
    if (auto it = dataflowScope_.find(name); it != dataflowScope_.end()) return it->second;
  if (auto it = visible_.find(name); it != visible_.end()) return it->second;
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
  error(arg.loc, "expected a variable or a metadata constant");
  return std::nullopt;
}

std::optional<relax::Call> RelaxFunctionBuilder::call(Grammar::CallExprContext *expr) {
  std::optional<std::string> op = dottedName(expr->expr());
  relax::Call call;
  if (op == std::optional<std::string>("R.call_tir")) {
    call.kind = relax::CallKind::CallTIR;
  } else if (op == std::optional<std::string>("R.call_dps_packed")) {
    call.kind = relax::CallKind::CallDPSPacked;
  } else {
    error(loc(expr), "expected R.call_tir or R.call_dps_packed" +
                         (op ? ", got " + *op : std::string()));
    return std::nullopt;
  }
  Arguments args = argumentsOf(expr);
  const char *opName = call.kind == relax::CallKind::CallTIR ? "R.call_tir" : "R.call_dps_packed";
  for (const auto &[keyword, value] : args.keywords)
    if (keyword != "args" && keyword != "out_sinfo" &&
        !(call.kind == relax::CallKind::CallTIR ? keyword == "gvar" : keyword == "func")) {
      error(loc(value), std::string("unexpected argument '") + keyword + "' to " + opName);
      return std::nullopt;
    }
  if (args.positional.size() > 3) {
    error(loc(args.positional[3]), std::string(opName) + " takes (callee, args, out_sinfo)");
    return std::nullopt;
  }
  Grammar::ExprContext *callee =
      args.get(0, call.kind == relax::CallKind::CallTIR ? "gvar" : "func");
  Grammar::ExprContext *callArgs = args.get(1, "args");
  Grammar::ExprContext *outSinfo = args.get(2, "out_sinfo");
  if (!callee || !callArgs || !outSinfo) {
    error(loc(expr), std::string(opName) + " needs a callee, a tuple of arguments and out_sinfo");
    return std::nullopt;
  }

  call.calleeLoc = loc(callee);
  if (call.kind == relax::CallKind::CallTIR) {
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

  std::vector<Grammar::ExprContext *> items;
  if (std::optional<std::vector<Grammar::ExprContext *>> tuple = tupleItems(callArgs)) items = *tuple;
  else items.push_back(callArgs);
  for (Grammar::ExprContext *item : items) {
    std::optional<relax::Arg> arg = argument(item);
    if (!arg) return std::nullopt;
    call.args.push_back(*arg);
  }

  if (tupleItems(outSinfo)) {
    error(loc(outSinfo), "calls with several outputs are not supported; give one R.Tensor");
    return std::nullopt;
  }
  std::optional<relax::TensorStructInfo> sinfo = structInfo(outSinfo, false);
  if (!sinfo) return std::nullopt;
  if (!sinfo->hasShape() || sinfo->dtype.isVoid()) {
    error(loc(outSinfo), "the output of a call needs a shape and an element type");
    return std::nullopt;
  }
  call.outSinfo = *sinfo;
  return call;
}

// ---- Statements ------------------------------------------------------------------------------

relax::BindingBlock &RelaxFunctionBuilder::bindingBlockOutsideDataflow() {
  if (blocks_.empty() || blocks_.back().dataflow) {
    blocks_.emplace_back();
    blocks_.back().dataflow = false;
  }
  return blocks_.back();
}

void RelaxFunctionBuilder::bind(const std::string &name, ir::SourceLoc at,
                                std::optional<relax::TensorStructInfo> annotation,
                                Grammar::ExprContext *value) {
  relax::Binding binding;
  binding.loc = at;
  value = stripParens(value);
  relax::TensorStructInfo inferred;
  if (auto *callExpr = dynamic_cast<Grammar::CallExprContext *>(value)) {
    binding.call = call(callExpr);
    if (!binding.call) return;
    inferred = binding.call->outSinfo;
  } else {
    std::optional<relax::Arg> alias = argument(value);
    if (!alias) return;
    binding.alias = *alias;
    inferred = alias->sinfo();
  }
  if (annotation) {
    // Reported, then bound as annotated so later uses do not echo the error.
    if (std::optional<std::string> conflict = relax::structInfoConflict(*annotation, inferred))
      error(annotation->loc, "the annotation of '" + name + "' does not match its value: " + *conflict);
  }
  auto var = std::make_shared<relax::Var>();
  var->name = name;
  var->loc = at;
  var->sinfo = annotation ? *annotation : inferred;
  var->dataflow = inDataflow_;
  binding.var = var;
  if (inDataflow_) {
    dataflowScope_[name] = var;
    blocks_.back().bindings.push_back(std::move(binding));
  } else {
    visible_[name] = var;
    hiddenDataflowNames_.erase(name);
    bindingBlockOutsideDataflow().bindings.push_back(std::move(binding));
  }
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
    if (!name || !annotated->testlist() || annotated->testlist()->expr().size() != 1) {
      error(at, "expected `name: R.Tensor(...) = value`");
      return;
    }
    std::optional<relax::TensorStructInfo> annotation = structInfo(annotated->expr(), false);
    if (!annotation) return;
    bind(*name, loc(targets[0]), annotation, annotated->testlist()->expr(0));
    return;
  }
  if (declareSymbolicVars(stmt)) return;
  std::vector<Grammar::ExprContext *> values = stmt->testlist(1)->expr();
  std::optional<std::string> name = targets.size() == 1 ? nameOf(targets[0]) : std::nullopt;
  if (!name || values.size() != 1 || stmt->testlist().size() != 2) {
    error(at, "expected `name = value` (one variable per binding)");
    return;
  }
  // `cls = Module`: a name for the enclosing module, used as `cls.func`.
  if (std::optional<std::string> rhs = nameOf(values[0]);
      rhs && !moduleName_.empty() && *rhs == moduleName_ && !visible_.count(*rhs) &&
      !dataflowScope_.count(*rhs)) {
    if (inDataflow_) {
      error(at, "the module alias must be defined outside dataflow blocks");
      return;
    }
    moduleAliases_.insert(*name);
    return;
  }
  bind(*name, loc(targets[0]), std::nullopt, values[0]);
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

void RelaxFunctionBuilder::returnStatement(Grammar::TestlistContext *values, ir::SourceLoc at) {
  if (inDataflow_) {
    error(at, "return inside a dataflow block");
    return;
  }
  if (!values) {
    error(at, "a Relax function must return a value");
    return;
  }
  std::vector<Grammar::ExprContext *> items = values->expr();
  resultIsTuple_ = items.size() > 1 || !values->COMMA().empty();
  if (!resultIsTuple_) {
    if (std::optional<std::vector<Grammar::ExprContext *>> tuple = tupleItems(items[0])) {
      items = *tuple;
      resultIsTuple_ = true;
    }
  }
  if (items.empty()) {
    error(at, "a Relax function must return a value");
    return;
  }
  for (Grammar::ExprContext *item : items)
    if (std::optional<relax::Arg> arg = argument(item)) results_.push_back(*arg);
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
  if (exprs.size() == 1 && stringOf(exprs[0])) return;  // a docstring
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
    error(loc(compound), "unsupported statement in a Relax function");
  }
}

// ---- The function ----------------------------------------------------------------------------

ir::RelaxFunctionRef RelaxFunctionBuilder::build(Grammar::FuncdefContext *def) {
  errorsAtStart_ = diagnostics_.errorCount();
  if (Grammar::ParametersContext *parameters = def->parameters()) {
    for (Grammar::ParameterContext *parameter : parameters->parameter()) {
      std::string name = parameter->NAME()->getText();
      ir::SourceLoc at = loc(parameter);
      if (!parameter->COLON()) {
        error(at, "parameter '" + name + "' needs an R.Tensor annotation");
        continue;
      }
      std::optional<relax::TensorStructInfo> sinfo = structInfo(parameter->expr(0), true);
      if (!sinfo) continue;
      if (visible_.count(name)) error(at, "duplicate parameter '" + name + "'");
      auto var = std::make_shared<relax::Var>();
      var->name = name;
      var->sinfo = *sinfo;
      var->loc = at;
      params_.push_back(var);
      visible_[name] = var;
    }
  }
  // `-> R.Tensor(...)`, or `-> R.Tuple(R.Tensor(...), ...)` for a function returning a tuple.
  std::optional<relax::TensorStructInfo> retAnnotation;
  std::optional<std::vector<relax::TensorStructInfo>> tupleAnnotation;
  auto *annotationCall = def->expr() ? dynamic_cast<Grammar::CallExprContext *>(def->expr()) : nullptr;
  if (annotationCall && dottedName(annotationCall->expr()) == std::optional<std::string>("R.Tuple")) {
    tupleAnnotation.emplace();
    for (Grammar::ExprContext *field : argumentsOf(annotationCall).positional)
      if (std::optional<relax::TensorStructInfo> sinfo = structInfo(field, true))
        tupleAnnotation->push_back(*sinfo);
  } else if (def->expr()) {
    retAnnotation = structInfo(def->expr(), true);
  }

  Grammar::SuiteContext *body = def->suite();
  if (body->simple_stmt()) suite(body);
  else statements(body->stmt());

  ir::SourceLoc at = loc(def->NAME());
  if (!returned_ && diagnostics_.errorCount() == errorsAtStart_)
    error(at, "Relax function '" + def->NAME()->getText() + "' has no return statement");
  if (diagnostics_.errorCount() != errorsAtStart_) return nullptr;

  relax::TensorStructInfo retSinfo = results_.front().sinfo();
  if (retAnnotation && !resultIsTuple_) {
    if (std::optional<std::string> conflict = relax::structInfoConflict(*retAnnotation, retSinfo)) {
      error(retAnnotation->loc, "the returned value does not match the return annotation: " + *conflict);
      return nullptr;
    }
    retSinfo = *retAnnotation;
  }
  if (tupleAnnotation) {
    if (!resultIsTuple_ || tupleAnnotation->size() != results_.size()) {
      error(loc(def->expr()), "the return annotation has " + std::to_string(tupleAnnotation->size()) +
                                  " fields, the function returns " + std::to_string(results_.size()) +
                                  (resultIsTuple_ ? " values" : " value"));
      return nullptr;
    }
    for (size_t i = 0; i < results_.size(); ++i)
      if (std::optional<std::string> conflict =
              relax::structInfoConflict((*tupleAnnotation)[i], results_[i].sinfo())) {
        error((*tupleAnnotation)[i].loc, "returned value " + std::to_string(i) +
                                             " does not match the return annotation: " + *conflict);
        return nullptr;
      }
  }
  // Dataflow variables that were never output cannot be returned; the scope check saw to that.
  return ir::make<ir::RelaxFunction>(std::move(params_), std::move(symbolic_), std::move(blocks_),
                                     std::move(results_), resultIsTuple_, std::move(retSinfo),
                                     ir::AttrMap{}, loc(def));
}

} // namespace vtac::frontend
