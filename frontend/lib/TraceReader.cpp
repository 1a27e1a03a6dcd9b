// The schedule reader: a `def` taking `sch`, one `sch.<primitive>(...)` step per line.
#include "vtac/frontend/TraceReader.h"

#include "vtac/frontend/Frontend.h"

#include "Literals.h"
#include "ScheduleDefinition.h"
#include "SyntaxParser.h"

#include <algorithm>
#include <cstdlib>

namespace vtac::frontend {

using Grammar = grammar::TVMScriptParser;

namespace {

template <class T, class Context> T *exactly(Context *context) { return dynamic_cast<T *>(context); }

class TraceBuilder {
public:
  TraceBuilder(const SourceFile &file, DiagnosticEngine &diagnostics)
      : file_(file), diagnostics_(diagnostics) {}

  std::optional<ir::Trace> build(Grammar::FuncdefContext *def);

private:
  ir::SourceLoc loc(antlr4::ParserRuleContext *context) const { return locationOf(file_, context); }
  ir::SourceLoc loc(antlr4::tree::TerminalNode *node) const { return locationOf(file_, node->getSymbol()); }
  bool fail(ir::SourceLoc at, std::string message) {
    diagnostics_.error(at, std::move(message));
    return false;
  }

  bool readStatement(Grammar::StmtContext *stmt);
  bool readSmallStatement(Grammar::Small_stmtContext *small);
  bool readResultNames(Grammar::TestlistContext *targets, ir::TraceStep &step);
  // `sch.<primitive>(...)`: the primitive's name and argument list; null when expr is not one.
  Grammar::CallExprContext *asScheduleCall(Grammar::ExprContext *expr, std::string &primitive);
  // A call that may be indexed by one integer, as in `sch.get_loops(b)[-1]`.
  struct IndexedCall {
    Grammar::ExprContext *callee;     // expr without the index
    Grammar::CallExprContext *call;   // null when callee is not `sch.<primitive>(...)`
    std::string primitive;
    std::optional<int64_t> index;
  };
  // nullopt (diagnosed) when the index is not one integer.
  std::optional<IndexedCall> readIndexedCall(Grammar::ExprContext *expr);
  // Appends the step of `call` (and, first, the steps of calls nested in its arguments).
  std::optional<ir::TraceStep> readCall(Grammar::CallExprContext *call, const std::string &primitive);
  std::optional<ir::TraceValue> readValue(Grammar::ExprContext *expr);
  std::optional<ir::TraceValue> readAtom(Grammar::AtomContext *atom);
  std::optional<ir::TraceValue> readSequence(const std::vector<Grammar::ExprContext *> &items, ir::SourceLoc at);
  // `lambda i, j: (...)` (an index map) and the index expressions of its results.
  std::optional<ir::TraceValue> readLambda(Grammar::LambdaExprContext *lambda);
  // `params` names the variadic parameter `*name`.
  std::optional<ir::TraceValue> readIndexExpr(Grammar::ExprContext *expr, const std::vector<std::string> &params);
  // `*indices` among the results: the variadic parameter's indices, in order.
  std::optional<ir::TraceValue> readUnpacked(Grammar::StarredExprContext *starred, const std::vector<std::string> &params);
  // `T.int8(0)`, `T.float32(0.5)`: a constant of a dtype, as TVM prints a pad value's.
  std::optional<ir::TraceValue> readTypedConstant(Grammar::CallExprContext *call);

