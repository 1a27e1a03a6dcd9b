// Statements: bodies (with statements that scope over the rest of their body),
// assignments, buffer stores, loops, `with`, `if`, `while` and `assert`.
#include "FunctionBuilder.h"

#include "vtac/ir/Arith.h"

namespace vtac::frontend {

using ir::DataType;
using ir::Expr;
using ir::NodeKind;
using ir::Stmt;

static Stmt noOp(ir::SourceLoc at) { return ir::make<ir::Evaluate>(ir::intImm(0), at); }

// A body under construction. Statements that scope over the rest of the body
// (lets, allocations, buffer declarations, statement-form T.attr, assert) are
// kept as wrappers and applied from the inside out when the body is finished,
// so a long body never recurses deeply.
class FunctionBuilder::BodyBuilder {
public:
  explicit BodyBuilder(FunctionBuilder &builder) : builder_(builder) {}

  std::vector<Stmt> &current() { return current_; }

  /// The statement at `at` scopes over the rest of the body (one level deeper).
  void scopeRest(std::optional<Wrapper> wrapper, ir::SourceLoc at) {
    if (!wrapper)
      return;
    pending_.emplace_back(std::move(current_), std::move(*wrapper));
    current_.clear();
    levels_.push_back(std::make_unique<Nesting>(builder_, 1, at));
  }

  /// The body; null when it holds no statement at all.
  Stmt finish(ir::SourceLoc at) {
    Stmt body = current_.empty() ? nullptr : ir::seq(std::move(current_));
    for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
      it->first.push_back(it->second(body ? body : noOp(at)));
      body = ir::seq(std::move(it->first));
    }
    return body;
  }

private:
  FunctionBuilder &builder_;
  std::vector<Stmt> current_;
  std::vector<std::pair<std::vector<Stmt>, Wrapper>> pending_;
  std::vector<std::unique_ptr<Nesting>> levels_;
};

FunctionBuilder::Nesting::Nesting(FunctionBuilder &builder, size_t levels, ir::SourceLoc at)
    : builder_(builder), levels_(levels) {
  builder.nesting_ += levels;
  withinLimit_ = builder.nesting_ <= kMaxStatementNesting;
  if (!withinLimit_ && !builder.nestingExceeded_) {
    builder.nestingExceeded_ = true;
    builder.error(at, "nesting too deep (limit " + std::to_string(kMaxStatementNesting) + ")");
  }
}

Stmt FunctionBuilder::buildSuite(Grammar::SuiteContext *suite) {
  if (auto *simple = suite->simple_stmt()) {
    // `if c: x = 1` on one line: a body of one simple statement.
    BodyBuilder body(*this);
    for (auto *small : simple->small_stmt())
      body.scopeRest(buildSmallStatement(small, body.current()), loc(small));
    return body.finish(loc(suite));
  }
  return buildStatements(suite->stmt());
}

Stmt FunctionBuilder::buildStatements(const std::vector<Grammar::StmtContext *> &stmts) {
  BodyBuilder body(*this);
  ir::SourceLoc last;
  for (auto *stmt : stmts) {
    if (diagnostics_.limitReached() || nestingExceeded_)
      break;
    last = loc(stmt);
    if (auto *simple = stmt->simple_stmt()) {
      for (auto *small : simple->small_stmt())
        body.scopeRest(buildSmallStatement(small, body.current()), loc(small));
    } else if (Stmt built = buildCompound(stmt->compound_stmt())) {
      body.current().push_back(built);
    }
  }
  return body.finish(last);
}

std::optional<FunctionBuilder::Wrapper>
FunctionBuilder::buildSmallStatement(Grammar::Small_stmtContext *stmt, std::vector<Stmt> &out) {
  ir::SourceLoc at = loc(stmt);
  if (auto *exprStmt = stmt->expr_stmt())
    return buildAssignment(exprStmt, out);
  if (stmt->PASS())
    return std::nullopt;
  if (stmt->ASSERT()) {
    Expr condition = toExprOf(eval(stmt->expr(0)), DataType::boolTy(), "a condition");
    Expr message = stmt->expr().size() > 1 ? toExpr(eval(stmt->expr(1)), "a message")
                                           : Expr(ir::make<ir::StringImm>("", at));
    if (!condition || !message)
      return std::nullopt;
    return Wrapper([=](Stmt rest) { return ir::make<ir::AssertStmt>(condition, message, rest, at); });
  }
  if (stmt->RETURN())
    error(at, "return is not supported in a prim_func body");
  else if (stmt->import_stmt())
    error(at, "an import belongs at the top level of the file, not in a prim_func body");
  else if (stmt->BREAK() || stmt->CONTINUE())
    error(at, "'" + stmt->getStart()->getText() + "' is not supported in TVMScript");
  return std::nullopt;
}

static std::optional<NodeKind> augmentedKind(Grammar::AugassignContext *op) {
  if (op->ADD_ASSIGN()) return NodeKind::Add;
  if (op->SUB_ASSIGN()) return NodeKind::Sub;
  if (op->MUL_ASSIGN()) return NodeKind::Mul;
  if (op->DIV_ASSIGN()) return NodeKind::Div;
  if (op->FLOORDIV_ASSIGN()) return NodeKind::FloorDiv;
  if (op->MOD_ASSIGN()) return NodeKind::FloorMod;
  return std::nullopt;
}

// The name a target expression binds, or "" when it is not a plain name.
static std::string plainName(Grammar::ExprContext *target) {
  if (auto *atom = exactly<Grammar::AtomExprContext>(target))
    if (auto *name = exactly<Grammar::NameAtomContext>(atom->atom()))
      return name->NAME()->getText();
  return "";
}

