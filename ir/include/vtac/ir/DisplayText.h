// How diagnostics show text they quote from the user: file names, arguments, bytes read from
// an input (an .npy header, a JSON value). Raw control bytes would reach the terminal (NUL,
// escape sequences) and a name of megabytes would flood it, so both are neutralised.
#pragma once

#include <string>

#include <llvm/ADT/StringRef.h>

namespace vtac::ir {

// `text` with control bytes other than newline (and DEL) spelled \xNN, cut after 1000
// characters with a count of the bytes left out.
std::string displayText(llvm::StringRef text);

}  // namespace vtac::ir
