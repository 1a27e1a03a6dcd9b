// Turns the raw token stream of TVMScriptLexer into the one the parser reads:
// line breaks inside brackets and blank lines disappear, a change of
// indentation becomes INDENT/DEDENT tokens, and the file ends with NEWLINE,
// the pending DEDENTs and EOF (Python's tokenizer rules).
//
// It also finds the errors a tokenizer can see: unknown characters,
// unterminated strings, unbalanced brackets, inconsistent dedents and nesting
// so deep that the recursive-descent parser could exhaust the stack.
#pragma once

#include "TVMScriptLexer.h"
#include "vtac/frontend/Diagnostics.h"
#include "vtac/frontend/SourceFile.h"

#include <deque>
#include <memory>
#include <vector>

namespace vtac::frontend {

/// Nesting deeper than this (open brackets plus prefix/right-associative
/// operators on one logical line, or indentation levels) is rejected.
constexpr size_t kMaxNestingDepth = 200;

/// More infix operators than this on one logical line are rejected: the parser
/// loops over `a + b + c ...`, but the tree it builds (and every IR pass after it)
/// is as deep as the chain is long.
constexpr size_t kMaxLineOperators = 1000;

/// The same for postfix operators (`.name`, calls, subscripts), counted apart
/// because most of them (`A[i]`, `T.int64(1)`) are leaves of the tree, while a
/// chain of them (`a.b.c ...`, `f()()...`, `x[0][0]...`) is as deep as it is long.
constexpr size_t kMaxLinePostfixOperators = 2000;

/// Lays out tokens one at a time, reading the lexer only as far as needed, so
/// that a large file never has all its tokens in memory at once.
class TokenLayout {
public:
  TokenLayout(grammar::TVMScriptLexer &lexer, const SourceFile &file, DiagnosticEngine &diagnostics);
  ~TokenLayout();

  /// The next token; EOF again and again once the input is exhausted.
  std::unique_ptr<antlr4::Token> next();

private:
  struct OpenBracket;

  void step();
  /// `width` counts a tab as advancing to the next multiple of 8, `tabsAsOne` as one column.
  bool startLogicalLine(const antlr4::Token &first, const antlr4::Token *lineBreak, uint32_t width,
                        uint32_t tabsAsOne);
  bool checkToken(const antlr4::Token &token);
  void finish(std::unique_ptr<antlr4::Token> eof);
  std::unique_ptr<antlr4::Token> synthesize(size_t type, const std::string &text,
                                            const antlr4::Token &at);
  ir::SourceLoc at(const antlr4::Token &token) const;

  grammar::TVMScriptLexer &lexer_;
  const SourceFile &file_;
  DiagnosticEngine &diagnostics_;
  std::deque<std::unique_ptr<antlr4::Token>> out_;
  std::vector<uint32_t> indents_{0};
  // The same levels measured with tabs as one column: where the two measures disagree
  // on a comparison, the meaning depends on the tab size (Python's TabError).
  std::vector<uint32_t> tabsAsOneIndents_{0};
  std::vector<OpenBracket> openBrackets_;
  // Recursion the parser will need for the current logical line, besides one
  // level per open bracket.
  size_t lineNesting_ = 0;
  size_t lineOperators_ = 0;  // infix operators (and `=`, `in`, ...) after an operand
  size_t linePostfixOperators_ = 0;
  size_t previousType_ = 0;
  bool lineHasTokens_ = false;
  bool atFileStart_ = true;
  bool finished_ = false;
  std::unique_ptr<antlr4::Token> firstNewline_, lastNewline_, lastEof_;
};

/// Every token of the input at once (for tests and small inputs).
std::vector<std::unique_ptr<antlr4::Token>>
layOutTokens(grammar::TVMScriptLexer &lexer, const SourceFile &file, DiagnosticEngine &diagnostics);

} // namespace vtac::frontend