// Builtins whose result needs the name it is assigned to: buffers take it as
// their name, size variables and block axes are named after it.
static bool isBindingBuiltin(const std::string &path) {
  static const char *const names[] = {"T.match_buffer", "T.alloc_buffer", "T.allocate",
                                      "T.allocate_const", "T.decl_buffer", "T.buffer_decl", "T.Buffer",
                                      "T.var",          "T.handle",       "T.LetStmt",
                                      "T.env_thread",   "T.launch_thread", "T.meta_var"};
  for (const char *name : names)
    if (path == name)
      return true;
  return path.rfind("T.axis.", 0) == 0;
}

// `n = T.int64()`, `x = T.float32()`: a variable that nothing else defines.
static bool isVariableDeclaration(const std::string &path, const CallArgs &args) {
  if (!args.positional.empty() || !args.keywords.empty())
    return false;
  std::optional<DataType> dtype =
      path.rfind("T.", 0) == 0 ? DataType::parse(path.substr(2)) : std::nullopt;
  return dtype && !dtype->isVoid() && !dtype->isHandle();
}

std::optional<FunctionBuilder::Wrapper>
FunctionBuilder::buildAssignment(Grammar::Expr_stmtContext *stmt, std::vector<Stmt> &out) {
  ir::SourceLoc at = loc(stmt);
  std::vector<Grammar::ExprContext *> targets = stmt->testlist(0)->expr();
  bool targetIsTuple = targets.size() > 1 || !stmt->testlist(0)->COMMA().empty();

  // A bare expression: a statement-like builtin or an expression evaluated for effect.
  if (!stmt->annassign() && !stmt->augassign() && !stmt->ASSIGN()) {
    if (targetIsTuple) {
      error(at, "a tuple is not a statement");
      return std::nullopt;
    }
    if (auto *call = exactly<Grammar::CallExprContext>(targets[0]))
      return buildCallStatement(call, out);
    Value value = eval(targets[0]);
    if (value.kind == Value::Kind::String)
      return std::nullopt;  // a docstring
    if (Expr expr = toExpr(value, "a statement"))
      out.push_back(ir::make<ir::Evaluate>(expr, at));
    return std::nullopt;
  }

  if (auto *augmented = stmt->augassign()) {
    auto *store = exactly<Grammar::SubscriptExprContext>(targets[0]);
    if (targetIsTuple || !store) {
      error(at, "augmented assignment is only supported on buffer elements, as in B[i] += x");
      return std::nullopt;
    }
    Value value = eval(stmt->testlist(1)->expr(0));
    if (Stmt built = buildStore(store, value, augmentedKind(augmented), loc(augmented)))
      out.push_back(built);
    return std::nullopt;
  }

  Grammar::TestlistContext *valueList =
      stmt->annassign() ? stmt->annassign()->testlist() : stmt->testlist(1);
  if (!valueList) {
    error(at, "a variable declaration needs a value, as in x: T.int32 = 0");
    return std::nullopt;
  }
  std::vector<Grammar::ExprContext *> values = valueList->expr();
  bool valueIsTuple = values.size() > 1 || !valueList->COMMA().empty();

  if (!targetIsTuple)
    if (auto *store = exactly<Grammar::SubscriptExprContext>(targets[0])) {
      Value value = valueIsTuple ? Value::ofItems(Value::Kind::Tuple, evalList(values), at)
                                 : eval(values[0]);
      if (Stmt built = buildStore(store, value, std::nullopt, at))
        out.push_back(built);
      return std::nullopt;
    }

  std::vector<std::pair<std::string, ir::SourceLoc>> names;
  for (auto *target : targets) {
    std::string name = plainName(target);
    if (name.empty()) {
      error(loc(target), "cannot assign to this expression");
      return std::nullopt;
    }
    names.emplace_back(name, loc(target));
  }

  std::optional<VarType> annotation;
  if (auto *annotated = stmt->annassign()) {
    if (targetIsTuple) {
      error(at, "only a single name can carry a type annotation");
      return std::nullopt;
    }
    Value type = eval(annotated->expr());
    annotation = toVarType(type);
    if (!annotation)
      return std::nullopt;
  }

  // `m, n = T.int64(), T.int64()`: pairwise, so that each value sees its name.
  if (targetIsTuple && valueIsTuple && names.size() == values.size()) {
    std::vector<Wrapper> wrappers;
    for (size_t i = 0; i < names.size(); ++i)
      if (auto wrapper = assignOne({names[i]}, values[i], std::nullopt, at))
        wrappers.push_back(std::move(*wrapper));
    return chain(std::move(wrappers));
  }
  if (!valueIsTuple)
    return assignOne(names, values[0], annotation, at);
  return bindValue(names, Value::ofItems(Value::Kind::Tuple, evalList(values), at), annotation, at);
}

std::optional<FunctionBuilder::Wrapper> FunctionBuilder::chain(std::vector<Wrapper> wrappers) {
  if (wrappers.empty())
    return std::nullopt;
  if (wrappers.size() == 1)
    return std::move(wrappers[0]);
  return Wrapper([wrappers](Stmt rest) {
    for (auto it = wrappers.rbegin(); it != wrappers.rend(); ++it)
      rest = (*it)(rest);
    return rest;
  });
}

