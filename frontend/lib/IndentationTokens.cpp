#include "IndentationTokens.h"

#include <antlr4-runtime.h>

#include <cstdio>

namespace vtac::frontend {

using grammar::TVMScriptLexer;
using antlr4::Token;

namespace {

// Spelling of a character for a message: printable ASCII as itself, anything
// else as its code point, so a diagnostic never carries raw control bytes.
std::string describeCharacter(const std::string &text) {
  if (text.size() == 1 && text[0] >= 0x20 && text[0] < 0x7f)
    return "'" + text + "'";
  uint32_t codePoint = 0;
  auto bytes = reinterpret_cast<const unsigned char *>(text.data());
  if (text.size() == 1)
    codePoint = bytes[0];
  else if (text.size() == 2)
    codePoint = ((bytes[0] & 0x1F) << 6) | (bytes[1] & 0x3F);
  else if (text.size() == 3)
    codePoint = ((bytes[0] & 0x0F) << 12) | ((bytes[1] & 0x3F) << 6) | (bytes[2] & 0x3F);
  else if (text.size() == 4)
    codePoint = ((bytes[0] & 0x07) << 18) | ((bytes[1] & 0x3F) << 12) |
                ((bytes[2] & 0x3F) << 6) | (bytes[3] & 0x3F);
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "U+%04X", codePoint);
  return buffer;
}

bool isOpenBracket(size_t type) {
  return type == TVMScriptLexer::LPAREN || type == TVMScriptLexer::LBRACK ||
         type == TVMScriptLexer::LBRACE;
}

size_t closerOf(size_t open) {
  switch (open) {
  case TVMScriptLexer::LPAREN: return TVMScriptLexer::RPAREN;
  case TVMScriptLexer::LBRACK: return TVMScriptLexer::RBRACK;
  default: return TVMScriptLexer::RBRACE;
  }
}

bool isCloseBracket(size_t type) {
  return type == TVMScriptLexer::RPAREN || type == TVMScriptLexer::RBRACK ||
         type == TVMScriptLexer::RBRACE;
}

// Tokens after which `+`, `-` and `~` are binary operators.
bool endsOperand(size_t type) {
  switch (type) {
  case TVMScriptLexer::NAME: case TVMScriptLexer::INTEGER:
  case TVMScriptLexer::FLOAT_NUMBER: case TVMScriptLexer::STRING:
  case TVMScriptLexer::NONE: case TVMScriptLexer::TRUE: case TVMScriptLexer::FALSE:
  case TVMScriptLexer::RPAREN: case TVMScriptLexer::RBRACK: case TVMScriptLexer::RBRACE:
    return true;
  default:
    return false;
  }
}

// Width of the indentation at the end of a NEWLINE token's text, with tabs
// advancing to the next multiple of `tabSize` (8 in Python).
uint32_t indentationWidth(const std::string &newlineText, uint32_t tabSize) {
  uint32_t width = 0;
  for (char c : newlineText) {
    if (c == '\n' || c == '\r' || c == '\f')
      width = 0;
    else if (c == '\t')
      width = (width / tabSize + 1) * tabSize;
    else
      ++width;
  }
  return width;
}

} // namespace

struct TokenLayout::OpenBracket {
  size_t type;
  std::string text;
  size_t line, column;
};

TokenLayout::TokenLayout(TVMScriptLexer &lexer, const SourceFile &file, DiagnosticEngine &diagnostics)
    : lexer_(lexer), file_(file), diagnostics_(diagnostics) {}

TokenLayout::~TokenLayout() = default;

std::unique_ptr<Token> TokenLayout::synthesize(size_t type, const std::string &text, const Token &at) {
  auto token = std::make_unique<antlr4::CommonToken>(
      std::make_pair(static_cast<antlr4::TokenSource *>(&lexer_), lexer_.getInputStream()), type,
      Token::DEFAULT_CHANNEL, at.getStartIndex(), at.getStartIndex() - 1);
  token->setLine(at.getLine());
  token->setCharPositionInLine(at.getCharPositionInLine());
  token->setText(text);
  return token;
}

