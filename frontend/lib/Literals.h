// Python literals as the lexer gives them (defined in Expressions.cpp; the trace reader reads
// the same literals).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace vtac::frontend {

// `1_000` -> `1000`.
std::string withoutUnderscores(const std::string &text);
// A decimal, 0x, 0o or 0b integer; nullopt when it does not fit in int64.
std::optional<int64_t> parseIntegerLiteral(const std::string &text);
// The contents of a string token: prefix and quotes removed, escapes decoded.
std::string decodeStringLiteral(const std::string &token);

} // namespace vtac::frontend
