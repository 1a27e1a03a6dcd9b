#include "vtac/support/AtomicFile.h"

#include <cerrno>
#include <system_error>
#include <climits>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Signals.h>

namespace vtac::support {

namespace {

llvm::Error cannotWrite(llvm::StringRef path, const llvm::Twine &reason) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "cannot write '%s': %s",
                                 path.str().c_str(), reason.str().c_str());
}

llvm::Error cannotWrite(llvm::StringRef path, int error) {
  return cannotWrite(path, std::error_code(error, std::generic_category()).message());
}

llvm::StringRef directoryOf(llvm::StringRef path) {
  llvm::StringRef parent = llvm::sys::path::parent_path(path);
  return parent.empty() ? llvm::StringRef(".") : parent;
}

// The descriptor a standard-stream name stands for (/dev/stdout, /dev/fd/3, /proc/self/fd/1),
// or -1. Writing to the descriptor itself keeps what the shell set up (a pipe, `>>`).
int standardStream(llvm::StringRef path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (llvm::StringRef prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    unsigned fd;
    if (path.consume_front(prefix) && !path.getAsInteger(10, fd) && fd <= INT_MAX) return int(fd);
  }
  return -1;
}

// Where the bytes for a path go: a regular file (existing or not) reached through any
// symbolic links, or a special file written in place.
struct Destination {
  std::string path;
  bool special = false;
  int stream = -1;  // for a standard stream, its descriptor
};

llvm::Expected<Destination> resolve(llvm::StringRef requested) {
  std::string current = requested.str();
  for (int hop = 0; hop < 40; ++hop) {
    if (int fd = standardStream(current); fd >= 0) return Destination{current, true, fd};
    struct stat status;
    if (lstat(current.c_str(), &status) != 0) {
      if (errno == ENOENT) return Destination{current};
      return cannotWrite(requested, errno);
    }
    if (S_ISLNK(status.st_mode)) {
      char target[PATH_MAX];
      ssize_t length = readlink(current.c_str(), target, sizeof target);
      if (length < 0) return cannotWrite(requested, errno);
      llvm::SmallString<256> next(llvm::StringRef(target, size_t(length)));
      if (llvm::sys::path::is_relative(next)) {
        llvm::SmallString<256> joined(directoryOf(current));
        llvm::sys::path::append(joined, next);
        next = joined;
      }
      current = std::string(next);
      continue;
    }
    if (S_ISDIR(status.st_mode)) return cannotWrite(requested, "it is a directory");
    return Destination{current, !S_ISREG(status.st_mode)};
  }
  return cannotWrite(requested, ELOOP);
}

llvm::Error writeAll(int fd, llvm::StringRef path, llvm::StringRef contents) {
  while (!contents.empty()) {
    ssize_t written = ::write(fd, contents.data(), contents.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return cannotWrite(path, errno);
    contents = contents.drop_front(size_t(written));
  }
  return llvm::Error::success();
}

llvm::Error writeSpecial(const Destination &destination, llvm::StringRef path, llvm::StringRef contents) {
  if (destination.stream >= 0) return writeAll(destination.stream, path, contents);
  int fd = ::open(destination.path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return cannotWrite(path, errno);
  llvm::Error error = writeAll(fd, path, contents);
  ::close(fd);
  return error;
}

}  // namespace

llvm::Error checkOutputDirectory(llvm::StringRef path) {
  llvm::Expected<Destination> destination = resolve(path);
  if (!destination) return destination.takeError();
  if (destination->stream >= 0) return llvm::Error::success();
  if (destination->special)
    return ::access(destination->path.c_str(), W_OK) == 0 ? llvm::Error::success() : cannotWrite(path, errno);
  llvm::StringRef directory = directoryOf(destination->path);
  if (!llvm::sys::fs::is_directory(directory))
    return cannotWrite(path, "directory '" + directory + "' does not exist");
  if (::access(directory.str().c_str(), W_OK | X_OK) != 0)
    return cannotWrite(path, "directory '" + directory + "' is not writable");
  return llvm::Error::success();
}

llvm::Error checkNotAnInput(llvm::StringRef path, const std::vector<std::string> &inputs) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status) || !llvm::sys::fs::is_regular_file(status)) return llvm::Error::success();
  for (const std::string &input : inputs) {
    bool same = false;
    if (input != "-" && !llvm::sys::fs::equivalent(path, input, same) && same)
      return cannotWrite(path, "it is the input '" + input + "', which the output would replace");
  }
  return llvm::Error::success();
}

