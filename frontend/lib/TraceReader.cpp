// The schedule reader: runs a `def` taking `sch` (a subset of Python, docs/design.md) and
// records each `sch.<primitive>(...)` call it makes as a step of an ir::Trace.
#include "vtac/frontend/TraceReader.h"

#include "vtac/frontend/Frontend.h"
#include "vtac/ir/Diagnostic.h"

#include "Literals.h"
#include "ParseTreeCasts.h"
#include "ScheduleDefinition.h"
#include "SyntaxParser.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

namespace vtac::frontend {

using Grammar = grammar::TVMScriptParser;

namespace {

// A schedule runs at most this many statements, so that one cannot loop forever.
constexpr int64_t kMaxStatements = 100000;
// Helper calls nest at most this deep (a recursion without end stops here).
constexpr int kMaxCallDepth = 100;

using Kind = ir::TraceValue::Kind;

// A name that stands for a list of a step's results (`loops`, `loops[1:]`), not for one of them.
bool isResultList(const ir::TraceValue &value) { return value.kind == Kind::Name && !value.element && !value.starred; }

struct Scope;

// A value while the schedule runs: data (literals, lists, index maps, and names of the results
// of steps, which stand for what the step gives when the trace is applied), the schedule `sch`
// itself, or a helper def.
struct Value {
  enum class Is { Data, Schedule, Function };
  Is is = Is::Data;
  ir::TraceValue data;
  Grammar::FuncdefContext *function = nullptr;
  Scope *closure = nullptr;  // where the def stands; a helper cannot return a def, so it outlives it

  static Value of(ir::TraceValue data) { return Value{Is::Data, std::move(data)}; }
  static Value schedule() { return Value{Is::Schedule, {}}; }
  static Value helper(Grammar::FuncdefContext *def, Scope *closure) { return Value{Is::Function, {}, def, closure}; }
};

// A def's local names; names it does not bind are looked up where the def stands, as in Python.
struct Scope {
  std::map<std::string, Value> names;
  Scope *enclosing = nullptr;

  const Value *find(const std::string &name) const {
    for (const Scope *scope = this; scope; scope = scope->enclosing)
      if (auto it = scope->names.find(name); it != scope->names.end()) return &it->second;
    return nullptr;
  }
};

// How a statement ends: on to the next, out of a loop, out of a def, or with an error.
enum class Flow { Next, Break, Continue, Return, Error };

class TraceBuilder {
public:
  TraceBuilder(const SourceFile &file, DiagnosticEngine &diagnostics, const ir::ResultCounts &counts)
      : file_(file), diagnostics_(diagnostics), counts_(counts) {}

  std::optional<ir::Trace> build(Grammar::FuncdefContext *def);

private:
  ir::SourceLoc loc(antlr4::ParserRuleContext *context) const { return locationOf(file_, context); }
  ir::SourceLoc loc(antlr4::tree::TerminalNode *node) const { return locationOf(file_, node->getSymbol()); }
  bool fail(ir::SourceLoc at, std::string message) {
    // Once paused, the reader only unwinds: what it would say past the pause is not known yet.
    if (!trace_.pause) diagnostics_.error(at, std::move(message));
    return false;
  }
  Flow failFlow(ir::SourceLoc at, std::string message) {
    fail(at, std::move(message));
    return Flow::Error;
  }

  // Statements.
  Flow runSuite(Grammar::SuiteContext *suite);
  Flow runStatement(Grammar::StmtContext *stmt);
  Flow runSmallStatement(Grammar::Small_stmtContext *small);
  Flow runCompound(Grammar::Compound_stmtContext *compound);
  Flow runAssignment(Grammar::Expr_stmtContext *exprStmt);
  Flow runAugmentedAssignment(Grammar::Expr_stmtContext *exprStmt);
  Flow runIf(Grammar::If_stmtContext *ifStmt);
  Flow runFor(Grammar::For_stmtContext *forStmt);
  bool countStatement(ir::SourceLoc at);

  // Binding names.
  bool bind(const std::string &name, Value value);
  bool bindTargets(Grammar::ExprContext *target, Value value);
  bool bindTargets(const std::vector<Grammar::ExprContext *> &targets, bool isSequence, Value value, ir::SourceLoc at);
  bool bindLoopTarget(Grammar::TargetContext *target, Value value);
  bool bindLoopTargets(Grammar::TargetlistContext *targets, Value value);
  // The items of a sequence unpacked into `count` targets (one of them starred at `starred`).
  std::optional<std::vector<Value>> unpack(const Value &value, size_t count, std::optional<size_t> starred,
                                           ir::SourceLoc at);
  // The name the trace binds a result to: the Python name when the schedule binds it once, else a
  // name of its own (a helper's local, a loop's variable), which messages show as the Python name.
  std::string resultName(const std::string &python);

  // Expressions.
  std::optional<Value> evaluate(Grammar::ExprContext *expr);
  std::optional<ir::TraceValue> evaluateData(Grammar::ExprContext *expr);
  std::optional<Value> evaluateAtom(Grammar::AtomContext *atom);
  // List items and positional arguments, `*x` unpacked.
  bool appendItems(Grammar::ExprContext *item, std::vector<ir::TraceValue> &items);
  std::optional<Value> evaluateCall(Grammar::CallExprContext *call);
  std::optional<Value> evaluateSubscript(Grammar::SubscriptExprContext *subscript);
  std::optional<Value> evaluateArithmetic(Grammar::ExprContext *lhs, Grammar::ExprContext *rhs, size_t op,
                                          ir::SourceLoc at);
  std::optional<Value> evaluateComparison(Grammar::CompareExprContext *compare);
  // The results a list of a step's results holds (sliced, when `results` is), one name each
  // (`loops[0]`, `loops[1]`, ...), for what needs their count; when the applier has not told it
  // yet, nullopt: the reader pauses here (ir::TracePause).
  std::optional<ir::TraceValue> resultsAsList(const ir::TraceValue &results, ir::SourceLoc at);
  // Python's truth of a value known now; nullopt (diagnosed) for a result of a step.
  std::optional<bool> truth(const Value &value, ir::SourceLoc at);
  std::optional<int64_t> integer(Grammar::ExprContext *expr, const char *what);

  // Calls.
  // `sch.<primitive>(...)`: the primitive's name and argument list; null when expr is not one.
  Grammar::CallExprContext *asScheduleCall(Grammar::ExprContext *expr, std::string &primitive);
  std::optional<ir::TraceStep> readStep(Grammar::CallExprContext *call, const std::string &primitive);
  std::optional<Value> callHelper(const Value &function, Grammar::CallExprContext *call);
  std::optional<Value> callBuiltin(const std::string &name, Grammar::CallExprContext *call);