ir::SourceLoc TokenLayout::at(const Token &token) const {
  return file_.at(token.getLine(), token.getCharPositionInLine() + 1);
}

// `lineBreak` is the raw NEWLINE that ended the previous line (where an
// "unexpected end of line" points), null at the start of the file.
// False when the line is nested too deeply: tokenizing stops there.
bool TokenLayout::startLogicalLine(const Token &first, const Token *lineBreak, uint32_t width,
                                   uint32_t tabsAsOne) {
  if (lineHasTokens_ && lineBreak)
    out_.push_back(synthesize(TVMScriptLexer::NEWLINE, "\n", *lineBreak));
  lineHasTokens_ = true;
  lineNesting_ = 0;
  lineOperators_ = 0;
  linePostfixOperators_ = 0;
  previousType_ = Token::INVALID_TYPE;
  // As Python's tokenizer: a line whose place among the levels changes with the tab size
  // mixes tabs and spaces inconsistently; tokenizing stops there.
  auto tabError = [&] {
    diagnostics_.error(at(first), "inconsistent use of tabs and spaces in indentation");
    return false;
  };
  if (width > indents_.back()) {
    if (tabsAsOne <= tabsAsOneIndents_.back())
      return tabError();
    if (indents_.size() > kMaxNestingDepth) {
      diagnostics_.error(at(first), "indentation nested too deeply (more than " +
                                                std::to_string(kMaxNestingDepth) + " levels)");
      return false;
    }
    indents_.push_back(width);
    tabsAsOneIndents_.push_back(tabsAsOne);
    out_.push_back(synthesize(TVMScriptLexer::INDENT, "<INDENT>", first));
    return true;
  }
  while (width < indents_.back()) {
    indents_.pop_back();
    tabsAsOneIndents_.pop_back();
    out_.push_back(synthesize(TVMScriptLexer::DEDENT, "<DEDENT>", first));
  }
  if (width != indents_.back())
    diagnostics_.error(at(first),
                       "unindent does not match any outer indentation level");
  else if (tabsAsOne != tabsAsOneIndents_.back())
    return tabError();
  return true;
}

// Checks one real token; false when the token is so wrong that tokenizing stops.
bool TokenLayout::checkToken(const Token &token) {
  size_t type = token.getType();
  // Every infix or postfix operator after an operand (`a + b`, `a.b`, `f(x)`,
  // `x[0]`) deepens the left-leaning tree the parser builds for the line.
  bool extendsOperand = endsOperand(previousType_) && !endsOperand(type) &&
                        type != TVMScriptLexer::COMMA && type != TVMScriptLexer::COLON;
  bool postfix = type == TVMScriptLexer::DOT || type == TVMScriptLexer::LPAREN ||
                 type == TVMScriptLexer::LBRACK;
  if (extendsOperand && (postfix ? ++linePostfixOperators_ > kMaxLinePostfixOperators
                                 : ++lineOperators_ > kMaxLineOperators)) {
    size_t limit = postfix ? kMaxLinePostfixOperators : kMaxLineOperators;
    diagnostics_.error(at(token), "expression too long (more than " + std::to_string(limit) +
                                      (postfix ? " attribute, call and subscript operators" : " operators") +
                                      " on one line)");
    return false;
  }
  if (type == TVMScriptLexer::UNKNOWN_CHAR) {
    diagnostics_.error(at(token), "invalid character " +
                                              describeCharacter(token.getText()) +
                                              " in program text");
  } else if (type == TVMScriptLexer::UNTERMINATED_STRING) {
    diagnostics_.error(at(token), "unterminated string literal");
    // The string swallowed the rest of its line, closing brackets included.
    while (!openBrackets_.empty() && openBrackets_.back().line == token.getLine())
      openBrackets_.pop_back();
  } else if (isOpenBracket(type)) {
    openBrackets_.push_back({type, token.getText(), token.getLine(), token.getCharPositionInLine() + 1});
  } else if (isCloseBracket(type)) {
    if (openBrackets_.empty()) {
      diagnostics_.error(at(token), "unmatched '" + token.getText() + "'");
    } else {
      OpenBracket open = openBrackets_.back();
      openBrackets_.pop_back();
      if (closerOf(open.type) != type)
        diagnostics_.error(at(token), "closing '" + token.getText() + "' does not match opening '" +
                                          open.text + "' at line " + std::to_string(open.line));
    }
  } else if (type == TVMScriptLexer::POWER || type == TVMScriptLexer::IF ||
             type == TVMScriptLexer::NOT || type == TVMScriptLexer::LAMBDA ||
             ((type == TVMScriptLexer::MINUS || type == TVMScriptLexer::PLUS ||
               type == TVMScriptLexer::TILDE) &&
              !endsOperand(previousType_))) {
    ++lineNesting_;
  }
  previousType_ = type;
  if (lineNesting_ + openBrackets_.size() > kMaxNestingDepth) {
    diagnostics_.error(at(token), "expression nested too deeply (more than " +
                                              std::to_string(kMaxNestingDepth) + " levels)");
    return false;
  }
  return true;
}

