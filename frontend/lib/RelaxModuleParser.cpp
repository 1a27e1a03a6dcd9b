#include "vtac/frontend/RelaxFrontend.h"

#include "RelaxFunctionBuilder.h"
#include "SyntaxParser.h"

namespace vtac::frontend {

namespace {

using Grammar = grammar::TVMScriptParser;

bool isRelaxDecorated(Grammar::DecoratedContext *decorated) {
  for (Grammar::DecoratorContext *decorator : decorated->decorator())
    if (decorator->expr()->getText().rfind("R.function", 0) == 0) return true;
  return false;
}

void addRelaxFunctions(const std::vector<Grammar::StmtContext *> &stmts, const SourceFile &file,
                       DiagnosticEngine &diagnostics, const std::string &className, ir::IRModule &module) {
  for (Grammar::StmtContext *stmt : stmts) {
    Grammar::Compound_stmtContext *compound = stmt->compound_stmt();
    Grammar::DecoratedContext *decorated = compound ? compound->decorated() : nullptr;
    if (!decorated) continue;
    if (Grammar::ClassdefContext *cls = decorated->classdef()) {
      if (!cls->suite()->simple_stmt())
        addRelaxFunctions(cls->suite()->stmt(), file, diagnostics, cls->NAME()->getText(), module);
      continue;
    }
    if (!isRelaxDecorated(decorated)) continue;
    Grammar::FuncdefContext *def = decorated->funcdef();
    if (ir::RelaxFunctionRef func = RelaxFunctionBuilder(file, diagnostics, className).build(def))
      module.add(def->NAME()->getText(), func);
  }
}

} // namespace

std::optional<ParsedModule> parseModuleWithRelax(const SourceFile &file, DiagnosticEngine &diagnostics) {
  std::optional<ParsedModule> parsed = parseModule(file, diagnostics);
  if (!parsed) return std::nullopt;
  SyntaxTree tree = parseSyntax(file, diagnostics);
  addRelaxFunctions(tree.root->stmt(), file, diagnostics, parsed->className, parsed->module);
  if (!diagnostics.hasErrors()) checkRelaxCalls(parsed->module, diagnostics);
  if (diagnostics.hasErrors()) return std::nullopt;
  parsed->relaxFunctions.clear();
  return parsed;
}

} // namespace vtac::frontend
