// DiagnosticEngine: collects the errors found in one input, each with a source
// location, for the driver to print as
//
//   file.tvm:3:14: error: undefined name 'k'
//       B[i, j] = A[i, k]
//                      ^
//
// (rendering is the IR's formatDiagnostic, so the frontend, the verifier and
// later passes print alike). Libraries report into an engine and carry on;
// only the driver decides what to print and which exit status follows. The
// `errorLimit`-th error is followed by a note saying that reporting stops; later
// errors are dropped.
#pragma once

#include "vtac/ir/SourceLoc.h"

#include <llvm/Support/Error.h>

#include <string>
#include <vector>

namespace vtac::frontend {

struct Diagnostic {
  ir::Severity severity;
  ir::SourceLoc location;
  std::string message;
};

class DiagnosticEngine {
public:
  static constexpr size_t kDefaultErrorLimit = 20;

  explicit DiagnosticEngine(size_t errorLimit = kDefaultErrorLimit) : errorLimit_(errorLimit) {}

  void error(ir::SourceLoc location, std::string message);

  size_t errorCount() const { return errorCount_; }
  bool hasErrors() const { return errorCount_ != 0; }
  /// True once the limit is reached: callers may stop looking for more.
  bool limitReached() const { return errorCount_ >= errorLimit_; }

  const std::vector<Diagnostic> &diagnostics() const { return diagnostics_; }

  /// Every diagnostic, each followed by its source line and a caret.
  std::string render() const;
  /// The diagnostics as one error value (ir::DiagnosticErrors, rendered as render() renders
  /// them), for a library that returns errors; success when there are none.
  llvm::Error toError() const;

private:
  size_t errorLimit_;
  size_t errorCount_ = 0;
  std::vector<Diagnostic> diagnostics_;
};

} // namespace vtac::frontend
