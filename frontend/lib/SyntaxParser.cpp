#include "SyntaxParser.h"

#include "AsciiCharStream.h"
#include "IndentationTokens.h"

namespace vtac::frontend {

using grammar::TVMScriptLexer;
using grammar::TVMScriptParser;

ir::SourceLoc locationOf(const SourceFile &file, const antlr4::Token *token) {
  if (!token)
    return {file.id(), 0, 0};
  return file.at(token->getLine(), token->getCharPositionInLine() + 1);
}

ir::SourceLoc locationOf(const SourceFile &file, const antlr4::ParserRuleContext *context) {
  return locationOf(file, context ? const_cast<antlr4::ParserRuleContext *>(context)->getStart() : nullptr);
}

namespace {

// How a token kind reads in a message ("expected ':'", "unexpected end of line").
std::string describeTokenType(const antlr4::dfa::Vocabulary &vocabulary, size_t type) {
  switch (type) {
  case antlr4::Token::EOF: return "end of file";
  case TVMScriptLexer::NEWLINE: return "end of line";
  case TVMScriptLexer::INDENT: return "indentation";
  case TVMScriptLexer::DEDENT: return "dedent";
  case TVMScriptLexer::NAME: return "a name";
  case TVMScriptLexer::INTEGER: return "an integer";
  case TVMScriptLexer::FLOAT_NUMBER: return "a number";
  case TVMScriptLexer::STRING: return "a string";
  default: return vocabulary.getLiteralName(type);
  }
}

std::string describeToken(const antlr4::dfa::Vocabulary &vocabulary, const antlr4::Token *token) {
  size_t type = token->getType();
  if (type == TVMScriptLexer::NAME || type == TVMScriptLexer::INTEGER ||
      type == TVMScriptLexer::FLOAT_NUMBER)
    return "'" + token->getText() + "'";
  if (type == TVMScriptLexer::STRING)
    return "string " + token->getText();
  return describeTokenType(vocabulary, type);
}

class SyntaxErrorReporter : public antlr4::BaseErrorListener {
public:
  SyntaxErrorReporter(const SourceFile &file, DiagnosticEngine &diagnostics)
      : file_(file), diagnostics_(diagnostics) {}

