// --verify-diagnostics (vtac opt, vtac check), as mlir-opt has it: the diagnostics a command
// prints are checked against comments in the files they point into, instead of FileCheck lines.
//
//     sch.split(i, factors=[None, None])  # expected-error {{at most one factor can be None}}
//     # expected-error@+1 {{expected ':'}}
//
// `expected-error`, `-warning`, `-note` or `-remark`, optionally `@+N` / `@-N` (the line N after
// or before the comment's), then the text the message must contain between `{{` and `}}`. Each
// expectation must be met by a diagnostic of that severity at that line of that file, and each
// error or warning printed must meet one; the command then succeeds. Anything else is reported
// (an expectation not met, a diagnostic not expected, an error without location) and fails.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace vtac::driver {

// Checks `printed` (everything the command wrote to standard error) against the expectations in
// `inputs` and in every file a diagnostic names; reports to `errors`. True when all agree.
bool verifyDiagnostics(const std::string &printed, const std::vector<std::string> &inputs, std::ostream &errors);

}  // namespace vtac::driver
