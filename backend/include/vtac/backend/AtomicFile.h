// Whole-file writes that either complete or leave nothing behind.
//
// The contents go to a uniquely named temporary file in the target's directory, which is then
// renamed over the target; on any failure the temporary file is removed. `vtac run` uses this
// for every output (.npy, statistics JSON) so an error never leaves a partial file.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

namespace vtac::backend {

llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents);

// Error unless the directory that would hold `path` exists (checked before running a
// program, so a bad output path fails before any work is done).
llvm::Error checkOutputDirectory(llvm::StringRef path);

}  // namespace vtac::backend