// Assigns the value of one expression to `names`. Builtins that need the
// assigned name (T.match_buffer, T.axis.remap, T.int64(), ...) get it.
std::optional<FunctionBuilder::Wrapper>
FunctionBuilder::assignOne(const NameList &names, Grammar::ExprContext *valueExpr,
                           std::optional<VarType> annotation, ir::SourceLoc at) {
  if (auto *call = exactly<Grammar::CallExprContext>(valueExpr)) {
    Value callee = eval(call->expr());
    if (callee.isInvalid()) {
      for (const auto &[name, where] : names)
        define(name, Value::invalid(), where);
      return std::nullopt;
    }
    if (callee.kind == Value::Kind::Path) {
      CallArgs args = evalArgs(call->arglist(), loc(call));
      if (callee.text.rfind("T.axis.", 0) == 0) {
        bindBlockAxes(names, callee.text, args, loc(call));
        return std::nullopt;
      }
      if (isBindingBuiltin(callee.text) || isVariableDeclaration(callee.text, args)) {
        if (names.size() != 1) {
          error(at, callee.text + " defines one name, " + std::to_string(names.size()) +
                        " are assigned");
          return std::nullopt;
        }
        return bindBuiltinResult(names[0].first, names[0].second, callee.text, args, loc(call));
      }
      return bindValue(names, callBuiltin(callee.text, args, loc(call)), annotation, at);
    }
  }
  return bindValue(names, eval(valueExpr), annotation, at);
}

// `x = e` and `x: T.int32 = e` bind an expression with a let over the rest of
// the body; other values (buffers, strings, tuples) simply get the name.
std::optional<FunctionBuilder::Wrapper>
FunctionBuilder::bindValue(const NameList &names, Value value, std::optional<VarType> annotation,
                           ir::SourceLoc at, bool forceLet) {
  if (value.isInvalid()) {
    for (const auto &[name, where] : names)
      define(name, Value::invalid(), where);  // no "undefined name" echoes later
    return std::nullopt;
  }
  if (names.size() > 1) {
    if (!value.isSequence() || value.items.size() != names.size()) {
      error(at, "cannot unpack " + std::string(describeKind(value.kind)) + " into " +
                    std::to_string(names.size()) + " names");
      return std::nullopt;
    }
    std::vector<Wrapper> wrappers;
    for (size_t i = 0; i < names.size(); ++i)
      if (auto wrapper = bindValue({names[i]}, value.items[i], std::nullopt, at))
        wrappers.push_back(std::move(*wrapper));
    return chain(std::move(wrappers));
  }
  const auto &[name, where] = names[0];
  if (value.kind != Value::Kind::Expr || (!annotation && !forceLet && value.literal)) {
    if (annotation) {
      error(at, "cannot declare a " + annotation->dtype.str() + " variable from " + describeKind(value.kind));
      return std::nullopt;
    }
    define(name, value, where);
    return std::nullopt;
  }
  Expr expr = annotation ? toExprOf(value, annotation->dtype, "a value") : value.expr;
  if (!expr)
    return std::nullopt;
  if (annotation && expr->dtype != annotation->dtype) {
    error(value.loc, "cannot initialise " + annotation->dtype.str() + " variable '" + name +
                         "' with a value of type " + expr->dtype.str());
    return std::nullopt;
  }
  ir::VarRef var = annotation && annotation->pointer ? ir::make<ir::Var>(name, *annotation->pointer, where)
                                                     : ir::makeVar(name, expr->dtype, where);
  define(name, Value::ofExpr(var, where), where);
  return Wrapper([var, expr, at](Stmt rest) { return ir::make<ir::LetStmt>(var, expr, rest, at); });
}

