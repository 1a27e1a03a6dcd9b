#include "vtac/support/BoundedRead.h"

#include <cerrno>
#include <filesystem>
#include <iostream>
#include <system_error>

namespace vtac::support {

static llvm::Error systemError(int code) {
  return llvm::errorCodeToError(std::error_code(code, std::generic_category()));
}

llvm::Expected<InputFile> InputFile::open(llvm::StringRef path) {
  InputFile input;
  if (path == "-") {
    input.in_ = &std::cin;
    return input;
  }
  // Opening a directory succeeds and only the first read fails, with an errno that an
  // earlier library call may have overwritten: refuse it by name.
  std::error_code ignored;
  if (std::filesystem::is_directory(path.str(), ignored)) return systemError(EISDIR);
  input.file_ = std::make_unique<std::ifstream>(path.str(), std::ios::binary);
  if (!*input.file_) return systemError(errno);
  input.in_ = input.file_.get();
  return input;
}

llvm::Expected<size_t> InputFile::appendAtMost(size_t count, std::string &out) {
  size_t start = out.size();
  char chunk[1 << 16];
  while (out.size() - start < count) {
    size_t wanted = std::min(sizeof chunk, count - (out.size() - start));
    in_->read(chunk, std::streamsize(wanted));
    out.append(chunk, size_t(in_->gcount()));
    if (size_t(in_->gcount()) < wanted) break;
  }
  if (in_->bad()) return systemError(errno);
  return out.size() - start;
}

static std::string formatBytes(size_t bytes) {
  if (bytes >= (size_t(1) << 20) && bytes % (size_t(1) << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

llvm::Expected<std::string> readWholeFile(llvm::StringRef path, size_t limit, llvm::StringRef what) {
  llvm::Expected<InputFile> input = InputFile::open(path);
  if (!input) return input.takeError();
  std::string contents;
  llvm::Expected<size_t> read = input->appendAtMost(limit + 1, contents);
  if (!read) return read.takeError();
  if (contents.size() > limit)
    return llvm::createStringError(std::errc::file_too_large, "file too large (more than %s of %s)",
                                   formatBytes(limit).c_str(), what.str().c_str());
  return contents;
}

}  // namespace vtac::support
