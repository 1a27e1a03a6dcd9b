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

#include <memory>
#include <vector>

namespace vtac::frontend {

/// Nesting deeper than this (open brackets plus prefix/right-associative
/// operators on one logical line, or indentation levels) is rejected.
constexpr size_t kMaxNestingDepth = 200;

std::vector<std::unique_ptr<antlr4::Token>>
layOutTokens(grammar::TVMScriptLexer &lexer, const SourceFile &file,
             DiagnosticEngine &diagnostics);

} // namespace vtac::frontend