std::optional<FunctionBuilder::Wrapper>
FunctionBuilder::bindBuiltinResult(const std::string &name, ir::SourceLoc where,
                                   const std::string &path, CallArgs &args, ir::SourceLoc at) {
  if (path == "T.var" || isVariableDeclaration(path, args)) {
    std::optional<DataType> dtype;
    if (path != "T.var")
      dtype = DataType::parse(path.substr(2));
    else if (args.positional.size() == 1)
      dtype = toDataType(args.positional[0]);
    else
      error(at, "T.var takes a dtype");
    if (!dtype)
      return std::nullopt;
    define(name, Value::ofExpr(ir::makeVar(name, *dtype, where), where), where);
    return std::nullopt;
  }
  if (path == "T.handle") {
    // p = T.handle("int8", "scope"): a pointer variable; T.handle() an opaque one.
    if (args.positional.empty()) {
      define(name, Value::ofExpr(ir::makeVar(name, DataType::handle(), where), where), where);
      return std::nullopt;
    }
    Value type = callBuiltin(path, args, at);
    if (type.kind == Value::Kind::PointerType)
      define(name, Value::ofExpr(ir::make<ir::Var>(name, type.pointer, where), where), where);
    return std::nullopt;
  }
  if (path == "T.meta_var") {
    // `x = T.meta_var(e)`: x stands for e where it is used (a parser-time macro), no let.
    if (args.positional.size() != 1 || !args.keywords.empty())
      error(at, "T.meta_var takes one value");
    else
      define(name, args.positional[0], where);
    return std::nullopt;
  }
  if (path == "T.env_thread") {
    bindEnvThread(name, where, args, at);
    return std::nullopt;
  }
  if (path == "T.launch_thread")
    return attrWrapper(buildLaunchThread(&name, where, args, at));
  if (path == "T.LetStmt") {
    // `with T.LetStmt(value) as x:` (the scoped form of `x: T.int32 = value`), and
    // `with T.LetStmt(value, T.handle("int32")) as p:` for a typed pointer.
    if (args.positional.empty() || args.positional.size() > 2) {
      error(at, "T.LetStmt takes a value and an optional type");
      return std::nullopt;
    }
    std::optional<VarType> type;
    if (args.positional.size() == 2 && !(type = toVarType(args.positional[1])))
      return std::nullopt;
    return bindValue({{name, where}}, args.positional[0], type, at, /*forceLet=*/true);
  }
  if (path == "T.match_buffer") {
    if (args.positional.empty()) {
      error(at, "T.match_buffer needs the parameter or region it matches");
      return std::nullopt;
    }
    const Value &source = args.positional[0];
    // Inside a block the source is a region: `A[vi, 0:16]`, a whole buffer, or one element `A[vi, vj]`.
    bool elementSource = source.kind == Value::Kind::Expr && source.expr.isa<ir::BufferLoad>();
    bool regionSource = source.kind == Value::Kind::Region ||
                        ((source.kind == Value::Kind::Buffer || elementSource) && currentBlock());
    ir::BufferRef buffer = makeBufferFromArgs(name, args, 1, at, regionSource);
    if (!buffer)
      return std::nullopt;
    if (regionSource) {
      if (BlockFrame *block = currentBlock())
        block->matchBuffers.push_back({buffer, toRegion(source)});
      else
        error(at, "T.match_buffer of a region must be inside a block");
    } else {
      Expr param = toExpr(source, "a handle parameter");
      if (!param)
        return std::nullopt;
      auto found = std::find_if(params_.begin(), params_.end(),
                                [&](const ir::VarRef &p) { return p == param; });
      if (found == params_.end() || !param->dtype.isHandle()) {
        error(source.loc, "T.match_buffer must match a T.handle parameter of the function");
        return std::nullopt;
      }
      for (const auto &[bound, existing] : bufferMap_)
        if (bound == param) {
          error(source.loc, "parameter '" + (*found)->name + "' is already bound to buffer '" +
                                existing->name + "'");
          return std::nullopt;
        }
      bufferMap_.emplace_back(*found, buffer);
    }
    define(name, Value::ofBuffer(buffer, where), where);
    return std::nullopt;
  }
  if (path == "T.alloc_buffer") {
    ir::BufferRef buffer = makeBufferFromArgs(name, args, 0, at);
    if (!buffer)
      return std::nullopt;
    blocks_.back().allocBuffers.push_back(buffer);
    define(name, Value::ofBuffer(buffer, where), where);
    return std::nullopt;
  }
  if (path == "T.allocate") {
    // T.allocate(extents, dtype, scope="global", condition=True)
    const Value *extentsValue = args.positional.size() > 0 ? &args.positional[0] : args.keyword("extents");
    const Value *dtypeValue = args.positional.size() > 1 ? &args.positional[1] : args.keyword("dtype");
    const Value *scopeValue = args.positional.size() > 2 ? &args.positional[2] : args.keyword("scope");
    if (!extentsValue || !dtypeValue) {
      error(at, "T.allocate needs extents and a dtype");
      return std::nullopt;
    }
    std::optional<std::vector<Expr>> extents = toShape(*extentsValue);
    std::optional<DataType> dtype = toDataType(*dtypeValue);
    std::optional<std::string> scope =
        scopeValue ? toString(*scopeValue, "a storage scope") : std::optional<std::string>("global");
    // A literal-true condition is stored as none, as the printer expects.
    Expr condition;
    bool conditionOk = true;
    if (const Value *value = args.positional.size() > 3 ? &args.positional[3] : args.keyword("condition")) {
      condition = toExprOf(*value, DataType::boolTy(), "a condition");
      conditionOk = bool(condition);
      if (condition && ir::isConstInt(condition, 1))
        condition = nullptr;
    }
    if (!extents || !dtype || !scope || !conditionOk)
      return std::nullopt;
    ir::VarRef var = ir::make<ir::Var>(name, ir::PointerType{*dtype, *scope}, where);
    // The name stands for the allocation's pointer; indexing it reads the
    // allocation as a flat buffer, as TVM's allocate result does.
    ir::BufferRef view = ir::make<ir::Buffer>(name, var, *dtype, *extents, std::vector<Expr>{},
                                              nullptr, ir::Buffer::kDefaultAlignment, 0, where);
    define(name, Value::ofBuffer(view, where), where);
    return Wrapper([=](Stmt rest) {
      return ir::make<ir::Allocate>(var, *dtype, *extents, condition, rest, ir::AttrMap{}, at);
    });
  }
  if (path == "T.allocate_const")
    return buildAllocateConst(name, args, where, at);
  if (path == "T.Buffer" || path == "T.buffer_decl") {
    // A buffer object (usually a view of another allocation); no statement.
    ir::BufferRef buffer = makeBufferFromArgs(name, args, 0, at);
    if (buffer)
      define(name, Value::ofBuffer(buffer, where), where);
    return std::nullopt;
  }
  // T.decl_buffer(shape, dtype, data, strides, elem_offset, scope, ...): a DeclBuffer over the
  // rest of the body, plus the Allocate of its memory when no data is given (TVM's rule).
  const Value *data = args.positional.size() > 2 ? &args.positional[2] : args.keyword("data");
  bool allocates = !data || data->kind == Value::Kind::None;
  ir::BufferRef buffer = makeBufferFromArgs(name, args, 0, at);
  if (!buffer)
    return std::nullopt;
  define(name, Value::ofBuffer(buffer, where), where);
  return Wrapper([=](Stmt rest) -> Stmt {
    Stmt declared = ir::make<ir::DeclBuffer>(buffer, rest, at);
    if (!allocates)
      return declared;
    return ir::make<ir::Allocate>(buffer->data, buffer->dtype, buffer->shape, nullptr, declared,
                                  ir::AttrMap{}, at);
  });
}

