// Well-formedness checks for a PrimFunc, run by tests and by the pass manager after each pass.
//
// Reports every problem found (not only the first), each with the offending node's source
// location: variables used outside the scope that defines them, a variable defined twice,
// buffer accesses whose number of indices differs from the buffer's rank, binary operands of
// different dtypes, non-bool conditions, stores whose value dtype differs from the buffer's,
// block realizes whose number of bindings differs from the block's iteration variables, loop
// bounds of different dtypes than the loop variable.
#pragma once

#include <string>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/ir/Function.h"

namespace vtac::ir {

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
