// Runs the generated ANTLR parser over one source file: validates the text,
// lays out indentation tokens, parses with the fast SLL prediction mode and
// falls back to full LL only when SLL fails (as the ANTLR authors recommend:
// SLL is enough for nearly every real input and much cheaper). Syntax errors
// go into the DiagnosticEngine with readable messages.
#pragma once

#include "TVMScriptLexer.h"
#include "TVMScriptParser.h"
#include "vtac/frontend/Diagnostics.h"
#include "vtac/frontend/SourceFile.h"

#include <antlr4-runtime.h>

#include <memory>

namespace vtac::frontend {

/// A parse tree and everything it points into; the tree is null when the file
/// has lexical or syntax errors.
struct SyntaxTree {
  std::unique_ptr<antlr4::ANTLRInputStream> input;
  std::unique_ptr<grammar::TVMScriptLexer> lexer;
  std::unique_ptr<antlr4::ListTokenSource> tokenSource;
  std::unique_ptr<antlr4::CommonTokenStream> tokens;
  std::unique_ptr<grammar::TVMScriptParser> parser;
  grammar::TVMScriptParser::File_inputContext *root = nullptr;
};

SyntaxTree parseSyntax(const SourceFile &file, DiagnosticEngine &diagnostics);

/// Location of the first character of a token or of a rule's first token.
ir::SourceLoc locationOf(const SourceFile &file, const antlr4::Token *token);
ir::SourceLoc locationOf(const SourceFile &file, const antlr4::ParserRuleContext *context);

} // namespace vtac::frontend