// `x = T.allocate_const(data, dtype, extents)`: a global allocation holding data (TVM's
// AllocateConst). The name stands for its pointer, indexable as a flat buffer like T.allocate's.
std::optional<FunctionBuilder::Wrapper> FunctionBuilder::buildAllocateConst(const std::string &name,
                                                                            const CallArgs &args,
                                                                            ir::SourceLoc where,
                                                                            ir::SourceLoc at) {
  const Value *dataValue = args.positional.size() > 0 ? &args.positional[0] : args.keyword("data");
  const Value *dtypeValue = args.positional.size() > 1 ? &args.positional[1] : args.keyword("dtype");
  const Value *extentsValue = args.positional.size() > 2 ? &args.positional[2] : args.keyword("extents");
  if (!dataValue || !dtypeValue || !extentsValue) {
    error(at, "T.allocate_const needs data, a dtype and extents");
    return std::nullopt;
  }
  if (!dataValue->isSequence()) {
    error(dataValue->loc, "T.allocate_const's data must be a list of numbers");
    return std::nullopt;
  }
  std::optional<DataType> dtype = toDataType(*dtypeValue);
  std::optional<std::vector<Expr>> extents = toShape(*extentsValue);
  if (!dtype || !extents)
    return std::nullopt;
  uint64_t elements = 1;
  for (const Expr &extent : *extents) {
    const auto *constant = extent.as<ir::IntImm>();
    if (!constant) {
      error(extentsValue->loc, "T.allocate_const's extents must be integer constants");
      return std::nullopt;
    }
    elements *= uint64_t(constant->value);
  }
  if (elements != dataValue->items.size()) {
    error(dataValue->loc, "T.allocate_const has " + std::to_string(dataValue->items.size()) +
                              " values for " + std::to_string(elements) + " elements");
    return std::nullopt;
  }
  std::vector<Expr> literals;
  for (const Value &item : dataValue->items) {
    Expr literal = toExpr(item, "a constant");
    if (!literal)
      return std::nullopt;
    literals.push_back(literal);
  }
  llvm::Expected<ir::ConstantDataRef> data = ir::ConstantData::fromLiterals(*dtype, literals);
  if (!data) {
    error(dataValue->loc, llvm::toString(data.takeError()));
    return std::nullopt;
  }
  ir::VarRef var = ir::make<ir::Var>(name, ir::PointerType{*dtype, "global"}, where);
  ir::BufferRef view = ir::make<ir::Buffer>(name, var, *dtype, *extents, std::vector<Expr>{}, nullptr,
                                            ir::Buffer::kDefaultAlignment, 0, where);
  define(name, Value::ofBuffer(view, where), where);
  ir::ConstantDataRef constants = std::move(*data);
  return Wrapper([=](Stmt rest) -> Stmt {
    auto *allocate = new ir::Allocate(var, *dtype, *extents, nullptr, rest, ir::AttrMap{}, at);
    allocate->constantData = constants;
    return Stmt(allocate);
  });
}

Stmt FunctionBuilder::buildStore(Grammar::SubscriptExprContext *target, Value value,
                                 std::optional<NodeKind> augmentedOp, ir::SourceLoc at) {
  Value object = eval(target->expr());
  if (object.isInvalid() || value.isInvalid())
    return nullptr;
  if (object.kind != Value::Kind::Buffer) {
    error(loc(target), std::string("cannot store into ") + describeKind(object.kind));
    return nullptr;
  }
  Value location = evalIndex(object, target->subscriptlist(), loc(target));
  if (location.isInvalid())
    return nullptr;
  if (location.kind == Value::Kind::Region) {
    error(loc(target), "cannot store into a slice of buffer '" + object.buffer->name + "'");
    return nullptr;
  }
  auto *load = location.expr.as<ir::BufferLoad>();
  const ir::BufferRef &buffer = object.buffer;
  if (augmentedOp)
    value = evalBinary(*augmentedOp, location, value, at);
  if (value.isInvalid())
    return nullptr;
  DataType element = buffer->dtype;
  Expr stored = value.literal ? toExprOf(value, element, "a value") : toExpr(value, "a value");
  if (!stored)
    return nullptr;
  // TVM's BufferStore casts a value of another numeric type to the buffer's (a float
  // literal into an integer buffer stays an error above: it would lose its fraction unseen).
  auto numeric = [](DataType t) { return t.isIntOrUInt() || t.isFloat() || t.isBool(); };
  if (stored->dtype.elementType() != element) {
    if (!numeric(stored->dtype) || !numeric(element)) {
      error(value.loc, "cannot store a value of type " + stored->dtype.str() + " into buffer '" +
                           buffer->name + "' of type " + element.str());
      return nullptr;
    }
    stored = ir::castExpr(element.withLanes(stored->dtype.lanes()), stored, value.loc);
  }
  return ir::make<ir::BufferStore>(buffer, stored, load->indices, loc(target));
}