struct OutputSet::Staged {
  std::string requested;
  Destination destination;
  std::string temporary;  // for a regular file, where its contents wait
  std::string contents;   // for a special file, what commit writes
};

OutputSet::OutputSet() = default;

OutputSet::~OutputSet() {
  for (const auto &staged : staged_)
    if (!staged->temporary.empty()) {
      llvm::sys::fs::remove(staged->temporary);
      llvm::sys::DontRemoveFileOnSignal(staged->temporary);
    }
}

llvm::Error OutputSet::stage(llvm::StringRef path, std::string contents) {
  if (llvm::Error error = checkOutputDirectory(path)) return error;
  llvm::Expected<Destination> destination = resolve(path);
  if (!destination) return destination.takeError();
  auto staged = std::make_unique<Staged>();
  staged->requested = path.str();
  staged->destination = *destination;
  if (destination->special) {
    staged->contents = std::move(contents);
    staged_.push_back(std::move(staged));
    return llvm::Error::success();
  }
  llvm::SmallString<256> model(destination->path);
  model += ".tmp-%%%%%%%%";
  int fd = -1;
  llvm::SmallString<256> temporary;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temporary))
    return cannotWrite(path, ec.message());
  staged->temporary = std::string(temporary);
  llvm::sys::RemoveFileOnSignal(temporary);
  staged_.push_back(std::move(staged));
  // A replaced file keeps its permissions.
  struct stat existing;
  if (::stat(destination->path.c_str(), &existing) == 0) ::fchmod(fd, existing.st_mode & 07777);
  llvm::Error error = writeAll(fd, path, contents);
  if (::close(fd) != 0 && !error) error = cannotWrite(path, errno);
  return error;
}

// Special files first: opening a FIFO or a device is what may still fail or block, and the
// regular files are then not replaced yet.
llvm::Error OutputSet::commit() {
  for (auto &staged : staged_)
    if (staged->destination.special)
      if (llvm::Error error = writeSpecial(staged->destination, staged->requested, staged->contents))
        return error;
  for (auto &staged : staged_) {
    if (staged->destination.special) continue;
    if (std::error_code ec = llvm::sys::fs::rename(staged->temporary, staged->destination.path))
      return cannotWrite(staged->requested, ec.message());
    llvm::sys::DontRemoveFileOnSignal(staged->temporary);
    staged->temporary.clear();
  }
  staged_.clear();
  return llvm::Error::success();
}

llvm::Error writeOutput(llvm::StringRef path, llvm::StringRef contents, std::ostream &out) {
  if (!path.empty() && path != "-") return writeFileAtomically(path, contents);
  out << contents.str();
  if (!out.flush()) return llvm::createStringError(std::errc::io_error, "cannot write to standard output");
  return llvm::Error::success();
}

llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents) {
  OutputSet output;
  if (llvm::Error error = output.stage(path, contents.str())) return error;
  return output.commit();
}

llvm::Expected<DirectoryLock> DirectoryLock::acquire(llvm::StringRef path) {
  llvm::Expected<Destination> destination = resolve(path);
  if (!destination) return destination.takeError();
  std::string directory = directoryOf(destination->path).str();
  int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return cannotWrite(path, errno);
  while (::flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) {
      int error = errno;
      ::close(fd);
      return cannotWrite(path, error);
    }
  return DirectoryLock(fd);
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);  // which releases the lock
}

}  // namespace vtac::support
