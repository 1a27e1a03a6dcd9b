// Helpers for the frontend's unit tests: parse TVMScript text held in a string
// and look at the result or at the diagnostics.
#pragma once

#include "vtac/frontend/Frontend.h"
#include "vtac/ir/IR.h"

#include <optional>
#include <string>

namespace vtac::frontend::testing {

struct ParseOutcome {
  std::optional<ParsedModule> parsed;
  std::string diagnostics;  // rendered, as the driver prints them
};

ParseOutcome parseText(const std::string &text, const std::string &name = "test.tvm");

/// The body of the only prim_func in `text`; fails the test when it does not parse.
ir::PrimFuncRef parseSingleFunction(const std::string &text);

/// `text` wrapped as the body of `def f(A: T.Buffer((16,), "float32"), ...)`
/// with int32 buffer B, int64 scalar n and float32 2-D buffer C; each line of
/// `body` is indented by four spaces.
std::string functionWithBody(const std::string &body);

} // namespace vtac::frontend::testing