std::optional<FunctionBuilder::Wrapper>
FunctionBuilder::buildCallStatement(Grammar::CallExprContext *call, std::vector<Stmt> &out) {
  ir::SourceLoc at = loc(call);
  Value callee = eval(call->expr());
  if (callee.isInvalid())
    return std::nullopt;
  if (callee.kind != Value::Kind::Path) {
    Value value = evalCall(call);
    if (Expr expr = toExpr(value, "a statement"))
      out.push_back(ir::make<ir::Evaluate>(expr, at));
    return std::nullopt;
  }
  const std::string &path = callee.text;
  CallArgs args = evalArgs(call->arglist(), at);
  if (handleBlockDeclaration(path, args, at))
    return std::nullopt;
  if (path == "T.func_attr") {
    std::optional<ir::AttrMap> attrs = args.positional.size() == 1 ? toAttrMap(args.positional[0])
                                                                    : std::nullopt;
    if (args.positional.size() != 1)
      error(at, "T.func_attr takes one dictionary");
    if (!attrs)
      return std::nullopt;
    if (blocks_.size() > 1)
      error(at, "T.func_attr must be at the top level of the function body");
    for (const auto &[key, value] : *attrs)
      attrs_.set(key, value);
    return std::nullopt;
  }
  if (path == "T.evaluate") {
    if (args.positional.size() != 1) {
      error(at, "T.evaluate takes one expression");
      return std::nullopt;
    }
    if (Expr expr = toExpr(args.positional[0], "an expression"))
      out.push_back(ir::make<ir::Evaluate>(expr, at));
    return std::nullopt;
  }
  // Statement forms: the attribute scopes over the rest of the body.
  if (path == "T.attr")
    return attrWrapper(buildAttr(args, at));
  if (path == "T.launch_thread")
    return attrWrapper(buildLaunchThread(nullptr, at, args, at));
  Value value = callBuiltin(path, args, at);
  if (Expr expr = toExpr(value, "a statement"))
    out.push_back(ir::make<ir::Evaluate>(expr, at));
  return std::nullopt;
}

std::optional<FunctionBuilder::Wrapper> FunctionBuilder::attrWrapper(std::optional<AttrParts> attr) {
  if (!attr)
    return std::nullopt;
  return Wrapper([attr](Stmt rest) {
    return ir::make<ir::AttrStmt>(attr->node, attr->key, attr->value, rest, attr->loc);
  });
}

// T.attr(node, key, value): node may be an iteration variable, a variable, a
// buffer, a string (the pragma forms TVM prints) or a reducer (reduce_scope).
std::optional<FunctionBuilder::AttrParts> FunctionBuilder::buildAttr(CallArgs &args, ir::SourceLoc at) {
  if (args.positional.size() != 3) {
    error(at, "T.attr takes a node, a key and a value");
    return std::nullopt;
  }
  const Value &node = args.positional[0];
  ir::NodeRef target;
  if (node.kind == Value::Kind::IterVar)
    target = node.iterVar;
  else if (node.kind == Value::Kind::Buffer)
    target = node.buffer;
  else if (node.kind == Value::Kind::Reducer)
    target = node.reducer;
  else if (Expr expr = toExpr(node, "an attribute node"))
    target = expr;
  std::optional<std::string> key = toString(args.positional[1], "an attribute key");
  Expr value = toExpr(args.positional[2], "an attribute value");
  if (!target || !key || !value)
    return std::nullopt;
  return AttrParts{target, *key, value, at};
}

Stmt FunctionBuilder::buildCompound(Grammar::Compound_stmtContext *stmt) {
  if (auto *forStmt = stmt->for_stmt())
    return buildFor(forStmt);
  if (auto *withStmt = stmt->with_stmt())
    return buildWith(withStmt);
  if (auto *ifStmt = stmt->if_stmt())
    return buildIf(ifStmt);
  if (auto *whileStmt = stmt->while_stmt()) {
    Expr condition = toExprOf(eval(whileStmt->expr()), DataType::boolTy(), "a condition");
    Nesting nesting(*this, 1, loc(whileStmt));
    if (!nesting)
      return nullptr;
    pushScope();
    Stmt body = buildSuite(whileStmt->suite());
    popScope();
    if (!condition)
      return nullptr;
    return ir::make<ir::While>(condition, body ? body : noOp(loc(whileStmt)), loc(whileStmt));
  }
  error(loc(stmt), "a nested function or class definition is not supported in a prim_func");
  return nullptr;
}

// An if/elif/else chain nests each elif in the else of the one before; it is
// built front to back and assembled back to front, so a long chain of elifs
// does not recurse.
Stmt FunctionBuilder::buildIf(Grammar::If_stmtContext *stmt) {
  struct Clause {
    Expr condition;
    Stmt body;
    ir::SourceLoc at, bodyAt;
  };
  std::vector<Clause> clauses;
  std::vector<std::unique_ptr<Nesting>> levels;
  bool ok = true;
  auto addClause = [&](Grammar::ExprContext *conditionExpr, Grammar::SuiteContext *suite) {
    levels.push_back(std::make_unique<Nesting>(*this, 1, loc(conditionExpr)));
    if (!*levels.back())
      return false;
    Expr condition = toExprOf(eval(conditionExpr), DataType::boolTy(), "a condition");
    // An integer condition holds where it is not zero, as in Python (TVM keeps `if i:` as is and
    // its code generators test it against zero).
    if (condition && condition->dtype.isIntOrUInt() && condition->dtype.lanes() == 1)
      condition = ir::makeBinary(ir::NodeKind::NE, condition, ir::intImm(0, condition->dtype), condition->loc());
    if (condition && !condition->dtype.isBool()) {
      error(loc(conditionExpr), "condition must be a bool expression, got " + condition->dtype.str());
      condition = nullptr;
    }
    ok &= bool(condition);
    pushScope();
    Stmt body = buildSuite(suite);
    popScope();
    clauses.push_back({condition, body, loc(conditionExpr), loc(suite)});
    return true;
  };
  bool complete = addClause(stmt->expr(), stmt->suite());
  for (auto *elif : stmt->elif_clause())
    complete = complete && addClause(elif->expr(), elif->suite());
  Stmt elseCase;
  if (complete && stmt->else_clause()) {
    pushScope();
    elseCase = buildSuite(stmt->else_clause()->suite());
    popScope();
  }
  if (!ok || !complete)
    return nullptr;
  for (auto clause = clauses.rbegin(); clause != clauses.rend(); ++clause)
    elseCase = ir::make<ir::IfThenElse>(clause->condition, clause->body ? clause->body : noOp(clause->bodyAt),
                                        elseCase, clause->at);
  return elseCase;
}

