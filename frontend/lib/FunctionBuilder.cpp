// FunctionBuilder: the prim_func def itself — parameters and their buffer
// annotations, the return annotation, scopes, and assembling the PrimFunc.
#include "FunctionBuilder.h"

#include "SyntaxParser.h"

namespace vtac::frontend {

using ir::DataType;

ir::SourceLoc FunctionBuilder::loc(const antlr4::ParserRuleContext *context) const {
  return locationOf(file_, context);
}
ir::SourceLoc FunctionBuilder::loc(const antlr4::Token *token) const {
  return locationOf(file_, token);
}
ir::SourceLoc FunctionBuilder::loc(antlr4::tree::TerminalNode *node) const {
  return locationOf(file_, node ? node->getSymbol() : nullptr);
}

void FunctionBuilder::error(ir::SourceLoc at, std::string message) {
  diagnostics_.error(at, std::move(message));
}

void FunctionBuilder::define(const std::string &name, Value value, ir::SourceLoc at) {
  auto &scope = scopes_.back();
  auto [it, inserted] = scope.emplace(name, value);
  if (!inserted) {
    error(at, "redefinition of '" + name + "'");
    return;
  }
}

const Value *FunctionBuilder::lookup(const std::string &name) const {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto found = scope->find(name);
    if (found != scope->end())
      return &found->second;
  }
  return nullptr;
}

// `A: T.Buffer((128, 128), "float32")`, `A: T.Buffer[(128,), "int8"]`,
// `a: T.handle` (bound later by T.match_buffer) or a scalar `n: T.int32`.
void FunctionBuilder::bindParameter(Grammar::ParameterContext *parameter) {
  std::string name = parameter->NAME()->getText();
  ir::SourceLoc at = loc(parameter);
  if (!parameter->COLON()) {
    error(at, "parameter '" + name + "' needs a type annotation such as T.handle or T.Buffer(...)");
    return;
  }
  if (parameter->ASSIGN()) {
    error(loc(parameter->ASSIGN()), "parameters of a prim_func cannot have default values");
    return;
  }
  // `p: T.handle("float32")` (TVM's typed pointer parameter, optionally with a scope).
  if (auto *call = exactly<Grammar::CallExprContext>(parameter->expr(0))) {
    Value callee = eval(call->expr());
    if (callee.kind == Value::Kind::Path && callee.text == "T.handle") {
      CallArgs args = evalArgs(call->arglist(), loc(call));
      bindBuiltinResult(name, at, callee.text, args, loc(call));
      if (const Value *bound = lookup(name); bound && bound->kind == Value::Kind::Expr)
        params_.push_back(ir::cast<ir::Var>(bound->expr));
      return;
    }
  }
  Value annotation = eval(parameter->expr(0));
  if (annotation.kind == Value::Kind::Buffer) {
    ir::BufferRef buffer = annotation.buffer;
    // The annotation built an anonymous buffer; it takes the parameter's name.
    ir::VarRef data = buffer->data;
    auto *named = ir::copyNode(*buffer);
    named->name = name;
    named->data = ir::make<ir::Var>(name, *data->pointer, at);
    named->setLoc(at);
    buffer = ir::BufferRef(named);
    ir::VarRef handle = ir::make<ir::Var>(name, DataType::handle(), at);
    params_.push_back(handle);
    bufferMap_.emplace_back(handle, buffer);
    define(name, Value::ofBuffer(buffer, at), at);
    return;
  }
  if (annotation.kind == Value::Kind::Path) {
    std::optional<DataType> dtype = DataType::parse(annotation.text.substr(annotation.text.find('.') + 1));
    if (annotation.text.rfind("T.", 0) == 0 && dtype && !dtype->isVoid()) {
      ir::VarRef var = ir::makeVar(name, *dtype, at);
      params_.push_back(var);
      define(name, Value::ofExpr(var, at), at);
      return;
    }
  }
  if (!annotation.isInvalid())
    error(loc(parameter->expr(0)),
          "unsupported parameter annotation: expected T.handle, T.Buffer(...) or a scalar type such as T.int32");
}

ir::PrimFuncRef FunctionBuilder::build(Grammar::FuncdefContext *def) {
  size_t errorsBefore = diagnostics_.errorCount();
  scopes_.clear();
  pushScope();
  blocks_.clear();
  blocks_.emplace_back();  // the implicit root block
  blocks_.back().name = "root";
  if (auto *parameters = def->parameters())
    for (auto *parameter : parameters->parameter())
      bindParameter(parameter);

  DataType retType = DataType::voidTy();
  if (auto *annotation = def->expr()) {
    Value value = eval(annotation);
    if (value.kind != Value::Kind::None) {
      std::optional<DataType> dtype = toDataType(value);
      if (dtype)
        retType = *dtype;
    }
  }

  // Parameters and the body share one scope, as in Python.
  ir::Stmt body = buildSuite(def->suite());
  if (!body)
    body = ir::make<ir::Evaluate>(ir::intImm(0), loc(def->suite()));
  body = wrapInRootBlock(body);
  if (diagnostics_.errorCount() != errorsBefore)
    return nullptr;
  return ir::make<ir::PrimFunc>(params_, bufferMap_, body, attrs_, retType, loc(def));
}

} // namespace vtac::frontend