  // Index maps.
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
  const ir::ResultCounts &counts_;
  ir::Trace trace_;
  Scope *scope_ = nullptr;
  std::optional<Value> returned_;
  std::set<std::string> resultNames_;
  int hiddenNames_ = 0;
  int64_t statements_ = 0;
  int callDepth_ = 0;
};

std::optional<ir::Trace> TraceBuilder::build(Grammar::FuncdefContext *def) {
  trace_.name = def->NAME()->getText();
  trace_.loc = loc(def->NAME());
  auto parameters = def->parameters()->parameter();
  if (parameters.size() != 1) {
    fail(loc(parameters[1]), "a schedule def takes one parameter, 'sch'");
    return std::nullopt;
  }
  Scope global;
  global.names["sch"] = Value::schedule();
  scope_ = &global;
  Flow flow = runSuite(def->suite());
  if (flow == Flow::Error && !trace_.pause) return std::nullopt;
  return std::move(trace_);
}

bool TraceBuilder::countStatement(ir::SourceLoc at) {
  if (++statements_ <= kMaxStatements) return true;
  return fail(at, "the schedule has run " + std::to_string(kMaxStatements) +
                      " statements, as many as a schedule may (a loop that does not end?)");
}

Flow TraceBuilder::runSuite(Grammar::SuiteContext *suite) {
  if (auto *simple = suite->simple_stmt()) {
    for (auto *small : simple->small_stmt())
      if (Flow flow = runSmallStatement(small); flow != Flow::Next) return flow;
    return Flow::Next;
  }
  for (auto *stmt : suite->stmt())
    if (Flow flow = runStatement(stmt); flow != Flow::Next) return flow;
  return Flow::Next;
}

Flow TraceBuilder::runStatement(Grammar::StmtContext *stmt) {
  if (auto *compound = stmt->compound_stmt()) {
    if (!countStatement(loc(compound))) return Flow::Error;
    return runCompound(compound);
  }
  for (auto *small : stmt->simple_stmt()->small_stmt())
    if (Flow flow = runSmallStatement(small); flow != Flow::Next) return flow;
  return Flow::Next;
}

Flow TraceBuilder::runSmallStatement(Grammar::Small_stmtContext *small) {
  if (!countStatement(loc(small))) return Flow::Error;
  if (small->PASS()) return Flow::Next;
  if (small->BREAK()) return Flow::Break;
  if (small->CONTINUE()) return Flow::Continue;
  if (small->RETURN()) {
    if (!callDepth_ && !small->testlist()) return Flow::Return;
    if (!callDepth_) return failFlow(loc(small), "a schedule def returns nothing");
    returned_ = Value::of(ir::TraceValue::none(loc(small)));
    if (auto *value = small->testlist()) {
      if (value->expr().size() != 1 || !value->COMMA().empty()) {
        std::vector<ir::TraceValue> items;
        for (auto *item : value->expr())
          if (!appendItems(item, items)) return Flow::Error;
        returned_ = Value::of(ir::TraceValue::ofList(std::move(items), loc(value)));
        returned_->data.isTuple = true;
      } else {
        returned_ = evaluate(value->expr(0));
        if (!returned_) return Flow::Error;
        if (returned_->is == Value::Is::Function)
          return failFlow(loc(value), "a helper def returns data or results of steps, not a def");
      }
    }
    return Flow::Return;
  }
  auto *exprStmt = small->expr_stmt();
  if (!exprStmt || exprStmt->annassign())
    return failFlow(loc(small), "a schedule holds steps, assignments, `for`, `if`, helper defs and `pass`, "
                                "not this statement");
  if (exprStmt->augassign()) return runAugmentedAssignment(exprStmt);
  if (exprStmt->ASSIGN()) return runAssignment(exprStmt);
  Grammar::TestlistContext *value = exprStmt->testlist(0);
  if (small->getStart()->getType() == Grammar::STRING) return Flow::Next;  // a docstring
  if (value->expr().size() != 1 || !value->COMMA().empty())
    return failFlow(loc(value), "expected one `sch.<primitive>(...)` call");
  if (!exactly<Grammar::CallExprContext>(value->expr(0)))
    return failFlow(loc(value), "expected a call `sch.<primitive>(...)`");
  std::string primitive;
  if (auto *call = asScheduleCall(value->expr(0), primitive)) {
    // A step whose results, if any, are not used.
    std::optional<ir::TraceStep> step = readStep(call, primitive);
    if (!step) return Flow::Error;
    trace_.steps.push_back(std::move(*step));
    return Flow::Next;
  }
  return evaluate(value->expr(0)) ? Flow::Next : Flow::Error;
}

Flow TraceBuilder::runCompound(Grammar::Compound_stmtContext *compound) {
  if (auto *ifStmt = compound->if_stmt()) return runIf(ifStmt);
  if (auto *forStmt = compound->for_stmt()) return runFor(forStmt);
  if (auto *def = compound->funcdef()) {
    return bind(def->NAME()->getText(), Value::helper(def, scope_)) ? Flow::Next : Flow::Error;
  }
  if (compound->while_stmt())
    return failFlow(loc(compound), "a schedule has no `while` loops: loop `for ... in range(n)` or over a list");
  return failFlow(loc(compound), "a schedule holds steps, assignments, `for`, `if`, helper defs and `pass`, "
                                 "not this statement");
}

Flow TraceBuilder::runIf(Grammar::If_stmtContext *ifStmt) {
  std::optional<Value> condition = evaluate(ifStmt->expr());
  std::optional<bool> taken = condition ? truth(*condition, loc(ifStmt->expr())) : std::nullopt;
  if (!taken) return Flow::Error;
  if (*taken) return runSuite(ifStmt->suite());
  for (auto *elif : ifStmt->elif_clause()) {
    condition = evaluate(elif->expr());
    taken = condition ? truth(*condition, loc(elif->expr())) : std::nullopt;
    if (!taken) return Flow::Error;
    if (*taken) return runSuite(elif->suite());
  }
  if (auto *otherwise = ifStmt->else_clause()) return runSuite(otherwise->suite());
  return Flow::Next;
}

Flow TraceBuilder::runFor(Grammar::For_stmtContext *forStmt) {
  Grammar::TestlistContext *over = forStmt->testlist();
  std::optional<Value> sequence;
  if (over->expr().size() == 1 && over->COMMA().empty()) {
    sequence = evaluate(over->expr(0));
  } else {
    std::vector<ir::TraceValue> items;
    for (auto *item : over->expr())
      if (!appendItems(item, items)) return Flow::Error;
    sequence = Value::of(ir::TraceValue::ofList(std::move(items), loc(over)));
  }
  if (!sequence) return Flow::Error;
  if (sequence->is == Value::Is::Data && isResultList(sequence->data)) {
    std::optional<ir::TraceValue> results = resultsAsList(sequence->data, loc(over));
    if (!results) return Flow::Error;
    sequence->data = std::move(*results);
  }
  if (sequence->is != Value::Is::Data || sequence->data.kind != Kind::List)
    return failFlow(loc(over), "a `for` loops over range(...), a list or the results of a step");
  for (const ir::TraceValue &item : sequence->data.items) {
    if (!bindLoopTargets(forStmt->targetlist(), Value::of(item))) return Flow::Error;
    Flow flow = runSuite(forStmt->suite());
    if (flow == Flow::Break) break;
    if (flow == Flow::Return || flow == Flow::Error) return flow;
  }
  return Flow::Next;
}

Flow TraceBuilder::runAssignment(Grammar::Expr_stmtContext *exprStmt) {
  Grammar::TestlistContext *targets = exprStmt->testlist(0), *value = exprStmt->testlist(1);
  // `a, b = sch.split(...)`, `x = sch.get_loops(b)[-1]`: the step binds the names itself (the
  // trace then prints them as written when it fails).
  Grammar::ExprContext *callee = value->expr().size() == 1 && value->COMMA().empty() ? value->expr(0) : nullptr;
  std::optional<int64_t> index;
  if (auto *subscript = exactly<Grammar::SubscriptExprContext>(callee)) {
    std::string ignored;
    auto subscripts = subscript->subscriptlist()->subscript();
    if (asScheduleCall(subscript->expr(), ignored) && subscripts.size() == 1 && !subscripts[0]->slice_tail()) {
      std::optional<Value> position = evaluate(subscripts[0]->expr());
      if (!position) return Flow::Error;
      if (position->is == Value::Is::Data && position->data.kind == Kind::Int) {
        index = position->data.intValue;
        callee = subscript->expr();
      }
    }
  }
  std::string primitive;
  Grammar::CallExprContext *call = callee ? asScheduleCall(callee, primitive) : nullptr;
  if (!call) {
    std::optional<Value> evaluated;
    if (callee) {
      evaluated = evaluate(callee);
    } else {
      std::vector<ir::TraceValue> items;
      for (auto *item : value->expr())
        if (!appendItems(item, items)) return Flow::Error;
      evaluated = Value::of(ir::TraceValue::ofList(std::move(items), loc(value)));
      evaluated->data.isTuple = true;
    }
    if (!evaluated) return Flow::Error;
    bool isSequence = targets->expr().size() > 1 || !targets->COMMA().empty();
    return bindTargets(targets->expr(), isSequence, std::move(*evaluated), loc(targets)) ? Flow::Next : Flow::Error;
  }
  std::optional<ir::TraceStep> step = readStep(call, primitive);
  if (!step) return Flow::Error;
  step->resultIndex = index;
  // The targets, bracketed as TVM's tests write them by hand: `(l,) = ...`, `[i, j] = ...`.
  std::vector<Grammar::ExprContext *> names = targets->expr();
  step->resultsAreList = names.size() > 1 || !targets->COMMA().empty();
  if (auto *atom = names.size() == 1 ? exactly<Grammar::AtomExprContext>(names[0]) : nullptr) {
    if (auto *paren = exactly<Grammar::ParenAtomContext>(atom->atom())) {
      names = paren->expr();
      step->resultsAreList = names.size() > 1 || !paren->COMMA().empty();
    } else if (auto *list = exactly<Grammar::ListAtomContext>(atom->atom())) {
      names = list->expr();
      step->resultsAreList = true;
    }
  }
  std::vector<std::pair<std::string, ir::TraceValue>> bound;
  for (auto *target : names) {
    auto *starred = exactly<Grammar::StarredExprContext>(target);
    if (starred) {
      if (step->starredResult) return failFlow(loc(target), "a step's results are unpacked into one starred name at most");
      step->starredResult = step->results.size();
    }
    auto *atom = exactly<Grammar::AtomExprContext>(starred ? starred->expr() : target);
    auto *name = atom ? exactly<Grammar::NameAtomContext>(atom->atom()) : nullptr;
    if (!name) return failFlow(loc(target), "a step's results are bound to plain names");
    std::string python = name->NAME()->getText();
    std::string traced = python == "_" ? python : resultName(python);
    step->results.push_back(traced);
    if (python != "_") bound.emplace_back(python, ir::TraceValue::ofName(traced, loc(target)));
  }
  if (index && (step->results.size() != 1 || step->resultsAreList))
    return failFlow(loc(targets), "an indexed result binds one name");
  trace_.steps.push_back(std::move(*step));
  for (auto &[python, traced] : bound)
    if (!bind(python, Value::of(std::move(traced)))) return Flow::Error;
  return Flow::Next;
}

Flow TraceBuilder::runAugmentedAssignment(Grammar::Expr_stmtContext *exprStmt) {
  Grammar::TestlistContext *target = exprStmt->testlist(0), *value = exprStmt->testlist(1);
  if (target->expr().size() != 1 || value->expr().size() != 1)
    return failFlow(loc(target), "an augmented assignment takes one name and one value");
  static const std::map<size_t, size_t> operators = {
      {Grammar::ADD_ASSIGN, Grammar::PLUS}, {Grammar::SUB_ASSIGN, Grammar::MINUS},
      {Grammar::MUL_ASSIGN, Grammar::STAR}, {Grammar::FLOORDIV_ASSIGN, Grammar::FLOORDIV},
      {Grammar::MOD_ASSIGN, Grammar::PERCENT}};
  auto op = operators.find(exprStmt->augassign()->getStart()->getType());
  if (op == operators.end()) return failFlow(loc(exprStmt->augassign()), "a schedule's arithmetic is on integers: +, -, *, //, %");
  std::optional<Value> result = evaluateArithmetic(target->expr(0), value->expr(0), op->second, loc(target));
  return result && bindTargets(target->expr(0), std::move(*result)) ? Flow::Next : Flow::Error;
}

std::string TraceBuilder::resultName(const std::string &python) {
  if (resultNames_.insert(python).second) return python;
  return "%" + std::to_string(++hiddenNames_) + ":'" + python + "'";
}

bool TraceBuilder::bind(const std::string &name, Value value) {
  if (name == "_") return true;
  scope_->names[name] = std::move(value);
  return true;
}

bool TraceBuilder::bindTargets(Grammar::ExprContext *target, Value value) {
  auto *atom = exactly<Grammar::AtomExprContext>(target);
  if (auto *name = atom ? exactly<Grammar::NameAtomContext>(atom->atom()) : nullptr)
    return bind(name->NAME()->getText(), std::move(value));
  if (auto *paren = atom ? exactly<Grammar::ParenAtomContext>(atom->atom()) : nullptr)
    return bindTargets(paren->expr(), paren->expr().size() != 1 || !paren->COMMA().empty(), std::move(value), loc(target));
  if (auto *list = atom ? exactly<Grammar::ListAtomContext>(atom->atom()) : nullptr)
    return bindTargets(list->expr(), true, std::move(value), loc(target));
  return fail(loc(target), "an assignment binds plain names");
}

bool TraceBuilder::bindTargets(const std::vector<Grammar::ExprContext *> &targets, bool isSequence, Value value,
                               ir::SourceLoc at) {
  if (!isSequence) return bindTargets(targets[0], std::move(value));
  std::optional<size_t> starred;
  for (size_t i = 0; i < targets.size(); ++i)
    if (exactly<Grammar::StarredExprContext>(targets[i])) {
      if (starred) return fail(loc(targets[i]), "an assignment unpacks into one starred name at most");
      starred = i;
    }
  std::optional<std::vector<Value>> items = unpack(value, targets.size(), starred, at);
  if (!items) return false;
  for (size_t i = 0; i < targets.size(); ++i) {
    auto *star = exactly<Grammar::StarredExprContext>(targets[i]);
    if (!bindTargets(star ? star->expr() : targets[i], std::move((*items)[i]))) return false;
  }
  return true;
}

std::optional<std::vector<Value>> TraceBuilder::unpack(const Value &given, size_t count, std::optional<size_t> starred,
                                                       ir::SourceLoc at) {
  Value value = given;
  if (value.is == Value::Is::Data && isResultList(value.data) && value.data.slice) {
    // A slice's length depends on the list's: its items, once the applier has told how many.
    std::optional<ir::TraceValue> results = resultsAsList(value.data, at);
    if (!results) return std::nullopt;
    value.data = std::move(*results);
  }
  const ir::TraceValue &data = value.data;
  if (value.is == Value::Is::Data && isResultList(data)) {
    // The results of a step (a helper returned them): each name takes its element when the
    // trace is applied, which also checks how many there are.
    size_t named = count - (starred ? 1 : 0);
    std::vector<Value> result;
    for (size_t i = 0; i < count; ++i) {
      ir::TraceValue element = data;
      element.loc = at;
      bool afterStar = starred && i > *starred;
      if (starred == i) {
        element.slice = ir::TraceValue::Slice{int64_t(i), count - 1 - i ? std::optional<int64_t>(int64_t(i) + 1 - int64_t(count)) : std::nullopt};
      } else {
        element.element = afterStar ? int64_t(i) - int64_t(count) : int64_t(i);
        element.unpackedCount = starred ? std::nullopt : std::optional<int64_t>(int64_t(named));
      }
      result.push_back(Value::of(std::move(element)));
    }
    return result;
  }
  if (value.is != Value::Is::Data || data.kind != Kind::List) {
    fail(at, "only a list, a tuple or the results of a step can be unpacked");
    return std::nullopt;
  }
  const std::vector<ir::TraceValue> &items = value.data.items;
  size_t named = count - (starred ? 1 : 0);
  if (starred ? items.size() < named : items.size() != named) {
    fail(at, "cannot unpack " + std::to_string(items.size()) + " values into " + std::to_string(named) + " names");
    return std::nullopt;
  }
  std::vector<Value> result;
  size_t next = 0;
  for (size_t i = 0; i < count; ++i) {
    if (starred == i) {
      size_t rest = items.size() - named;
      result.push_back(Value::of(ir::TraceValue::ofList({items.begin() + next, items.begin() + next + rest}, at)));
      next += rest;
      continue;
    }
    result.push_back(Value::of(items[next++]));
  }
  return result;
}

bool TraceBuilder::bindLoopTarget(Grammar::TargetContext *target, Value value) {
  if (target->NAME()) return bind(target->NAME()->getText(), std::move(value));
  Grammar::TargetlistContext *inner = target->targetlist();
  if (!inner) return fail(loc(target), "a `for` binds names");
  return bindLoopTargets(inner, std::move(value));
}

bool TraceBuilder::bindLoopTargets(Grammar::TargetlistContext *targets, Value value) {
  auto items = targets->target();
  if (items.size() == 1 && targets->COMMA().empty()) return bindLoopTarget(items[0], std::move(value));
  std::optional<std::vector<Value>> values = unpack(value, items.size(), std::nullopt, loc(targets));
  if (!values) return false;
  for (size_t i = 0; i < items.size(); ++i)
    if (!bindLoopTarget(items[i], std::move((*values)[i]))) return false;
  return true;
}

std::optional<ir::TraceValue> TraceBuilder::evaluateData(Grammar::ExprContext *expr) {
  std::optional<Value> value = evaluate(expr);
  if (!value) return std::nullopt;
  if (value->is != Value::Is::Data) {
    fail(loc(expr), value->is == Value::Is::Schedule ? "the schedule `sch` is no argument of a step"
                                                     : "a helper def is no value of a step or a list");
    return std::nullopt;
  }
  return std::move(value->data);
}

bool TraceBuilder::appendItems(Grammar::ExprContext *item, std::vector<ir::TraceValue> &items) {
  auto *starred = exactly<Grammar::StarredExprContext>(item);
  std::optional<ir::TraceValue> value = evaluateData(starred ? starred->expr() : item);
  if (!value) return false;
  if (!starred) {
    items.push_back(std::move(*value));
  } else if (value->kind == Kind::List) {
    items.insert(items.end(), value->items.begin(), value->items.end());
  } else if (value->kind == Kind::Name && !value->element) {
    // Results of a step: unpacked when the trace is applied.
    value->starred = true;
    items.push_back(std::move(*value));
  } else {
    return fail(loc(item), "only a list or the results of a step can be unpacked with *");
  }
  return true;
}

std::optional<Value> TraceBuilder::evaluate(Grammar::ExprContext *expr) {
  ir::SourceLoc at = loc(expr);
  if (auto *atom = exactly<Grammar::AtomExprContext>(expr)) return evaluateAtom(atom->atom());
  if (auto *call = exactly<Grammar::CallExprContext>(expr)) return evaluateCall(call);
  if (auto *subscript = exactly<Grammar::SubscriptExprContext>(expr)) return evaluateSubscript(subscript);
  if (auto *lambda = exactly<Grammar::LambdaExprContext>(expr)) {
    std::optional<ir::TraceValue> map = readLambda(lambda);
    return map ? std::optional<Value>(Value::of(std::move(*map))) : std::nullopt;
  }
  if (auto *unary = exactly<Grammar::UnaryExprContext>(expr)) {
    std::optional<ir::TraceValue> operand = evaluateData(unary->expr());
    if (!operand) return std::nullopt;
    bool negate = unary->op->getType() == Grammar::MINUS;
    if (unary->op->getType() != Grammar::TILDE) {
      if (operand->kind == Kind::Int && !(negate && operand->intValue == INT64_MIN))
        return Value::of(ir::TraceValue::ofInt(negate ? -operand->intValue : operand->intValue, at));
      if (operand->kind == Kind::Float)
        return Value::of(ir::TraceValue::ofFloat(negate ? -operand->floatValue : operand->floatValue, at));
    }
    fail(at, "a schedule's arithmetic is on integers: +, -, *, //, %");
    return std::nullopt;
  }
  if (auto *mul = exactly<Grammar::MulExprContext>(expr)) return evaluateArithmetic(mul->expr(0), mul->expr(1), mul->op->getType(), at);
  if (auto *add = exactly<Grammar::AddExprContext>(expr)) return evaluateArithmetic(add->expr(0), add->expr(1), add->op->getType(), at);
  if (auto *power = exactly<Grammar::PowerExprContext>(expr)) return evaluateArithmetic(power->expr(0), power->expr(1), Grammar::POWER, at);
  if (auto *compare = exactly<Grammar::CompareExprContext>(expr)) return evaluateComparison(compare);
  if (auto *negation = exactly<Grammar::NotExprContext>(expr)) {
    std::optional<Value> operand = evaluate(negation->expr());
    std::optional<bool> value = operand ? truth(*operand, loc(negation->expr())) : std::nullopt;
    return value ? std::optional<Value>(Value::of(ir::TraceValue::ofBool(!*value, at))) : std::nullopt;
  }
  if (exactly<Grammar::AndExprContext>(expr) || exactly<Grammar::OrExprContext>(expr)) {
    // Python's: the first operand that decides, as it is.
    bool isAnd = exactly<Grammar::AndExprContext>(expr) != nullptr;
    Grammar::ExprContext *lhs = isAnd ? exactly<Grammar::AndExprContext>(expr)->expr(0) : exactly<Grammar::OrExprContext>(expr)->expr(0);
    Grammar::ExprContext *rhs = isAnd ? exactly<Grammar::AndExprContext>(expr)->expr(1) : exactly<Grammar::OrExprContext>(expr)->expr(1);
    std::optional<Value> first = evaluate(lhs);
    std::optional<bool> decided = first ? truth(*first, loc(lhs)) : std::nullopt;
    if (!decided) return std::nullopt;
    return *decided == isAnd ? evaluate(rhs) : first;
  }
  if (auto *conditional = exactly<Grammar::ConditionalExprContext>(expr)) {
    std::optional<Value> condition = evaluate(conditional->expr(1));
    std::optional<bool> taken = condition ? truth(*condition, loc(conditional->expr(1))) : std::nullopt;
    if (!taken) return std::nullopt;
    return evaluate(conditional->expr(*taken ? 0 : 2));
  }
  if (exactly<Grammar::StarredExprContext>(expr)) {
    fail(at, "*x unpacks into a list or the arguments of a call only");
    return std::nullopt;
  }
  fail(at, "a schedule argument is a literal, a name or a `sch.<primitive>(...)` call");
  return std::nullopt;
}

std::optional<Value> TraceBuilder::evaluateArithmetic(Grammar::ExprContext *lhs, Grammar::ExprContext *rhs, size_t op,
                                                      ir::SourceLoc at) {
  std::optional<ir::TraceValue> a = evaluateData(lhs), b = a ? evaluateData(rhs) : std::nullopt;
  if (!b) return std::nullopt;
  if (op == Grammar::PLUS && a->kind == Kind::List && b->kind == Kind::List) {
    ir::TraceValue joined = ir::TraceValue::ofList(a->items, at);
    joined.items.insert(joined.items.end(), b->items.begin(), b->items.end());
    return Value::of(std::move(joined));
  }
  auto isInteger = [](const ir::TraceValue &v) { return v.kind == Kind::Int || v.kind == Kind::Bool; };
  if (!isInteger(*a) || !isInteger(*b)) {
    fail(at, "a schedule's arithmetic is on integers: +, -, *, //, % and **");
    return std::nullopt;
  }
  int64_t x = a->kind == Kind::Bool ? a->boolValue : a->intValue, y = b->kind == Kind::Bool ? b->boolValue : b->intValue;
  int64_t result = 0;
  bool overflow = false;
  switch (op) {
  case Grammar::PLUS: overflow = __builtin_add_overflow(x, y, &result); break;
  case Grammar::MINUS: overflow = __builtin_sub_overflow(x, y, &result); break;
  case Grammar::STAR: overflow = __builtin_mul_overflow(x, y, &result); break;
  case Grammar::FLOORDIV:
  case Grammar::PERCENT: {
    if (y == 0) {
      fail(at, "integer division or modulo by zero");
      return std::nullopt;
    }
    if (x == INT64_MIN && y == -1) {
      overflow = true;
      break;
    }
    // Python's: the quotient rounded down, the remainder of the divisor's sign.
    int64_t quotient = x / y, remainder = x % y;
    if (remainder != 0 && ((remainder < 0) != (y < 0))) --quotient, remainder += y;
    result = op == Grammar::FLOORDIV ? quotient : remainder;
    break;
  }
  case Grammar::POWER:
    if (y < 0) {
      fail(at, "a negative power is no integer");
      return std::nullopt;
    }
    result = 1;
    for (int64_t i = 0; i < y && !overflow; ++i) overflow = __builtin_mul_overflow(result, x, &result);
    break;
  default:
    fail(at, "a schedule's arithmetic is on integers: +, -, *, //, % and **");
    return std::nullopt;
  }
  if (overflow) {
    fail(at, "integer arithmetic overflows 64 bits");
    return std::nullopt;
  }
  return Value::of(ir::TraceValue::ofInt(result, at));
}

std::optional<Value> TraceBuilder::evaluateComparison(Grammar::CompareExprContext *compare) {
  ir::SourceLoc at = loc(compare);
  std::optional<ir::TraceValue> a = evaluateData(compare->expr(0)), b = a ? evaluateData(compare->expr(1)) : std::nullopt;
  if (!b) return std::nullopt;
  size_t op = compare->comp_op()->getStart()->getType();
  bool isNot = compare->comp_op()->children.size() == 2;
  auto isInteger = [](const ir::TraceValue &v) { return v.kind == Kind::Int || v.kind == Kind::Bool; };
  auto number = [](const ir::TraceValue &v) { return v.kind == Kind::Bool ? int64_t(v.boolValue) : v.intValue; };
  if (a->kind == Kind::Name || b->kind == Kind::Name) {
    fail(at, "a comparison is of values known when the schedule is read, not of the results of steps");
    return std::nullopt;
  }
  bool result;
  if (op == Grammar::IS && (a->kind == Kind::None || b->kind == Kind::None)) {
    result = (a->kind == Kind::None && b->kind == Kind::None) != isNot;
  } else if (isInteger(*a) && isInteger(*b) && op != Grammar::IN && op != Grammar::IS && op != Grammar::NOT) {
    int64_t x = number(*a), y = number(*b);
    result = op == Grammar::LT ? x < y : op == Grammar::GT ? x > y : op == Grammar::EQ ? x == y
           : op == Grammar::GE ? x >= y : op == Grammar::LE ? x <= y : x != y;
  } else if ((op == Grammar::EQ || op == Grammar::NE) && a->kind == Kind::String && b->kind == Kind::String) {
    result = (a->text == b->text) == (op == Grammar::EQ);
  } else {
    fail(at, "a schedule compares integers (<, >, ==, !=, <=, >=), strings (==, !=) and None (is)");
    return std::nullopt;
  }
  return Value::of(ir::TraceValue::ofBool(result, at));
}

std::optional<ir::TraceValue> TraceBuilder::resultsAsList(const ir::TraceValue &results, ir::SourceLoc at) {
  auto count = counts_.find(results.text);
  if (count == counts_.end()) {
    trace_.pause = ir::TracePause{results.text, at, nullptr};
    return std::nullopt;
  }
  std::vector<size_t> indices;
  if (results.slice) {
    indices = ir::sliceIndices(*results.slice, count->second);
  } else {
    for (int64_t i = 0; i < count->second; ++i) indices.push_back(size_t(i));
  }
  ir::TraceValue list = ir::TraceValue::ofList({}, at);
  for (size_t index : indices) {
    ir::TraceValue item = ir::TraceValue::ofName(results.text, at);
    item.element = int64_t(index);
    list.items.push_back(std::move(item));
  }
  return list;
}

std::optional<bool> TraceBuilder::truth(const Value &value, ir::SourceLoc at) {
  if (value.is != Value::Is::Data) return true;
  const ir::TraceValue &v = value.data;
  switch (v.kind) {
  case Kind::None: return false;
  case Kind::Bool: return v.boolValue;
  case Kind::Int: return v.intValue != 0;
  case Kind::Float: return v.floatValue != 0;
  case Kind::String: return !v.text.empty();
  case Kind::List:
  case Kind::Dict: return !v.items.empty();
  default: break;
  }
  fail(at, "a condition is a value known when the schedule is read (an integer, a bool, None, a list), "
           "not the result of a step");
  return std::nullopt;
}

std::optional<int64_t> TraceBuilder::integer(Grammar::ExprContext *expr, const char *what) {
  std::optional<ir::TraceValue> value = evaluateData(expr);
  if (!value) return std::nullopt;
  if (value->kind == Kind::Int) return value->intValue;
  if (value->kind == Kind::Bool) return int64_t(value->boolValue);
  fail(loc(expr), std::string(what) + " is an integer");
  return std::nullopt;
}

std::optional<Value> TraceBuilder::evaluateSubscript(Grammar::SubscriptExprContext *subscript) {
  ir::SourceLoc at = loc(subscript->subscriptlist());
  std::optional<ir::TraceValue> base = evaluateData(subscript->expr());
  if (!base) return std::nullopt;
  auto subscripts = subscript->subscriptlist()->subscript();
  if (subscripts.size() != 1 || !subscript->subscriptlist()->COMMA().empty()) {
    fail(at, "a list is indexed by one integer or sliced");
    return std::nullopt;
  }
  Grammar::SubscriptContext *position = subscripts[0];
  if (isResultList(*base) && base->slice) {
    // A slice of a slice, an item of a slice: the items the first slice takes, once the applier
    // has told how many results there are.
    base = resultsAsList(*base, loc(subscript->expr()));
    if (!base) return std::nullopt;
  }
  bool isResults = isResultList(*base);
  if (base->kind != Kind::List && !isResults) {
    fail(loc(subscript->expr()), base->kind == Kind::Name ? "one result of a step is not indexed"
                                                          : "only a list or the results of a step can be indexed");
    return std::nullopt;
  }
  Grammar::Slice_tailContext *tail = position->slice_tail();
  if (!tail) {
    std::optional<int64_t> index = integer(position->expr(), "an index");
    if (!index) return std::nullopt;
    if (isResults) {
      base->element = *index;
      base->loc = loc(subscript);
      return Value::of(std::move(*base));
    }
    int64_t count = int64_t(base->items.size()), element = *index < 0 ? *index + count : *index;
    if (element < 0 || element >= count) {
      fail(at, "index " + std::to_string(*index) + " is out of range: the list holds " + std::to_string(count) + " items");
      return std::nullopt;
    }
    ir::TraceValue item = base->items[size_t(element)];
    return Value::of(std::move(item));
  }
  // A slice: `start:stop:step`, each part optional.
  ir::TraceValue::Slice slice;
  if (auto *start = position->expr()) {
    slice.start = integer(start, "a slice's start");
    if (!slice.start) return std::nullopt;
  }
  std::vector<Grammar::ExprContext *> parts = tail->expr();
  size_t colons = tail->COLON().size();
  for (auto *part : parts) {
    bool isStep = colons == 2 && (parts.size() == 2 ? part == parts[1] : part->getStart()->getTokenIndex() >
                                                                             tail->COLON(1)->getSymbol()->getTokenIndex());
    std::optional<int64_t> bound = integer(part, isStep ? "a slice's step" : "a slice's stop");
    if (!bound) return std::nullopt;
    (isStep ? slice.step : *(slice.stop = 0)) = *bound;
    if (isStep && *bound == 0) {
      fail(loc(part), "a slice's step is not zero");
      return std::nullopt;
    }
  }
  if (isResults) {
    base->slice = slice;
    base->loc = loc(subscript);
    return Value::of(std::move(*base));
  }
  // A list known now, sliced as Python does.
  ir::TraceValue result = ir::TraceValue::ofList({}, loc(subscript));
  result.isTuple = base->isTuple;
  for (size_t index : ir::sliceIndices(slice, int64_t(base->items.size()))) result.items.push_back(base->items[index]);
  return Value::of(std::move(result));
}

Grammar::CallExprContext *TraceBuilder::asScheduleCall(Grammar::ExprContext *expr, std::string &primitive) {
  auto *call = exactly<Grammar::CallExprContext>(expr);
  auto *method = call ? exactly<Grammar::AttributeExprContext>(call->expr()) : nullptr;
  auto *receiver = method ? exactly<Grammar::AtomExprContext>(method->expr()) : nullptr;
  auto *name = receiver ? exactly<Grammar::NameAtomContext>(receiver->atom()) : nullptr;
  const Value *value = name ? scope_->find(name->NAME()->getText()) : nullptr;
  if (!value || value->is != Value::Is::Schedule) return nullptr;
  primitive = method->NAME()->getText();
  return call;
}

std::optional<Value> TraceBuilder::evaluateCall(Grammar::CallExprContext *call) {
  std::string primitive;
  if (asScheduleCall(call, primitive)) {
    // A call in an expression is a step of its own whose results are passed on.
    std::optional<ir::TraceStep> step = readStep(call, primitive);
    if (!step) return std::nullopt;
    // Not a Python name, so it cannot clash; ir::describeTraceName shows it as the call.
    std::string name = "%" + std::to_string(++hiddenNames_) + ":sch." + primitive + "(...)";
    step->results.push_back(name);
    trace_.steps.push_back(std::move(*step));
    return Value::of(ir::TraceValue::ofName(name, loc(call)));
  }
  auto *callee = exactly<Grammar::AtomExprContext>(call->expr());
  auto *name = callee ? exactly<Grammar::NameAtomContext>(callee->atom()) : nullptr;
  if (!name) {
    fail(loc(call->expr()), "a schedule calls `sch.<primitive>(...)`, its helper defs, range and len");
    return std::nullopt;
  }
  if (const Value *function = scope_->find(name->NAME()->getText())) {
    if (function->is == Value::Is::Function) return callHelper(*function, call);
    fail(loc(call->expr()), "'" + name->NAME()->getText() + "' is not a def");
    return std::nullopt;
  }
  return callBuiltin(name->NAME()->getText(), call);
}

std::optional<Value> TraceBuilder::callBuiltin(const std::string &name, Grammar::CallExprContext *call) {
  ir::SourceLoc at = loc(call);
  std::vector<Grammar::ExprContext *> arguments;
  if (auto *arglist = call->arglist())
    for (auto *argument : arglist->argument()) {
      auto *positional = exactly<Grammar::PositionalArgumentContext>(argument);
      if (!positional) {
        fail(loc(argument), name + "() takes no keyword arguments");
        return std::nullopt;
      }
      arguments.push_back(positional->expr());
    }
  if (name == "range") {
    if (arguments.empty() || arguments.size() > 3) {
      fail(at, "range() takes 1 to 3 integers");
      return std::nullopt;
    }
    int64_t bounds[3] = {0, 0, 1};
    for (size_t i = 0; i < arguments.size(); ++i) {
      std::optional<int64_t> bound = integer(arguments[i], "an argument of range()");
      if (!bound) return std::nullopt;
      bounds[arguments.size() == 1 ? 1 : i] = *bound;
    }
    auto [start, stop, step] = bounds;
    if (step == 0) {
      fail(at, "range()'s step is not zero");
      return std::nullopt;
    }
    // Longer than a schedule can run: refused before the list is made.
    __int128 length = step > 0 ? (__int128(stop) - start + step - 1) / step : (__int128(start) - stop - step - 1) / -step;
    if (length > kMaxStatements) {
      fail(at, "range() of " + std::to_string(int64_t(length)) + " values is longer than a schedule may run (" +
                   std::to_string(kMaxStatements) + " statements)");
      return std::nullopt;
    }
    ir::TraceValue values = ir::TraceValue::ofList({}, at);
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) values.items.push_back(ir::TraceValue::ofInt(i, at));
    return Value::of(std::move(values));
  }
  if (name == "len") {
    if (arguments.size() != 1) {
      fail(at, "len() takes one list");
      return std::nullopt;
    }
    std::optional<ir::TraceValue> list = evaluateData(arguments[0]);
    if (!list) return std::nullopt;
    if (isResultList(*list)) {
      list = resultsAsList(*list, loc(arguments[0]));
      if (!list) return std::nullopt;
    }
    if (list->kind != Kind::List && list->kind != Kind::String) {
      fail(loc(arguments[0]), "len() takes a list");
      return std::nullopt;
    }
    return Value::of(ir::TraceValue::ofInt(int64_t(list->kind == Kind::String ? list->text.size() : list->items.size()), at));
  }
  fail(loc(call->expr()), "undefined name '" + name + "'");
  return std::nullopt;
}

std::optional<Value> TraceBuilder::callHelper(const Value &function, Grammar::CallExprContext *call) {
  Grammar::FuncdefContext *def = function.function;
  if (callDepth_ >= kMaxCallDepth) {
    fail(loc(call), "helper calls nest " + std::to_string(kMaxCallDepth) + " deep, as deep as a schedule may "
                    "(a recursion that does not end?)");
    return std::nullopt;
  }
  std::vector<Grammar::ParameterContext *> parameters;
  if (def->parameters()) parameters = def->parameters()->parameter();
  // The arguments, evaluated in the caller's scope.
  std::map<std::string, Value> bound;
  size_t nextPositional = 0;
  if (auto *arglist = call->arglist())
    for (auto *argument : arglist->argument()) {
      if (auto *keyword = exactly<Grammar::KeywordArgumentContext>(argument)) {
        std::string name = keyword->NAME()->getText();
        auto parameter = std::find_if(parameters.begin(), parameters.end(),
                                      [&](Grammar::ParameterContext *p) { return p->NAME()->getText() == name; });
        if (parameter == parameters.end()) {
          fail(loc(argument), "'" + def->NAME()->getText() + "' has no parameter '" + name + "'");
          return std::nullopt;
        }
        std::optional<Value> value = evaluate(keyword->expr());
        if (!value) return std::nullopt;
        if (!bound.emplace(name, std::move(*value)).second) {
          fail(loc(argument), "argument '" + name + "' given twice");
          return std::nullopt;
        }
        continue;
      }
      Grammar::ExprContext *expr = exactly<Grammar::PositionalArgumentContext>(argument)->expr();
      std::vector<Value> values;
      if (exactly<Grammar::StarredExprContext>(expr)) {
        std::vector<ir::TraceValue> items;
        if (!appendItems(expr, items)) return std::nullopt;
        for (ir::TraceValue &item : items) values.push_back(Value::of(std::move(item)));
      } else {
        std::optional<Value> value = evaluate(expr);
        if (!value) return std::nullopt;
        values.push_back(std::move(*value));
      }
      for (Value &value : values) {
        if (nextPositional >= parameters.size()) {
          fail(loc(argument), "too many arguments for '" + def->NAME()->getText() + "' (it takes " +
                                  std::to_string(parameters.size()) + ")");
          return std::nullopt;
        }
        std::string name = parameters[nextPositional++]->NAME()->getText();
        if (!bound.emplace(name, std::move(value)).second) {
          fail(loc(argument), "argument '" + name + "' given twice");
          return std::nullopt;
        }
      }
    }
  Scope local;
  local.enclosing = function.closure;
  for (auto *parameter : parameters) {
    std::string name = parameter->NAME()->getText();
    if (auto it = bound.find(name); it != bound.end()) {
      local.names[name] = std::move(it->second);
      continue;
    }
    if (parameter->ASSIGN()) {
      // A default, evaluated where the def stands.
      Scope *caller = scope_;
      scope_ = function.closure;
      std::optional<Value> value = evaluate(parameter->expr().back());
      scope_ = caller;
      if (!value) return std::nullopt;
      local.names[name] = std::move(*value);
      continue;
    }
    fail(loc(call), "'" + def->NAME()->getText() + "' needs the argument '" + name + "'");
    return std::nullopt;
  }
  Scope *caller = scope_;
  scope_ = &local;
  ++callDepth_;
  returned_.reset();
  Flow flow = runSuite(def->suite());
  --callDepth_;
  scope_ = caller;
  if (flow == Flow::Error) return std::nullopt;
  if (flow == Flow::Break || flow == Flow::Continue) {
    fail(loc(def), "`break` and `continue` stand in a `for` loop");
    return std::nullopt;
  }
  std::optional<Value> result = flow == Flow::Return && returned_ ? std::move(returned_) : Value::of(ir::TraceValue::none(loc(call)));
  returned_.reset();
  return result;
}

std::optional<ir::TraceStep> TraceBuilder::readStep(Grammar::CallExprContext *call, const std::string &primitive) {
  ir::TraceStep step;
  step.primitive = primitive;
  step.loc = loc(call);
  bool sawKeyword = false;
  if (auto *arglist = call->arglist()) {
    for (auto *argument : arglist->argument()) {
      if (auto *keyword = exactly<Grammar::KeywordArgumentContext>(argument)) {
        std::optional<ir::TraceValue> value = evaluateData(keyword->expr());
        if (!value) return std::nullopt;
        step.arguments.push_back({keyword->NAME()->getText(), std::move(*value)});
        sawKeyword = true;
        continue;
      }
      if (sawKeyword) {
        fail(loc(argument), "positional argument follows keyword argument");
        return std::nullopt;
      }
      std::vector<ir::TraceValue> values;
      if (!appendItems(exactly<Grammar::PositionalArgumentContext>(argument)->expr(), values)) return std::nullopt;
      for (ir::TraceValue &value : values) step.arguments.push_back({"", std::move(value)});
    }
  }
  return step;
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
    if (std::find(params.begin(), params.end(), value.text) != params.end()) {
      value.kind = ir::TraceValue::Kind::Param;
      return value;
    }
    // Another name is the schedule's: an integer, or a value sampled by an earlier step.
    std::optional<ir::TraceValue> outer = evaluateData(expr);
    if (!outer) return std::nullopt;
    if (outer->kind == Kind::Int || (outer->kind == Kind::Name && !outer->element && !outer->slice)) return outer;
  }
  if (atom && exactly<Grammar::IntAtomContext>(atom->atom())) return evaluateData(expr);
  if (auto *call = exactly<Grammar::CallExprContext>(expr)) return readTypedConstant(call);
  if (auto *unary = exactly<Grammar::UnaryExprContext>(expr); unary && unary->op->getType() == Grammar::MINUS) {
    std::optional<ir::TraceValue> operand = evaluateData(expr);
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
  std::optional<ir::TraceValue> value = dtype && argument ? evaluateData(argument->expr()) : std::nullopt;
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

std::optional<Value> TraceBuilder::evaluateAtom(Grammar::AtomContext *atom) {
  ir::SourceLoc at = loc(atom);
  if (auto *name = exactly<Grammar::NameAtomContext>(atom)) {
    const Value *value = scope_->find(name->NAME()->getText());
    if (!value) {
      fail(at, "undefined name '" + name->NAME()->getText() + "'");
      return std::nullopt;
    }
    Value used = *value;
    used.data.loc = at;  // a message about it points at this use
    return used;
  }
  if (auto *integer = exactly<Grammar::IntAtomContext>(atom)) {
    std::optional<int64_t> value = parseIntegerLiteral(integer->INTEGER()->getText());
    if (!value) {
      fail(at, "integer literal " + integer->INTEGER()->getText() + " does not fit in 64 bits");
      return std::nullopt;
    }
    return Value::of(ir::TraceValue::ofInt(*value, at));
  }
  if (auto *number = exactly<Grammar::FloatAtomContext>(atom))
    return Value::of(ir::TraceValue::ofFloat(
        std::strtod(withoutUnderscores(number->FLOAT_NUMBER()->getText()).c_str(), nullptr), at));
  if (auto *strings = exactly<Grammar::StringAtomContext>(atom)) {
    std::string text;
    for (auto *piece : strings->STRING())
      text += decodeStringLiteral(piece->getText());
    return Value::of(ir::TraceValue::ofString(std::move(text), at));
  }
  if (exactly<Grammar::NoneAtomContext>(atom)) return Value::of(ir::TraceValue::none(at));
  if (exactly<Grammar::TrueAtomContext>(atom)) return Value::of(ir::TraceValue::ofBool(true, at));
  if (exactly<Grammar::FalseAtomContext>(atom)) return Value::of(ir::TraceValue::ofBool(false, at));
  auto *paren = exactly<Grammar::ParenAtomContext>(atom);
  if (paren && paren->expr().size() == 1 && paren->COMMA().empty()) return evaluate(paren->expr(0));
  if (auto *list = exactly<Grammar::ListAtomContext>(atom); list || paren) {
    ir::TraceValue items = ir::TraceValue::ofList({}, at);
    items.isTuple = paren != nullptr;
    for (auto *item : paren ? paren->expr() : list->expr())
      if (!appendItems(item, items.items)) return std::nullopt;
    return Value::of(std::move(items));
  }
  auto *dict = exactly<Grammar::DictAtomContext>(atom);
  ir::TraceValue result = ir::TraceValue::none(at);
  result.kind = Kind::Dict;
  for (auto *entry : dict->dict_entry()) {
    std::optional<ir::TraceValue> key = evaluateData(entry->expr(0));
    if (!key) return std::nullopt;
    if (key->kind != Kind::String) {
      fail(key->loc, "a dictionary key in a schedule is a string");
      return std::nullopt;
    }
    std::optional<ir::TraceValue> value = evaluateData(entry->expr(1));
    if (!value) return std::nullopt;
    result.items.push_back(std::move(*key));
    result.items.push_back(std::move(*value));
  }
  return Value::of(std::move(result));
}

} // namespace

Grammar::FuncdefContext *scheduleDefinition(Grammar::StmtContext *stmt) {
  auto *compound = stmt ? stmt->compound_stmt() : nullptr;
  auto *def = compound ? compound->funcdef() : nullptr;
  auto *parameters = def ? def->parameters() : nullptr;
  if (!parameters || parameters->parameter(0)->NAME()->getText() != "sch") return nullptr;
  return def;
}

namespace {

llvm::Expected<ir::Trace> readAgain(std::shared_ptr<const SourceFile> file, const ir::ResultCounts &counts);

// A trace that paused reads on from `file`, which its readOn keeps.
void keepReading(ir::Trace &trace, std::shared_ptr<const SourceFile> file) {
  trace.pause->readOn = [file](const ir::ResultCounts &known) { return readAgain(file, known); };
}

// The file's schedule def parsed and run again, knowing `counts`.
llvm::Expected<ir::Trace> readAgain(std::shared_ptr<const SourceFile> file, const ir::ResultCounts &counts) {
  DiagnosticEngine diagnostics;
  SyntaxStream syntax(*file, diagnostics);
  for (SyntaxPiece piece = syntax.next(); piece.kind != SyntaxPiece::Kind::End; piece = syntax.next()) {
    auto *def = piece.insideClass ? nullptr : scheduleDefinition(piece.stmt);
    if (!def) continue;
    std::optional<ir::Trace> trace = TraceBuilder(*file, diagnostics, counts).build(def);
    if (!trace) break;
    if (trace->pause) keepReading(*trace, file);
    return std::move(*trace);
  }
  // Read once already, the def fails only past where the first reading paused.
  if (diagnostics.diagnostics().empty()) return ir::diagnosticError("the schedule def is no longer in " + file->name());
  const Diagnostic &first = diagnostics.diagnostics().front();
  return ir::diagnosticError(first.location, first.message);
}

} // namespace

std::optional<ir::Trace> buildTrace(const SourceFile &file, DiagnosticEngine &diagnostics, Grammar::FuncdefContext *def) {
  std::optional<ir::Trace> trace = TraceBuilder(file, diagnostics, {}).build(def);
  // Only a trace that pauses keeps (a copy of) the file.
  if (trace && trace->pause) keepReading(*trace, std::make_shared<const SourceFile>(file));
  return trace;
}

std::optional<ir::Trace> readTrace(const SourceFile &file, DiagnosticEngine &diagnostics) {
  std::optional<ParsedModule> parsed = parseModule(file, diagnostics);
  return parsed ? std::move(parsed->schedule) : std::nullopt;
}

} // namespace vtac::frontend
