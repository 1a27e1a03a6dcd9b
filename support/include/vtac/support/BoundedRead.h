// Reading user files whose size nothing promises.
//
// A pipe, /dev/zero or a file that keeps growing may be endless, and a whole-file read of one
// fills memory until the process dies. Every reader of a user's file therefore says how much
// its format can need and reads no more than that (one byte more, to tell "too long" from
// "just fits").
#pragma once

#include <fstream>
#include <istream>
#include <memory>
#include <string>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

namespace vtac::support {

// A file opened for binary reading; "-" is standard input.
class InputFile {
public:
  // A directory or an unreadable path is an error with the system's message.
  static llvm::Expected<InputFile> open(llvm::StringRef path);

  // Appends at most `count` bytes to `out`, fewer only at the end of the file, and returns how
  // many it appended.
  llvm::Expected<size_t> appendAtMost(size_t count, std::string &out);

private:
  std::unique_ptr<std::ifstream> file_;
  std::istream *in_ = nullptr;
};

// The whole of `path` if it holds at most `limit` bytes; a longer one is the error "file too
// large (more than <limit> of <what>)".
llvm::Expected<std::string> readWholeFile(llvm::StringRef path, size_t limit, llvm::StringRef what);

}  // namespace vtac::support