FunctionBuilder::NameList FunctionBuilder::targetNames(Grammar::TargetlistContext *list) {
  std::vector<std::pair<std::string, ir::SourceLoc>> names;
  for (auto *target : list->target()) {
    if (target->NAME())
      names.emplace_back(target->NAME()->getText(), loc(target));
    else if (target->targetlist())
      for (auto &inner : targetNames(target->targetlist()))
        names.push_back(std::move(inner));
  }
  return names;
}

static std::optional<ir::ForKind> loopKind(const std::string &path) {
  if (path == "range" || path == "T.serial") return ir::ForKind::Serial;
  if (path == "T.parallel") return ir::ForKind::Parallel;
  if (path == "T.vectorized") return ir::ForKind::Vectorized;
  if (path == "T.unroll") return ir::ForKind::Unrolled;
  if (path == "T.thread_binding") return ir::ForKind::ThreadBinding;
  return std::nullopt;
}

// `for i, j in T.grid(a, b)`, `for i in range(n)`, `T.serial(lo, hi)`,
// `T.thread_binding(n, thread="threadIdx.x")`, ...
Stmt FunctionBuilder::buildFor(Grammar::For_stmtContext *stmt) {
  ir::SourceLoc at = loc(stmt);
  auto names = targetNames(stmt->targetlist());
  std::vector<Grammar::ExprContext *> iterables = stmt->testlist()->expr();
  auto *call = iterables.size() == 1 ? exactly<Grammar::CallExprContext>(iterables[0]) : nullptr;
  Value callee = call ? eval(call->expr()) : Value::invalid();
  if (!call || callee.kind != Value::Kind::Path) {
    if (!call || !callee.isInvalid())
      error(loc(stmt->testlist()), "a loop must iterate over T.grid(...), range(...) or T.serial/parallel/vectorized/unroll/thread_binding(...)");
    return nullptr;
  }
  CallArgs args = evalArgs(call->arglist(), loc(call));
  struct Loop {
    ir::Range range;
    ir::ForKind kind;
    ir::AttrMap annotations;
    std::string thread;
  };
  std::vector<Loop> loops;
  auto loopRange = [&](const std::vector<Value> &bounds) -> ir::Range {
    Value lo = bounds.size() == 2 ? bounds[0] : Value::ofExpr(ir::intImm(0, DataType::int32(), at), at, true);
    Value hi = bounds.size() == 2 ? bounds[1] : bounds[0];
    lo.expr = toExpr(lo, "a loop bound");
    hi.expr = toExpr(hi, "a loop bound");
    if (!lo.expr || !hi.expr || !matchTypes(lo, hi, at))
      return {};
    if (!lo.expr->dtype.isIntOrUInt()) {
      error(hi.loc, "loop bounds must be integers, got " + lo.expr->dtype.str());
      return {};
    }
    return rangeBetween(lo.expr, hi.expr);
  };
  const std::string &path = callee.text;
  if (path == "T.grid") {
    if (args.positional.size() != names.size()) {
      error(loc(call), "T.grid has " + std::to_string(args.positional.size()) + " extents but " +
                           std::to_string(names.size()) + " loop variables are given");
      return nullptr;
    }
    for (const Value &extent : args.positional)
      loops.push_back({loopRange({extent}), ir::ForKind::Serial, {}, ""});
  } else if (std::optional<ir::ForKind> kind = loopKind(path)) {
    if (names.size() != 1) {
      error(at, path + " defines one loop variable, " + std::to_string(names.size()) + " are given");
      return nullptr;
    }
    // T.thread_binding(n, "threadIdx.x"): the thread may follow the bounds positionally.
    std::optional<Value> positionalThread;
    if (*kind == ir::ForKind::ThreadBinding && args.positional.size() >= 2 &&
        args.positional.back().kind == Value::Kind::String) {
      positionalThread = args.positional.back();
      args.positional.pop_back();
      if (args.keyword("thread"))
        error(positionalThread->loc, "T.thread_binding is given its thread twice");
      else
        args.keywords.emplace_back("thread", *positionalThread);
    }
    if (args.positional.empty() || args.positional.size() > 2) {
      error(loc(call), path + " takes an extent or a (start, stop) pair");
      return nullptr;
    }
    Loop loop{loopRange(args.positional), *kind, {}, ""};
    for (const auto &[key, value] : args.keywords) {
      if (key == "thread" && *kind == ir::ForKind::ThreadBinding) {
        if (auto thread = toString(value, "a thread tag"))
          loop.thread = *thread;
      } else if (key == "annotations") {
        if (auto map = toAttrMap(value))
          loop.annotations = *map;
      } else {
        error(value.loc, "unexpected keyword argument '" + key + "' for " + path);
      }
    }
    if (*kind == ir::ForKind::ThreadBinding && loop.thread.empty())
      error(loc(call), "T.thread_binding needs thread=\"...\"");
    loops.push_back(std::move(loop));
  } else {
    if (isKnownBuiltin(path))
      error(loc(call), path + " cannot be iterated over in a for loop");
    else
      error(loc(call), "unknown function '" + path + "'");
    return nullptr;
  }

  Nesting nesting(*this, loops.size(), at);
  if (!nesting)
    return nullptr;
  pushScope();
  std::vector<ir::VarRef> vars;
  bool ok = true;
  for (size_t i = 0; i < loops.size(); ++i) {
    ok &= loops[i].range.defined();
    DataType dtype = loops[i].range.defined() ? loops[i].range.extent->dtype : DataType::int32();
    ir::VarRef var = ir::makeVar(names[i].first, dtype, names[i].second);
    vars.push_back(var);
    define(names[i].first, Value::ofExpr(var, names[i].second), names[i].second);
    loopDomains_[var.get()] = loops[i].range;
  }
  Stmt body = buildSuite(stmt->suite());
  popScope();
  if (!ok)
    return nullptr;
  if (!body)
    body = noOp(at);
  for (size_t i = loops.size(); i-- > 0;) {
    Loop &loop = loops[i];
    ir::IterVarRef binding;
    if (loop.kind == ir::ForKind::ThreadBinding)
      binding = ir::make<ir::IterVar>(vars[i], loop.range, ir::IterType::ThreadIndex, loop.thread, at);
    body = ir::make<ir::For>(vars[i], loop.range.min, loop.range.extent, loop.kind, body, binding,
                             loop.annotations, at);
  }
  return body;
}

