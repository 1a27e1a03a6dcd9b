// Whole-file writes that either complete or leave nothing behind.
//
// A regular file (or a path that does not exist yet) gets its contents through a uniquely
// named temporary file in the target's directory, renamed over the target; the temporary file
// is removed on any failure and on SIGINT/SIGTERM (LLVM's RemoveFileOnSignal). A symbolic link
// is followed, so the file it names is replaced and the link stays. A FIFO, a device or a
// standard stream (`-o /dev/stdout`, `-o /dev/null`, anything reached through /dev/fd or
// /proc) is written directly, never replaced by a regular file. Every file vtac writes
// (`print -o`, `run --output`, statistics JSON) goes through here, so an error never leaves
// a partial file and make never sees one.
//
// OutputSet stages several outputs and commits all of them or none: a run with two outputs
// whose second cannot be written keeps neither.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

namespace vtac::support {

llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents);

// A command's `-o PATH` output: `out` for an empty path or "-", else writeFileAtomically.
llvm::Error writeOutput(llvm::StringRef path, llvm::StringRef contents, std::ostream &out);

// Error unless `path` can be written: its directory exists and is writable (or, for a FIFO
// or device, the file itself is writable). Checked before running a program, so a bad
// output path fails before any work is done.
llvm::Error checkOutputDirectory(llvm::StringRef path);

// Error when `path` names the same file as one of `inputs` (the output would replace what it is
// made from); a special file such as /dev/stdout never counts.
llvm::Error checkNotAnInput(llvm::StringRef path, const std::vector<std::string> &inputs);

class OutputSet {
public:
  OutputSet();
  ~OutputSet();  // removes what was staged and not committed
  OutputSet(const OutputSet &) = delete;
  OutputSet &operator=(const OutputSet &) = delete;

  // Writes `contents` to a temporary file next to `path` (special files are only checked
  // here and written by commit).
  llvm::Error stage(llvm::StringRef path, std::string contents);
  // Writes the special files, then renames every staged file over its target.
  llvm::Error commit();

private:
  struct Staged;
  std::vector<std::unique_ptr<Staged>> staged_;
};

// An exclusive lock (flock) of the directory that holds `path`, for a read-modify-write of a
// file that several processes update (a tuning database under make -j): they take turns. The
// directory rather than the file, which writeFileAtomically replaces with another.
class DirectoryLock {
public:
  static llvm::Expected<DirectoryLock> acquire(llvm::StringRef path);
  DirectoryLock(DirectoryLock &&other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  DirectoryLock &operator=(DirectoryLock &&) = delete;
  ~DirectoryLock();

private:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace vtac::support