  void syntaxError(antlr4::Recognizer *recognizer, antlr4::Token *offending, size_t line,
                   size_t column, const std::string &, std::exception_ptr) override {
    auto *parser = dynamic_cast<antlr4::Parser *>(recognizer);
    if (!parser || !offending)
      return;
    const antlr4::dfa::Vocabulary &vocabulary = parser->getVocabulary();
    antlr4::misc::IntervalSet expected;
    try {
      expected = parser->getExpectedTokens();
    } catch (...) {
      // No expectation can be computed in this parser state; report without it.
    }
    ir::SourceLoc at = file_.at(line, column + 1);
    size_t type = offending->getType();
    // After one error, ANTLR's recovery tends to trip over the dedents and the
    // end of file that close the broken statement: those add nothing.
    if (reported_ && (type == TVMScriptLexer::DEDENT || type == antlr4::Token::EOF))
      return;
    reported_ = true;
    std::string message;
    if (type == TVMScriptLexer::INDENT)
      message = "unexpected indent";
    else if (expected.contains(size_t(TVMScriptLexer::INDENT)) && expected.size() == 1)
      message = "expected an indented block";
    else if (type == TVMScriptLexer::DEDENT)
      message = "unexpected dedent";
    else
      message = "invalid syntax: unexpected " + describeToken(vocabulary, offending);
    if (!expected.isEmpty() && expected.size() <= 3 && !expected.contains(size_t(TVMScriptLexer::INDENT))) {
      std::string list;
      for (size_t i = 0; i < expected.size(); ++i) {
        if (i != 0)
          list += i + 1 == expected.size() ? " or " : ", ";
        list += describeTokenType(vocabulary, expected.get(i));
      }
      message += ", expected " + list;
    }
    diagnostics_.error(at, message);
  }

private:
  const SourceFile &file_;
  DiagnosticEngine &diagnostics_;
  bool reported_ = false;
};

} // namespace

SyntaxStream::SyntaxStream(const SourceFile &file, DiagnosticEngine &diagnostics)
    : file_(file), diagnostics_(diagnostics) {
  ir::SourceLoc badByte = file.firstInvalidUtf8();
  if (badByte.isKnown()) {
    diagnostics.error(badByte, "file is not valid UTF-8 text");
    finished_ = true;
    return;
  }
  if (AsciiCharStream::isAscii(file.text())) {
    input_ = std::make_unique<AsciiCharStream>(file.text(), file.name());
  } else {
    auto decoded = std::make_unique<antlr4::ANTLRInputStream>(file.text());
    decoded->name = file.name();
    input_ = std::move(decoded);
  }
  lexer_ = std::make_unique<TVMScriptLexer>(input_.get());
  lexer_->removeErrorListeners();
  layout_ = std::make_unique<TokenLayout>(*lexer_, file, diagnostics);
}

SyntaxStream::~SyntaxStream() = default;

const antlr4::Token &SyntaxStream::peek() {
  if (!peeked_)
    peeked_ = layout_->next();
  return *peeked_;
}

std::unique_ptr<antlr4::Token> SyntaxStream::take() {
  std::unique_ptr<antlr4::Token> token = peeked_ ? std::move(peeked_) : layout_->next();
  if (token->getType() == TVMScriptLexer::INDENT)
    ++depth_;
  else if (token->getType() == TVMScriptLexer::DEDENT)
    --depth_;
  return token;
}

SyntaxPiece SyntaxStream::next() {
  pieceParser_.reset();
  pieceStream_.reset();
  pieceTokens_.reset();
  SyntaxPiece piece;
  if (finished_)
    return piece;
  using Token = antlr4::Token;
  std::vector<std::unique_ptr<Token>> tokens;
  size_t errorsBefore = diagnostics_.errorCount();
  for (;;) {
    size_t type = peek().getType();
    // Blank statements between pieces, and the dedent that closes the class.
    bool closesClass = type == TVMScriptLexer::DEDENT && memberDepth_ >= 0 && depth_ <= memberDepth_;
    if (type != TVMScriptLexer::NEWLINE && !closesClass)
      break;
    take();
    if (closesClass)
      memberDepth_ = -1;
  }
  if (peek().getType() == Token::EOF) {
    finished_ = true;
    return piece;
  }
  int pieceDepth = depth_;
  piece.loc = locationOf(file_, &peek());
  piece.insideClass = memberDepth_ >= 0;
  bool lineIsDecorator = false, atLineStart = true, isClassHeader = false, sawClass = false;
  for (;;) {
    std::unique_ptr<Token> token = take();
    size_t type = token->getType();
    if (type == Token::EOF) {
      finished_ = true;
      break;
    }
    if (atLineStart && depth_ == pieceDepth) {
      lineIsDecorator = type == TVMScriptLexer::AT;
      sawClass = sawClass || (type == TVMScriptLexer::CLASS && memberDepth_ < 0);
    }
    atLineStart = type == TVMScriptLexer::NEWLINE;
    tokens.push_back(std::move(token));
    // A piece ends where its last line ends back at its own depth; decorator
    // lines belong to the def that follows. A module class stops after its
    // header: its members are pieces of their own.
    if (type == TVMScriptLexer::INDENT && sawClass && depth_ == pieceDepth + 1) {
      isClassHeader = true;
      memberDepth_ = depth_;
      break;
    }
    bool lineEnds = type == TVMScriptLexer::NEWLINE && depth_ == pieceDepth && !lineIsDecorator &&
                    peek().getType() != TVMScriptLexer::INDENT;
    if (lineEnds || (type == TVMScriptLexer::DEDENT && depth_ == pieceDepth))
      break;
  }
  if (tokens.empty())
    return piece;
  piece.kind = isClassHeader ? SyntaxPiece::Kind::ClassHeader : SyntaxPiece::Kind::Statement;
  // Lexical errors (brackets, indentation, stray characters) make the
  // parser's own messages mostly noise, so such a piece is not parsed.
  if (diagnostics_.errorCount() != errorsBefore || diagnostics_.limitReached())
    return piece;
  antlr4::ParserRuleContext *tree = parse(std::move(tokens), isClassHeader);
  if (isClassHeader)
    piece.header = static_cast<grammar::TVMScriptParser::Class_headerContext *>(tree);
  else if (tree)
    piece.stmt = static_cast<grammar::TVMScriptParser::Single_stmtContext *>(tree)->stmt();
  return piece;
}

antlr4::ParserRuleContext *SyntaxStream::parse(std::vector<std::unique_ptr<antlr4::Token>> tokens,
                                               bool isClassHeader) {
  // The piece ends with its own end of file, where the last token ends.
  const antlr4::Token &last = *tokens.back();
  auto eof = std::make_unique<antlr4::CommonToken>(antlr4::Token::EOF, "<EOF>");
  eof->setLine(last.getLine());
  eof->setCharPositionInLine(last.getCharPositionInLine());
  tokens.push_back(std::move(eof));
  pieceTokens_ = std::make_unique<antlr4::ListTokenSource>(std::move(tokens));
  pieceStream_ = std::make_unique<antlr4::CommonTokenStream>(pieceTokens_.get());
  pieceParser_ = std::make_unique<TVMScriptParser>(pieceStream_.get());
  TVMScriptParser &parser = *pieceParser_;
  auto entry = [&]() -> antlr4::ParserRuleContext * {
    if (isClassHeader)
      return parser.class_header();
    return parser.single_stmt();
  };

  parser.removeErrorListeners();
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
      antlr4::atn::PredictionMode::SLL);
  try {
    return entry();
  } catch (antlr4::ParseCancellationException &) {
    // SLL could not decide or the input is wrong: retry with full LL, which
    // also produces the error messages.
  }
  pieceStream_->seek(0);
  parser.reset();
  SyntaxErrorReporter reporter(file_, diagnostics_);
  parser.addErrorListener(&reporter);
  parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
      antlr4::atn::PredictionMode::LL);
  antlr4::ParserRuleContext *tree = entry();
  parser.removeErrorListeners();
  return parser.getNumberOfSyntaxErrors() == 0 ? tree : nullptr;
}

} // namespace vtac::frontend
