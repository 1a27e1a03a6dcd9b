// Reducers: `T.comm_reducer(lambda x, y: x + y, [T.float32(0)])`, the combining function of a
// cross-thread reduction, built as TVM's script parser builds it (tvm.tir.comm_reducer): each
// lambda parameter becomes a variable typed like its identity element (a Python int makes
// int32), the first half of the parameters are the reducer's lhs and the second half its rhs,
// and the body (one expression, or a tuple of one per identity element) its results.
//
// The call is evaluated from the parse tree, not from evaluated arguments, because the lambda
// is only meaningful here. The reducer must be closed (vtac/ir/CommReducer.h): its results use
// only its parameters, its identities are constants.
#include "FunctionBuilder.h"

#include "vtac/ir/Visitor.h"

#include <unordered_set>

namespace vtac::frontend {

namespace {

// The combiner and identity arguments, positional or by keyword.
struct ReducerArgs {
  Grammar::ExprContext *combiner = nullptr;
  Grammar::ExprContext *identity = nullptr;
};

} // namespace

// The first variable or buffer a result uses besides the reducer's parameters, for the error.
static std::string firstForeignName(const ir::Expr &result,
                                    const std::unordered_set<const ir::Node *> &parameters) {
  std::string found;
  ir::preOrderVisit(result, [&](const ir::Node &node) {
    if (!found.empty())
      return;
    if (const auto *var = node.as<ir::Var>(); var && !parameters.count(var))
      found = "'" + var->name + "'";
    else if (const auto *load = node.as<ir::BufferLoad>())
      found = "buffer '" + load->buffer->name + "'";
  });
  return found;
}

Value FunctionBuilder::evalCommReducer(Grammar::ArglistContext *arglist, ir::SourceLoc at) {
  ReducerArgs args;
  bool ok = true;
  size_t position = 0;
  for (auto *argument : arglist ? arglist->argument() : std::vector<Grammar::ArgumentContext *>{}) {
    if (auto *keyword = exactly<Grammar::KeywordArgumentContext>(argument)) {
      std::string name = keyword->NAME()->getText();
      Grammar::ExprContext **slot = name == "combiner" ? &args.combiner
                                    : name == "identity" ? &args.identity
                                                         : nullptr;
      if (!slot || *slot) {
        error(loc(keyword), slot ? "keyword argument '" + name + "' repeated"
                                 : "T.comm_reducer has no argument '" + name + "'");
        ok = false;
        continue;
      }
      *slot = keyword->expr();
      continue;
    }
    auto *positional = static_cast<Grammar::PositionalArgumentContext *>(argument);
    if (position == 0)
      args.combiner = positional->expr();
    else if (position == 1)
      args.identity = positional->expr();
    else {
      error(loc(positional), "T.comm_reducer takes a combiner and a list of identity elements");
      ok = false;
    }
    ++position;
  }
  if (!args.combiner || !args.identity) {
    error(at, "T.comm_reducer takes a combiner and a list of identity elements");
    return Value::invalid();
  }

  // The identity elements: constants, which also give the parameters their dtypes.
  Value identityList = eval(args.identity);
  if (identityList.isInvalid())
    return identityList;
  if (!identityList.isSequence() || identityList.items.empty()) {
    error(identityList.loc, "the identity elements of T.comm_reducer must be a non-empty list");
    return Value::invalid();
  }
  std::vector<ir::Expr> identity;
  for (const Value &item : identityList.items) {
    ir::Expr element = toExpr(item, "an identity element");
    if (element && !element.isa<ir::IntImm>() && !element.isa<ir::FloatImm>()) {
      error(item.loc, "an identity element of T.comm_reducer must be a constant");
      element = nullptr;
    }
    ok &= bool(element);
    identity.push_back(element);
  }

  auto *lambda = exactly<Grammar::LambdaExprContext>(args.combiner);
  if (!lambda) {
    error(loc(args.combiner), "the combiner of T.comm_reducer must be a lambda, as in "
                              "lambda x, y: x + y");
    return Value::invalid();
  }
  std::vector<antlr4::tree::TerminalNode *> names;
  if (lambda->lambda_params())
    for (auto *param : lambda->lambda_params()->lambda_param()) {
      if (param->STAR()) {
        error(loc(param), "the lambda of T.comm_reducer takes named parameters, not *" + param->NAME()->getText());
        return Value::invalid();
      }
      names.push_back(param->NAME());
    }
  size_t count = identity.size();
  if (names.size() != 2 * count) {
    error(loc(lambda), "the lambda of T.comm_reducer takes " + std::to_string(names.size()) +
                           " parameters, but " + std::to_string(count) + " identity element" +
                           (count == 1 ? " needs " : "s need ") + std::to_string(2 * count) +
                           " (the left values, then the right values)");
    return Value::invalid();
  }
  if (!ok)
    return Value::invalid();

  std::vector<ir::VarRef> parameters;
  std::unordered_set<const ir::Node *> parameterSet;
  pushScope();
  for (size_t i = 0; i < names.size(); ++i) {
    ir::VarRef var = ir::makeVar(names[i]->getText(), identity[i % count]->dtype, loc(names[i]));
    define(var->name, Value::ofExpr(var, loc(names[i])), loc(names[i]));
    parameters.push_back(var);
    parameterSet.insert(var.get());
  }
  Value body = eval(lambda->expr());
  popScope();
  if (body.isInvalid())
    return body;

  // One result per identity element: a tuple, or the expression itself for one.
  std::vector<Value> results = body.kind == Value::Kind::Tuple ? body.items : std::vector<Value>{body};
  if (results.size() != count) {
    error(body.loc, "the lambda of T.comm_reducer returns " + std::to_string(results.size()) +
                        (results.size() == 1 ? " value" : " values") + " for " + std::to_string(count) +
                        " identity element" + (count == 1 ? "" : "s"));
    return Value::invalid();
  }
  std::vector<ir::Expr> resultExprs;
  for (size_t i = 0; i < count; ++i) {
    ir::DataType dtype = identity[i]->dtype;
    ir::Expr result = toExprOf(results[i], dtype, "a reducer result");
    if (!result) {
      ok = false;
      continue;
    }
    if (result->dtype != dtype) {
      error(results[i].loc, "result " + std::to_string(i) + " of T.comm_reducer has dtype " +
                                result->dtype.str() + ", but its identity element is " + dtype.str());
      ok = false;
    } else if (std::string foreign = firstForeignName(result, parameterSet); !foreign.empty()) {
      error(results[i].loc, "the lambda of T.comm_reducer may use only its parameters, not " + foreign);
      ok = false;
    }
    resultExprs.push_back(result);
  }
  if (!ok)
    return Value::invalid();
  std::vector<ir::VarRef> lhs(parameters.begin(), parameters.begin() + count);
  std::vector<ir::VarRef> rhs(parameters.begin() + count, parameters.end());
  Value reducer;
  reducer.kind = Value::Kind::Reducer;
  reducer.loc = at;
  reducer.reducer = ir::make<ir::CommReducer>(std::move(lhs), std::move(rhs), std::move(resultExprs),
                                              std::move(identity), at);
  return reducer;
}

} // namespace vtac::frontend
