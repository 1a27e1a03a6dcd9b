// Whole-file writes that either complete or leave nothing behind.
//
// The contents go to a uniquely named temporary file in the target's directory, which is then
// renamed over the target; on any failure the temporary file is removed. Every file vtac writes
// (`print -o`, `run --output`, statistics JSON) goes through here, so an error never leaves a
// partial file and make never sees one.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

namespace vtac::support {

llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents);

// Error unless the directory that would hold `path` exists (checked before running a
// program, so a bad output path fails before any work is done).
llvm::Error checkOutputDirectory(llvm::StringRef path);

}  // namespace vtac::support
