// Well-formedness checks for a PrimFunc, run by tests and by the pass manager after each pass.
//
// Reports every problem found (not only the first), each with the offending node's source
// location: variables used outside the scope that defines them, a variable defined twice,
// buffer accesses whose number of indices differs from the buffer's rank, binary operands of
// different dtypes, non-bool conditions, stores whose value dtype differs from the buffer's,
// block realizes whose number of bindings differs from the block's iteration variables, loop
// bounds of different dtypes than the loop variable, statements nested too deeply.
#pragma once

#include <string>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/ir/Function.h"

namespace vtac::ir {

/// Statements (sequences not counted) nested deeper than this are reported as
/// "nesting too deep" and not looked into, so that neither the verifier nor
/// the recursive walks after it exhaust the stack. The frontend's own limit
/// (1000 levels as it counts them) keeps every parsed program well within it.
constexpr size_t kMaxStatementDepth = 4000;

struct VerifierDiagnostic {
  SourceLoc loc;
  std::string message;
};

std::vector<VerifierDiagnostic> verifyDiagnostics(const PrimFunc &func);
// Success, or one error whose message is every diagnostic formatted as
// `file:line:col: error: message` (see formatDiagnostic), one after the other.
llvm::Error verify(const PrimFunc &func);
llvm::Error verify(const IRModule &module);

}  // namespace vtac::ir