Stmt FunctionBuilder::buildWith(Grammar::With_stmtContext *stmt) {
  ir::SourceLoc at = loc(stmt);
  if (stmt->with_item().size() != 1) {
    error(at, "a with statement must have exactly one context");
    return nullptr;
  }
  auto *item = stmt->with_item(0);
  auto *call = exactly<Grammar::CallExprContext>(item->expr());
  Value callee = call ? eval(call->expr()) : Value::invalid();
  if (!call || callee.kind != Value::Kind::Path) {
    if (!call || !callee.isInvalid())
      error(loc(item), "expected T.block(...), T.init() or T.attr(...) after 'with'");
    return nullptr;
  }
  CallArgs args = evalArgs(call->arglist(), loc(call));
  const std::string &path = callee.text;
  // A block is a BlockRealize around a Block; `with T.decl_buffer(...) as B`
  // may be an Allocate around a DeclBuffer.
  Nesting nesting(*this, path == "T.block" || item->AS() ? 2 : 1, at);
  if (!nesting)
    return nullptr;
  if (item->AS()) {
    // The scoped forms the printer writes for a let, an allocation or a buffer
    // declaration that is not last in its sequence: `with T.allocate(...) as x:`.
    auto *target = item->target();
    if (!target->NAME() || path == "T.block") {
      error(loc(target), "'with " + path + "(...) as' must name one variable");
      return nullptr;
    }
    pushScope();
    std::optional<Wrapper> wrapper =
        isBindingBuiltin(path) ? bindBuiltinResult(target->NAME()->getText(), loc(target), path, args, loc(call))
                               : (error(loc(call), "'with ... as' is not supported for " + path), std::nullopt);
    Stmt body = buildSuite(stmt->suite());
    popScope();
    if (!wrapper)
      return nullptr;
    return (*wrapper)(body ? body : noOp(at));
  }
  if (path == "T.Assert") {
    Expr condition = args.positional.size() == 2
                         ? toExprOf(args.positional[0], DataType::boolTy(), "a condition")
                         : nullptr;
    Expr message = args.positional.size() == 2 ? toExpr(args.positional[1], "a message") : nullptr;
    if (args.positional.size() != 2)
      error(loc(call), "T.Assert takes a condition and a message");
    pushScope();
    Stmt body = buildSuite(stmt->suite());
    popScope();
    if (!condition || !message)
      return nullptr;
    return ir::make<ir::AssertStmt>(condition, message, body ? body : noOp(at), at);
  }
  if (path == "T.block")
    return buildBlock(args, stmt->suite(), at);
  if (path == "T.init") {
    BlockFrame *block = currentBlock();
    if (!block) {
      error(at, "T.init() must be inside a block");
      return nullptr;
    }
    if (block->init) {
      error(at, "block '" + block->name + "' has more than one T.init()");
      return nullptr;
    }
    pushScope();
    Stmt init = buildSuite(stmt->suite());
    popScope();
    // Blocks nested in the init may have moved the frames: look the block up again.
    currentBlock()->init = init ? init : noOp(at);
    return nullptr;
  }
  if (path == "T.LetStmt") {
    // `with T.LetStmt(value, var=A.data):` binds a variable defined elsewhere, as the printer
    // writes the entry checks' binding of a parameter buffer's data (bind-entry-parameters).
    const Value *target = args.keyword("var");
    Expr var = target && args.positional.size() == 1 ? toExpr(*target, "a variable") : nullptr;
    if (!target || args.positional.size() != 1)
      error(loc(call), "'with T.LetStmt(value, var=v):' takes a value and the variable it binds");
    else if (var && !var.isa<ir::Var>())
      error(target->loc, "T.LetStmt's var= must be a variable");
    Expr value = var && var.isa<ir::Var>() ? toExprOf(args.positional[0], var->dtype, "a value") : nullptr;
    pushScope();
    Stmt body = buildSuite(stmt->suite());
    popScope();
    if (!value)
      return nullptr;
    return ir::make<ir::LetStmt>(ir::VarRef(var.as<ir::Var>()), value, body ? body : noOp(at), at);
  }
  if (path == "T.attr" || path == "T.launch_thread") {
    auto attr = path == "T.attr" ? buildAttr(args, loc(call)) : buildLaunchThread(nullptr, at, args, loc(call));
    pushScope();
    Stmt body = buildSuite(stmt->suite());
    popScope();
    if (!attr)
      return nullptr;
    return ir::make<ir::AttrStmt>(attr->node, attr->key, attr->value, body ? body : noOp(at), at);
  }
  if (isKnownBuiltin(path))
    error(loc(call), path + "(...) cannot be used in a with statement");
  else
    error(loc(call), "unknown function '" + path + "'");
  return nullptr;
}

} // namespace vtac::frontend
