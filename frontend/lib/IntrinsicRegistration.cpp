#include "IntrinsicRegistration.h"

#include "Literals.h"
#include "ParseTreeCasts.h"
#include "SyntaxParser.h"

namespace vtac::frontend {

using Grammar = grammar::TVMScriptParser;

namespace {

// The text of a plain name or string literal argument; empty otherwise.
std::string argumentText(Grammar::ArgumentContext *argument, bool wantString) {
  auto *positional = exactly<Grammar::PositionalArgumentContext>(argument);
  auto *atomExpr = positional ? exactly<Grammar::AtomExprContext>(positional->expr()) : nullptr;
  if (!atomExpr) return "";
  if (wantString) {
    auto *strings = exactly<Grammar::StringAtomContext>(atomExpr->atom());
    if (!strings) return "";
    std::string text;
    for (auto *piece : strings->STRING()) text += decodeStringLiteral(piece->getText());
    return text;
  }
  auto *name = exactly<Grammar::NameAtomContext>(atomExpr->atom());
  return name ? name->NAME()->getText() : "";
}

} // namespace

bool readIntrinsicRegistration(const SourceFile &file, DiagnosticEngine &diagnostics, Grammar::Small_stmtContext *stmt,
                               std::vector<TensorIntrinRegistration> &registrations) {
  auto *exprStmt = stmt->expr_stmt();
  if (!exprStmt || exprStmt->ASSIGN() || exprStmt->annassign() || exprStmt->augassign()) return false;
  auto *call = exactly<Grammar::CallExprContext>(exprStmt->testlist(0)->expr(0));
  std::string callee = call ? call->expr()->getText() : "";
  if (callee != "tir.TensorIntrin.register" && callee != "tvm.tir.TensorIntrin.register") return false;
  ir::SourceLoc at = locationOf(file, call);
  auto arguments = call->arglist() ? call->arglist()->argument() : std::vector<Grammar::ArgumentContext *>{};
  TensorIntrinRegistration registration;
  if (arguments.size() == 3) {
    registration.name = argumentText(arguments[0], true);
    registration.desc = argumentText(arguments[1], false);
    registration.impl = argumentText(arguments[2], false);
  }
  if (registration.name.empty() || registration.desc.empty() || registration.impl.empty()) {
    diagnostics.error(at, "expected " + callee + "(\"name\", desc_prim_func, impl_prim_func)");
    return true;
  }
  registration.loc = at;
  registrations.push_back(std::move(registration));
  return true;
}

} // namespace vtac::frontend