  const SourceFile &file_;
  DiagnosticEngine &diagnostics_;
  ir::Trace trace_;
  int nestedCalls_ = 0;
};

std::optional<ir::Trace> TraceBuilder::build(Grammar::FuncdefContext *def) {
  trace_.name = def->NAME()->getText();
  trace_.loc = loc(def->NAME());
  auto parameters = def->parameters()->parameter();
  if (parameters.size() != 1) {
    fail(loc(parameters[1]), "a schedule def takes one parameter, 'sch'");
    return std::nullopt;
  }
  bool ok = true;
  Grammar::SuiteContext *suite = def->suite();
  if (auto *simple = suite->simple_stmt()) {
    for (auto *small : simple->small_stmt())
      ok &= readSmallStatement(small);
  } else {
    for (auto *stmt : suite->stmt())
      ok &= readStatement(stmt);
  }
  if (!ok) return std::nullopt;
  return std::move(trace_);
}

bool TraceBuilder::readStatement(Grammar::StmtContext *stmt) {
  if (auto *compound = stmt->compound_stmt())
    return fail(loc(compound), "a schedule holds only `sch.<primitive>(...)` steps, one per line");
  bool ok = true;
  for (auto *small : stmt->simple_stmt()->small_stmt())
    ok &= readSmallStatement(small);
  return ok;
}

bool TraceBuilder::readSmallStatement(Grammar::Small_stmtContext *small) {
  if (small->PASS()) return true;
  auto *exprStmt = small->expr_stmt();
  if (!exprStmt || exprStmt->annassign() || exprStmt->augassign())
    return fail(loc(small), "a schedule holds only `sch.<primitive>(...)` steps, one per line");
  auto testlists = exprStmt->testlist();
  Grammar::TestlistContext *value = testlists.back();
  if (!exprStmt->ASSIGN() && small->getStart()->getType() == Grammar::STRING)
    return true;  // a docstring
  if (value->expr().size() != 1 || !value->COMMA().empty())
    return fail(loc(value), "expected one `sch.<primitive>(...)` call");
  std::optional<IndexedCall> indexed = readIndexedCall(value->expr(0));
  if (!indexed) return false;
  if (!indexed->call) return fail(loc(indexed->callee), "expected a call `sch.<primitive>(...)`");
  std::optional<ir::TraceStep> step = readCall(indexed->call, indexed->primitive);
  if (!step) return false;
  const std::optional<int64_t> index = indexed->index;
  step->resultIndex = index;
  if (exprStmt->ASSIGN()) {
    if (testlists.size() != 2)
      return fail(loc(testlists[1]), "a step binds its results once (`a, b = sch...`)");
    if (!readResultNames(testlists[0], *step)) return false;
    if (index && (step->results.size() != 1 || step->resultsAreList))
      return fail(loc(testlists[0]), "an indexed result binds one name");
  } else if (index) {
    return fail(loc(indexed->callee), "an indexed result must be bound to a name");
  }
  trace_.steps.push_back(std::move(*step));
  return true;
}

bool TraceBuilder::readResultNames(Grammar::TestlistContext *targets, ir::TraceStep &step) {
  std::vector<Grammar::ExprContext *> names = targets->expr();
  step.resultsAreList = names.size() > 1 || !targets->COMMA().empty();
  // Python's bracketed targets, as TVM's tests write them by hand: `(l,) = ...`, `[i, j] = ...`.
  if (auto *atom = names.size() == 1 ? exactly<Grammar::AtomExprContext>(names[0]) : nullptr) {
    if (auto *paren = exactly<Grammar::ParenAtomContext>(atom->atom())) {
      names = paren->expr();
      step.resultsAreList = names.size() > 1 || !paren->COMMA().empty();
    } else if (auto *list = exactly<Grammar::ListAtomContext>(atom->atom())) {
      names = list->expr();
      step.resultsAreList = true;
    }
  }
  for (auto *target : names) {
    auto *atom = exactly<Grammar::AtomExprContext>(target);
    auto *name = atom ? exactly<Grammar::NameAtomContext>(atom->atom()) : nullptr;
    if (!name) return fail(loc(target), "a step's results are bound to plain names");
    step.results.push_back(name->NAME()->getText());
  }
  return true;
}

std::optional<TraceBuilder::IndexedCall> TraceBuilder::readIndexedCall(Grammar::ExprContext *expr) {
  IndexedCall indexed{expr, nullptr, {}, std::nullopt};
  if (auto *subscript = exactly<Grammar::SubscriptExprContext>(expr)) {
    auto subscripts = subscript->subscriptlist()->subscript();
    std::optional<ir::TraceValue> position;
    if (subscripts.size() == 1 && !subscripts[0]->slice_tail())
      position = readValue(subscripts[0]->expr());
    if (!position || position->kind != ir::TraceValue::Kind::Int) {
      fail(loc(subscript->subscriptlist()), "a step's result can be indexed by one integer only");
      return std::nullopt;
    }
    indexed.index = position->intValue;
    indexed.callee = subscript->expr();
  }
  indexed.call = asScheduleCall(indexed.callee, indexed.primitive);
  return indexed;
}

Grammar::CallExprContext *TraceBuilder::asScheduleCall(Grammar::ExprContext *expr, std::string &primitive) {
  auto *call = exactly<Grammar::CallExprContext>(expr);
  auto *method = call ? exactly<Grammar::AttributeExprContext>(call->expr()) : nullptr;
  auto *receiver = method ? exactly<Grammar::AtomExprContext>(method->expr()) : nullptr;
  auto *name = receiver ? exactly<Grammar::NameAtomContext>(receiver->atom()) : nullptr;
  if (!name || name->NAME()->getText() != "sch") return nullptr;
  primitive = method->NAME()->getText();
  return call;
}

std::optional<ir::TraceStep> TraceBuilder::readCall(Grammar::CallExprContext *call, const std::string &primitive) {
  ir::TraceStep step;
  step.primitive = primitive;
  step.loc = loc(call);
  bool sawKeyword = false;
  if (auto *arglist = call->arglist()) {
    for (auto *argument : arglist->argument()) {
      ir::TraceArgument read;
      Grammar::ExprContext *valueExpr;
      if (auto *keyword = exactly<Grammar::KeywordArgumentContext>(argument)) {
        read.keyword = keyword->NAME()->getText();
        valueExpr = keyword->expr();
        sawKeyword = true;
      } else {
        valueExpr = exactly<Grammar::PositionalArgumentContext>(argument)->expr();
        if (sawKeyword) {
          fail(loc(argument), "positional argument follows keyword argument");
          return std::nullopt;
        }
      }
      std::optional<ir::TraceValue> value = readValue(valueExpr);
      if (!value) return std::nullopt;
      read.value = std::move(*value);
      step.arguments.push_back(std::move(read));
    }
  }
  return step;
}

std::optional<ir::TraceValue> TraceBuilder::readValue(Grammar::ExprContext *expr) {
  ir::SourceLoc at = loc(expr);
  if (auto *atom = exactly<Grammar::AtomExprContext>(expr))
    return readAtom(atom->atom());
  if (auto *unary = exactly<Grammar::UnaryExprContext>(expr)) {
    std::optional<ir::TraceValue> operand = readValue(unary->expr());
    if (!operand) return std::nullopt;
    bool negate = unary->op->getType() == Grammar::MINUS;
    if (unary->op->getType() != Grammar::TILDE) {
      if (operand->kind == ir::TraceValue::Kind::Int)
        return ir::TraceValue::ofInt(negate ? -operand->intValue : operand->intValue, at);
      if (operand->kind == ir::TraceValue::Kind::Float)
        return ir::TraceValue::ofFloat(negate ? -operand->floatValue : operand->floatValue, at);
    }
  }
  if (auto *lambda = exactly<Grammar::LambdaExprContext>(expr)) return readLambda(lambda);
  std::optional<IndexedCall> indexed = readIndexedCall(expr);
  if (!indexed) return std::nullopt;
  if (indexed->call) {
    // A nested call is a step of its own whose single result (or indexed result) is passed on.
    const std::string &primitive = indexed->primitive;
    std::optional<ir::TraceStep> step = readCall(indexed->call, primitive);
    if (!step) return std::nullopt;
    step->resultIndex = indexed->index;
    // Not a Python name, so it cannot clash; ir::describeTraceName shows it as the call.
    std::string name = "%" + std::to_string(++nestedCalls_) + ":sch." + primitive + "(...)";
    step->results.push_back(name);
    trace_.steps.push_back(std::move(*step));
    return ir::TraceValue::ofName(name, at);
  }
  fail(at, "a schedule argument is a literal, a name or a `sch.<primitive>(...)` call");
  return std::nullopt;
}

std::optional<ir::TraceValue> TraceBuilder::readLambda(Grammar::LambdaExprContext *lambda) {
  ir::TraceValue result = ir::TraceValue::none(loc(lambda));
  result.kind = ir::TraceValue::Kind::Lambda;
  // The parameters' names, `*name` for the variadic one (which TVM's IndexMap.from_func allows).
  std::vector<std::string> params;
  if (lambda->lambda_params())
    for (auto *lambdaParam : lambda->lambda_params()->lambda_param()) {
      ir::TraceValue param = ir::TraceValue::ofString(lambdaParam->NAME()->getText(), loc(lambdaParam));
      param.kind = ir::TraceValue::Kind::Param;
      param.starred = lambdaParam->STAR() != nullptr;
      if (param.starred && std::any_of(params.begin(), params.end(), [](const std::string &p) { return p[0] == '*'; })) {
        fail(param.loc, "a lambda has at most one *parameter");
        return std::nullopt;
      }
      params.push_back((param.starred ? "*" : "") + param.text);
      result.items.push_back(std::move(param));
    }
  // The results: a tuple or list of index expressions, or one expression.
  Grammar::ExprContext *body = lambda->expr();
  std::vector<Grammar::ExprContext *> items{body};
  if (auto *atom = exactly<Grammar::AtomExprContext>(body)) {
    if (auto *paren = exactly<Grammar::ParenAtomContext>(atom->atom())) items = paren->expr();
    if (auto *list = exactly<Grammar::ListAtomContext>(atom->atom())) items = list->expr();
  }
  ir::TraceValue results = ir::TraceValue::ofList({}, loc(body));
  for (auto *item : items) {
    // TVM's IndexMap.AXIS_SEPARATOR (also spelled tvm.te.AXIS_SEPARATOR) between two results.
    if (auto *attribute = exactly<Grammar::AttributeExprContext>(item);
        attribute && attribute->NAME()->getText() == "AXIS_SEPARATOR") {
      results.items.push_back(ir::TraceValue::ofString("AXIS_SEPARATOR", loc(item)));
      continue;
    }
    std::optional<ir::TraceValue> index = exactly<Grammar::StarredExprContext>(item)
                                              ? readUnpacked(exactly<Grammar::StarredExprContext>(item), params)
                                              : readIndexExpr(item, params);
    if (!index) return std::nullopt;
    results.items.push_back(std::move(*index));
  }
  result.items.push_back(std::move(results));
  return result;
}

std::optional<ir::TraceValue> TraceBuilder::readIndexExpr(Grammar::ExprContext *expr,
                                                          const std::vector<std::string> &params) {
  ir::SourceLoc at = loc(expr);
  auto *atom = exactly<Grammar::AtomExprContext>(expr);
  if (auto *paren = atom ? exactly<Grammar::ParenAtomContext>(atom->atom()) : nullptr;
      paren && paren->expr().size() == 1 && paren->COMMA().empty())
    return readIndexExpr(paren->expr(0), params);
  if (auto *name = atom ? exactly<Grammar::NameAtomContext>(atom->atom()) : nullptr) {
    ir::TraceValue value = ir::TraceValue::ofName(name->getText(), at);
    if (std::find(params.begin(), params.end(), "*" + value.text) != params.end()) {
      fail(at, "'" + value.text + "' is the lambda's *parameter, several indices: unpack it among the results as *" +
                   value.text);
      return std::nullopt;
    }
    if (std::find(params.begin(), params.end(), value.text) != params.end()) value.kind = ir::TraceValue::Kind::Param;
    return value;
  }
  if (atom && exactly<Grammar::IntAtomContext>(atom->atom())) return readAtom(atom->atom());
  if (auto *call = exactly<Grammar::CallExprContext>(expr)) return readTypedConstant(call);
  if (auto *unary = exactly<Grammar::UnaryExprContext>(expr); unary && unary->op->getType() == Grammar::MINUS) {
    std::optional<ir::TraceValue> operand = readValue(expr);
    if (operand && operand->kind == ir::TraceValue::Kind::Int) return operand;
  }
  Grammar::ExprContext *lhs = nullptr, *rhs = nullptr;
  std::string op;
  if (auto *add = exactly<Grammar::AddExprContext>(expr)) {
    lhs = add->expr(0), rhs = add->expr(1), op = add->op->getText();
  } else if (auto *mul = exactly<Grammar::MulExprContext>(expr); mul && mul->op->getType() != Grammar::SLASH &&
                                                                  mul->op->getType() != Grammar::AT) {
    lhs = mul->expr(0), rhs = mul->expr(1), op = mul->op->getText();
  }
  if (!lhs) {
    fail(at, "an index map result is built from its parameters, integers and sampled values with +, -, *, // and %");
    return std::nullopt;
  }
  std::optional<ir::TraceValue> a = readIndexExpr(lhs, params), b = a ? readIndexExpr(rhs, params) : std::nullopt;
  if (!b) return std::nullopt;
  ir::TraceValue result = ir::TraceValue::ofList({std::move(*a), std::move(*b)}, at);
  result.kind = ir::TraceValue::Kind::Operation;
  result.text = op;
  return result;
}

std::optional<ir::TraceValue> TraceBuilder::readUnpacked(Grammar::StarredExprContext *starred,
                                                         const std::vector<std::string> &params) {
  auto *atom = exactly<Grammar::AtomExprContext>(starred->expr());
  auto *name = atom ? exactly<Grammar::NameAtomContext>(atom->atom()) : nullptr;
  if (!name || std::find(params.begin(), params.end(), "*" + name->getText()) == params.end()) {
    fail(loc(starred), "only the lambda's *parameter can be unpacked among its results");
    return std::nullopt;
  }
  ir::TraceValue value = ir::TraceValue::ofString(name->getText(), loc(starred));
  value.kind = ir::TraceValue::Kind::Param;
  value.starred = true;
  return value;
}

std::optional<ir::TraceValue> TraceBuilder::readTypedConstant(Grammar::CallExprContext *call) {
  ir::SourceLoc at = loc(call);
  auto *method = exactly<Grammar::AttributeExprContext>(call->expr());
  auto *receiver = method ? exactly<Grammar::AtomExprContext>(method->expr()) : nullptr;
  auto *module = receiver ? exactly<Grammar::NameAtomContext>(receiver->atom()) : nullptr;
  std::optional<ir::DataType> dtype = module && module->NAME()->getText() == "T"
                                          ? ir::DataType::parse(method->NAME()->getText())
                                          : std::nullopt;
  auto *arglist = call->arglist();
  auto *argument = arglist && arglist->argument().size() == 1
                       ? exactly<Grammar::PositionalArgumentContext>(arglist->argument(0))
                       : nullptr;
  std::optional<ir::TraceValue> value = dtype && argument ? readValue(argument->expr()) : std::nullopt;
  bool isNumber = value && (value->kind == ir::TraceValue::Kind::Int || value->kind == ir::TraceValue::Kind::Float);
  if (!isNumber || (value->kind == ir::TraceValue::Kind::Float && !dtype->isFloat()) ||
      !(dtype->isIntOrUInt() || dtype->isFloat()) || dtype->lanes() != 1) {
    fail(at, "a call in an index map is a typed constant `T.<dtype>(number)`, such as T.int8(0) or T.float32(0.5)");
    return std::nullopt;
  }
  if (dtype->isFloat() && value->kind == ir::TraceValue::Kind::Int) value = ir::TraceValue::ofFloat(double(value->intValue), at);
  value->dtype = dtype->str();
  value->loc = at;
  return value;
}

std::optional<ir::TraceValue> TraceBuilder::readSequence(const std::vector<Grammar::ExprContext *> &items,
                                                         ir::SourceLoc at) {
  std::vector<ir::TraceValue> values;
  for (auto *item : items) {
    std::optional<ir::TraceValue> value = readValue(item);
    if (!value) return std::nullopt;
    values.push_back(std::move(*value));
  }
  return ir::TraceValue::ofList(std::move(values), at);
}

std::optional<ir::TraceValue> TraceBuilder::readAtom(Grammar::AtomContext *atom) {
  ir::SourceLoc at = loc(atom);
  if (auto *name = exactly<Grammar::NameAtomContext>(atom))
    return ir::TraceValue::ofName(name->NAME()->getText(), at);
  if (auto *integer = exactly<Grammar::IntAtomContext>(atom)) {
    std::optional<int64_t> value = parseIntegerLiteral(integer->INTEGER()->getText());
    if (!value) {
      fail(at, "integer literal " + integer->INTEGER()->getText() + " does not fit in 64 bits");
      return std::nullopt;
    }
    return ir::TraceValue::ofInt(*value, at);
  }
  if (auto *number = exactly<Grammar::FloatAtomContext>(atom))
    return ir::TraceValue::ofFloat(std::strtod(withoutUnderscores(number->FLOAT_NUMBER()->getText()).c_str(), nullptr), at);
  if (auto *strings = exactly<Grammar::StringAtomContext>(atom)) {
    std::string text;
    for (auto *piece : strings->STRING())
      text += decodeStringLiteral(piece->getText());
    return ir::TraceValue::ofString(std::move(text), at);
  }
  if (exactly<Grammar::NoneAtomContext>(atom)) return ir::TraceValue::none(at);
  if (exactly<Grammar::TrueAtomContext>(atom)) return ir::TraceValue::ofBool(true, at);
  if (exactly<Grammar::FalseAtomContext>(atom)) return ir::TraceValue::ofBool(false, at);
  if (auto *paren = exactly<Grammar::ParenAtomContext>(atom)) {
    if (paren->expr().size() == 1 && paren->COMMA().empty()) return readValue(paren->expr(0));
    std::optional<ir::TraceValue> tuple = readSequence(paren->expr(), at);
    if (tuple) tuple->isTuple = true;
    return tuple;
  }
  if (auto *list = exactly<Grammar::ListAtomContext>(atom))
    return readSequence(list->expr(), at);
  auto *dict = exactly<Grammar::DictAtomContext>(atom);
  ir::TraceValue result = ir::TraceValue::none(at);
  result.kind = ir::TraceValue::Kind::Dict;
  for (auto *entry : dict->dict_entry()) {
    std::optional<ir::TraceValue> key = readValue(entry->expr(0));
    if (!key) return std::nullopt;
    if (key->kind != ir::TraceValue::Kind::String) {
      fail(key->loc, "a dictionary key in a schedule is a string");
      return std::nullopt;
    }
    std::optional<ir::TraceValue> value = readValue(entry->expr(1));
    if (!value) return std::nullopt;
    result.items.push_back(std::move(*key));
    result.items.push_back(std::move(*value));
  }
  return result;
}

} // namespace

Grammar::FuncdefContext *scheduleDefinition(Grammar::StmtContext *stmt) {
  auto *compound = stmt ? stmt->compound_stmt() : nullptr;
  auto *def = compound ? compound->funcdef() : nullptr;
  auto *parameters = def ? def->parameters() : nullptr;
  if (!parameters || parameters->parameter(0)->NAME()->getText() != "sch") return nullptr;
  return def;
}

std::optional<ir::Trace> buildTrace(const SourceFile &file, DiagnosticEngine &diagnostics, Grammar::FuncdefContext *def) {
  return TraceBuilder(file, diagnostics).build(def);
}

std::optional<ir::Trace> readTrace(const SourceFile &file, DiagnosticEngine &diagnostics) {
  std::optional<ParsedModule> parsed = parseModule(file, diagnostics);
  return parsed ? std::move(parsed->schedule) : std::nullopt;
}

} // namespace vtac::frontend
