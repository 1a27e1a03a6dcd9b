// Runs the generated ANTLR parser over a source file one top-level piece at a
// time: a `@T.prim_func` / `@R.function` def, the header line of a module
// class, or one member of that class. Only the current piece's tokens and
// parse tree are in memory, which keeps memory proportional to the largest
// function rather than to the file.
//
// Each piece is parsed with the fast SLL prediction mode first and with full
// LL only when SLL fails (as the ANTLR authors recommend: SLL is enough for
// nearly every real input and much cheaper). Lexical and syntax errors go into
// the DiagnosticEngine with readable messages; a piece with errors has no tree
// and the stream carries on with the next one.
#pragma once

#include "IndentationTokens.h"
#include "TVMScriptLexer.h"
#include "TVMScriptParser.h"
#include "vtac/frontend/Diagnostics.h"
#include "vtac/frontend/SourceFile.h"

#include <antlr4-runtime.h>

#include <memory>

namespace vtac::frontend {

struct SyntaxPiece {
  enum class Kind { Statement, ClassHeader, End };
  Kind kind = Kind::End;
  /// Statement: the parsed statement (null after errors).
  grammar::TVMScriptParser::StmtContext *stmt = nullptr;
  /// ClassHeader: the parsed header (null after errors).
  grammar::TVMScriptParser::Class_headerContext *header = nullptr;
  /// Statement: a member of a module class rather than a top-level statement.
  bool insideClass = false;
  /// Where the piece starts.
  ir::SourceLoc loc;
};

class SyntaxStream {
public:
  SyntaxStream(const SourceFile &file, DiagnosticEngine &diagnostics);
  ~SyntaxStream();

  /// The next piece. Its trees stay valid until the following call.
  SyntaxPiece next();

private:
  const antlr4::Token &peek();
  std::unique_ptr<antlr4::Token> take();
  antlr4::ParserRuleContext *parse(std::vector<std::unique_ptr<antlr4::Token>> tokens,
                                   bool isClassHeader);

  const SourceFile &file_;
  DiagnosticEngine &diagnostics_;
  std::unique_ptr<antlr4::CharStream> input_;
  std::unique_ptr<grammar::TVMScriptLexer> lexer_;
  std::unique_ptr<TokenLayout> layout_;
  std::unique_ptr<antlr4::Token> peeked_;
  int depth_ = 0;           // indentation depth after the last token taken
  int memberDepth_ = -1;    // depth of the members of the open module class, -1 outside one
  bool finished_ = false;
  // The current piece: its tokens, stream and parser (and so its tree).
  std::unique_ptr<antlr4::ListTokenSource> pieceTokens_;
  std::unique_ptr<antlr4::CommonTokenStream> pieceStream_;
  std::unique_ptr<grammar::TVMScriptParser> pieceParser_;
};

/// Location of the first character of a token or of a rule's first token.
ir::SourceLoc locationOf(const SourceFile &file, const antlr4::Token *token);
ir::SourceLoc locationOf(const SourceFile &file, const antlr4::ParserRuleContext *context);

} // namespace vtac::frontend
