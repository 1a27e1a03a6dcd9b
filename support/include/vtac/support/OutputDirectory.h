// `-o DIR/`: one output file per input inside a directory, for the commands that take several
// inputs (`vtac compile`, `vtac print`).
//
// A path names a directory when it ends in '/' or is an existing directory. One that does not
// exist yet is made, as `mkdir -p` would, only once every output is ready (a failing input
// leaves nothing on disk); its nearest existing ancestor must be writable from the start.
#pragma once

#include <string>
#include <vector>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

namespace vtac::support {

bool namesDirectory(llvm::StringRef path);

class OutputDirectory {
public:
  // An error when `path` does not exist and its nearest existing ancestor is not writable.
  static llvm::Expected<OutputDirectory> check(llvm::StringRef path);

  // DIR/<each input's file name without its extension><extension> ("stdin" for '-'); an error
  // when two inputs would write the same file.
  llvm::Expected<std::vector<std::string>> outputsFor(const std::vector<std::string> &inputs,
                                                      llvm::StringRef extension) const;
  // Whether `file` lies in a directory still to be made (whose own writability make() tells).
  bool pendingHolds(llvm::StringRef file) const;
  // Makes the directory if it does not exist yet.
  llvm::Error make() const;

private:
  explicit OutputDirectory(std::string path, bool pending) : path_(std::move(path)), pending_(pending) {}

  std::string path_;
  bool pending_;
};

}  // namespace vtac::support
