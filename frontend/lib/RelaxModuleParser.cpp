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

} // namespace

std::optional<ParsedModule> parseModuleWithRelax(const SourceFile &file, DiagnosticEngine &diagnostics) {
  std::optional<ParsedModule> parsed = parseModule(file, diagnostics);
  if (!parsed) return std::nullopt;
  // A second pass over the pieces, building what parseModule recorded as skipped.
  SyntaxStream syntax(file, diagnostics);
  std::string className;
  for (SyntaxPiece piece = syntax.next(); piece.kind != SyntaxPiece::Kind::End; piece = syntax.next()) {
    if (piece.kind == SyntaxPiece::Kind::ClassHeader) {
      if (piece.header) className = piece.header->NAME()->getText();
      continue;
    }
    Grammar::Compound_stmtContext *compound = piece.stmt ? piece.stmt->compound_stmt() : nullptr;
    Grammar::DecoratedContext *decorated = compound ? compound->decorated() : nullptr;
    if (!decorated || !decorated->funcdef() || !isRelaxDecorated(decorated)) continue;
    Grammar::FuncdefContext *def = decorated->funcdef();
    std::string moduleName = piece.insideClass ? className : "";
    if (ir::RelaxFunctionRef func = RelaxFunctionBuilder(file, diagnostics, moduleName).build(def))
      parsed->module.add(def->NAME()->getText(), func);
  }
  if (!diagnostics.hasErrors()) checkRelaxCalls(parsed->module, diagnostics);
  if (diagnostics.hasErrors()) return std::nullopt;
  parsed->relaxFunctions.clear();
  return parsed;
}

} // namespace vtac::frontend
