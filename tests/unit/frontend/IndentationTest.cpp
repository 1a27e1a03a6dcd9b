// The token layout: INDENT/DEDENT from indentation, implicit line joining in
// brackets, blank and comment lines, and the errors a tokenizer can see.
#include "IndentationTokens.h"

#include <antlr4-runtime.h>
#include <catch2/catch.hpp>

using namespace vtac::frontend;
using vtac::grammar::TVMScriptLexer;

namespace {

struct Layout {
  std::vector<size_t> types;
  std::string diagnostics;
};

Layout layOut(const std::string &text) {
  SourceFile file("layout.tvm", text);
  DiagnosticEngine diagnostics;
  antlr4::ANTLRInputStream input(text);
  TVMScriptLexer lexer(&input);
  Layout layout;
  for (const auto &token : layOutTokens(lexer, file, diagnostics))
    layout.types.push_back(token->getType());
  layout.diagnostics = diagnostics.render();
  return layout;
}

// Token kinds other than names, numbers and punctuation, for compact expectations.
std::vector<size_t> structure(const Layout &layout) {
  std::vector<size_t> kept;
  for (size_t type : layout.types)
    if (type == TVMScriptLexer::NEWLINE || type == TVMScriptLexer::INDENT ||
        type == TVMScriptLexer::DEDENT || type == antlr4::Token::EOF || type == TVMScriptLexer::COLON)
      kept.push_back(type);
  return kept;
}

constexpr size_t NL = TVMScriptLexer::NEWLINE, IN = TVMScriptLexer::INDENT,
                 DE = TVMScriptLexer::DEDENT, CO = TVMScriptLexer::COLON, END = antlr4::Token::EOF;

} // namespace

TEST_CASE("indentation becomes INDENT and DEDENT tokens", "[frontend][lexer]") {
  Layout layout = layOut("a:\n    b:\n        c\n    d\ne\n");
  CHECK(layout.diagnostics.empty());
  CHECK(structure(layout) == std::vector<size_t>{CO, NL, IN, CO, NL, IN, NL, DE, NL, DE, NL, END});
}

TEST_CASE("a file ending inside blocks closes them all", "[frontend][lexer]") {
  Layout layout = layOut("a:\n    b:\n        c");
  CHECK(structure(layout) == std::vector<size_t>{CO, NL, IN, CO, NL, IN, NL, DE, DE, END});
}

TEST_CASE("blank lines and comment lines do not affect indentation", "[frontend][lexer]") {
  Layout layout = layOut("a:\n\n    # comment at another depth\n  # and another\n    b\n\n");
  CHECK(layout.diagnostics.empty());
  CHECK(structure(layout) == std::vector<size_t>{CO, NL, IN, NL, DE, END});
}

TEST_CASE("line breaks inside brackets and after a backslash join lines", "[frontend][lexer]") {
  Layout brackets = layOut("f(1,\n      2,\n  3)\ng\n");
  CHECK(structure(brackets) == std::vector<size_t>{NL, NL, END});
  Layout backslash = layOut("x = 1 + \\\n        2\ny\n");
  CHECK(structure(backslash) == std::vector<size_t>{NL, NL, END});
}

TEST_CASE("tabs advance to the next multiple of eight", "[frontend][lexer]") {
  // Eight spaces then a tab is one level deeper than a tab alone under either tab size.
  Layout layout = layOut("a:\n\tb\n        \tc\n\td\n");
  CHECK(layout.diagnostics.empty());
  CHECK(structure(layout) == std::vector<size_t>{CO, NL, IN, NL, IN, NL, DE, NL, DE, END});
}

TEST_CASE("indentation whose level depends on the tab size is Python's TabError", "[frontend][lexer]") {
  // A tab and eight spaces are the same width only when a tab is eight columns.
  Layout same = layOut("a:\n\tb\n        c\n");
  CHECK_THAT(same.diagnostics,
             Catch::Contains("layout.tvm:3:9: error: inconsistent use of tabs and spaces in indentation"));
  // Deeper with tabs of eight, not with tabs of one.
  Layout deeper = layOut("a:\n  \tb\n\t c\n");
  CHECK_THAT(deeper.diagnostics,
             Catch::Contains("layout.tvm:3:3: error: inconsistent use of tabs and spaces in indentation"));
}

TEST_CASE("an inconsistent dedent is an error", "[frontend][lexer]") {
  Layout layout = layOut("a:\n    b\n  c\n");
  CHECK_THAT(layout.diagnostics,
             Catch::Contains("layout.tvm:3:3: error: unindent does not match any outer indentation level"));
}

TEST_CASE("bracket errors name the bracket and where it opened", "[frontend][lexer]") {
  CHECK_THAT(layOut("x = (1\n").diagnostics, Catch::Contains("1:5: error: '(' was never closed"));
  CHECK_THAT(layOut("x = 1)\n").diagnostics, Catch::Contains("1:6: error: unmatched ')'"));
  CHECK_THAT(layOut("x = [1)\n").diagnostics,
             Catch::Contains("1:7: error: closing ')' does not match opening '[' at line 1"));
}

TEST_CASE("stray characters and unterminated strings are reported", "[frontend][lexer]") {
  CHECK_THAT(layOut("x = $\n").diagnostics, Catch::Contains("1:5: error: invalid character '$' in program text"));
  CHECK_THAT(layOut("x = \"abc\n").diagnostics, Catch::Contains("1:5: error: unterminated string literal"));
}

TEST_CASE("nesting deep enough to exhaust the parser's stack is rejected", "[frontend][lexer]") {
  std::string parens(kMaxNestingDepth + 50, '(');
  CHECK_THAT(layOut("x = " + parens + "\n").diagnostics, Catch::Contains("expression nested too deeply"));
  std::string minuses;
  for (size_t i = 0; i < kMaxNestingDepth + 50; ++i)
    minuses += "- ";
  CHECK_THAT(layOut("x = " + minuses + "1\n").diagnostics, Catch::Contains("expression nested too deeply"));
  std::string nested;
  for (size_t depth = 0; depth < kMaxNestingDepth + 50; ++depth)
    nested += std::string(depth, ' ') + "if x:\n";
  CHECK_THAT(layOut(nested).diagnostics, Catch::Contains("indentation nested too deeply"));
}
