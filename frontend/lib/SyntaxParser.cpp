#include "SyntaxParser.h"

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

SyntaxTree parseSyntax(const SourceFile &file, DiagnosticEngine &diagnostics) {
  SyntaxTree tree;
  ir::SourceLoc badByte = file.firstInvalidUtf8();
  if (badByte.isKnown()) {
    diagnostics.error(badByte, "file is not valid UTF-8 text");
    return tree;
  }
  tree.input = std::make_unique<antlr4::ANTLRInputStream>(file.text());
  tree.input->name = file.name();
  tree.lexer = std::make_unique<TVMScriptLexer>(tree.input.get());
  tree.lexer->removeErrorListeners();
  size_t errorsBefore = diagnostics.errorCount();
  auto laidOut = layOutTokens(*tree.lexer, file, diagnostics);
  // Lexical errors (brackets, indentation, stray characters) make the parser's
  // own messages mostly noise, so they are reported alone.
  if (diagnostics.errorCount() != errorsBefore)
    return tree;
  tree.tokenSource = std::make_unique<antlr4::ListTokenSource>(std::move(laidOut));
  tree.tokens = std::make_unique<antlr4::CommonTokenStream>(tree.tokenSource.get());
  tree.tokens->fill();
  tree.parser = std::make_unique<TVMScriptParser>(tree.tokens.get());
  TVMScriptParser &parser = *tree.parser;

  parser.removeErrorListeners();
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
      antlr4::atn::PredictionMode::SLL);
  try {
    tree.root = parser.file_input();
    return tree;
  } catch (antlr4::ParseCancellationException &) {
    // SLL could not decide or the input is wrong: retry with full LL, which
    // also produces the error messages.
  }

  tree.tokens->seek(0);
  parser.reset();
  SyntaxErrorReporter reporter(file, diagnostics);
  parser.addErrorListener(&reporter);
  parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
      antlr4::atn::PredictionMode::LL);
  auto *root = parser.file_input();
  parser.removeErrorListeners();
  if (parser.getNumberOfSyntaxErrors() == 0)
    tree.root = root;
  return tree;
}

} // namespace vtac::frontend