void TokenLayout::finish(std::unique_ptr<Token> eof) {
  for (const OpenBracket &open : openBrackets_)
    diagnostics_.error(file_.at(open.line, open.column), "'" + open.text + "' was never closed");
  if (lineHasTokens_)
    out_.push_back(synthesize(TVMScriptLexer::NEWLINE, "\n", firstNewline_ ? *firstNewline_ : *eof));
  for (size_t level = 1; level < indents_.size(); ++level)
    out_.push_back(synthesize(TVMScriptLexer::DEDENT, "<DEDENT>", *eof));
  out_.push_back(std::move(eof));
}

std::unique_ptr<Token> TokenLayout::next() {
  while (out_.empty() && !finished_)
    step();
  if (out_.empty())
    return synthesize(Token::EOF, "<EOF>", *lastEof_);
  std::unique_ptr<Token> token = std::move(out_.front());
  out_.pop_front();
  return token;
}

// Reads one raw token and queues what it lays out to.
void TokenLayout::step() {
  std::unique_ptr<Token> token = lexer_.nextToken();
  size_t type = token->getType();
  if (type == Token::EOF) {
    lastEof_ = std::make_unique<antlr4::CommonToken>(token.get());
    finish(std::move(token));
    finished_ = true;
    return;
  }
  if (type == TVMScriptLexer::NEWLINE) {
    // Inside brackets a line break is whitespace; otherwise only the last of a
    // run of line breaks matters, it carries the next line's indentation.
    if (!openBrackets_.empty())
      return;
    if (!firstNewline_)
      firstNewline_ = std::make_unique<antlr4::CommonToken>(token.get());
    lastNewline_ = std::move(token);
    return;
  }
  bool keepGoing = true;
  if (lastNewline_ || atFileStart_) {
    uint32_t width = lastNewline_ ? indentationWidth(lastNewline_->getText(), 8)
                                  : static_cast<uint32_t>(token->getCharPositionInLine());
    uint32_t tabsAsOne = lastNewline_ ? indentationWidth(lastNewline_->getText(), 1) : width;
    keepGoing = startLogicalLine(*token, firstNewline_.get(), width, tabsAsOne);
    firstNewline_.reset();
    lastNewline_.reset();
    atFileStart_ = false;
  }
  keepGoing = keepGoing && checkToken(*token);
  std::unique_ptr<Token> eof = synthesize(Token::EOF, "<EOF>", *token);
  out_.push_back(std::move(token));
  if (!keepGoing || diagnostics_.limitReached()) {
    // Stop here: the rest of the file is not looked at.
    openBrackets_.clear();
    lastEof_ = std::make_unique<antlr4::CommonToken>(eof.get());
    finish(std::move(eof));
    finished_ = true;
  }
}

std::vector<std::unique_ptr<Token>> layOutTokens(TVMScriptLexer &lexer, const SourceFile &file,
                                                 DiagnosticEngine &diagnostics) {
  TokenLayout layout(lexer, file, diagnostics);
  std::vector<std::unique_ptr<Token>> tokens;
  do
    tokens.push_back(layout.next());
  while (tokens.back()->getType() != Token::EOF);
  return tokens;
}

} // namespace vtac::frontend
