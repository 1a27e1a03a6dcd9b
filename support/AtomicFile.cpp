#include "vtac/support/AtomicFile.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

namespace vtac::support {

namespace {

llvm::StringRef directoryOf(llvm::StringRef path) {
  llvm::StringRef parent = llvm::sys::path::parent_path(path);
  return parent.empty() ? llvm::StringRef(".") : parent;
}

}  // namespace

llvm::Error checkOutputDirectory(llvm::StringRef path) {
  llvm::StringRef directory = directoryOf(path);
  if (!llvm::sys::fs::is_directory(directory))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot write '%s': directory '%s' does not exist",
                                   path.str().c_str(), directory.str().c_str());
  if (llvm::sys::fs::is_directory(path))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot write '%s': it is a directory", path.str().c_str());
  return llvm::Error::success();
}

llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents) {
  if (llvm::Error error = checkOutputDirectory(path)) return error;
  // A device or a pipe (-o /dev/null) is written in place: renaming a file over it would replace
  // the device itself.
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) && llvm::sys::fs::exists(status) &&
      !llvm::sys::fs::is_regular_file(status)) {
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    if (!ec) {
      out << contents;
      out.close();
      ec = out.error();
      out.clear_error();
    }
    if (ec)
      return llvm::createStringError(ec, "cannot write '%s': %s", path.str().c_str(), ec.message().c_str());
    return llvm::Error::success();
  }
  llvm::SmallString<256> model(path);
  model += ".tmp-%%%%%%%%";
  int fd = -1;
  llvm::SmallString<256> tempPath;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, tempPath))
    return llvm::createStringError(ec, "cannot write '%s': %s", path.str().c_str(),
                                   ec.message().c_str());
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << contents;
    out.close();
    if (out.has_error()) {
      std::error_code ec = out.error();
      out.clear_error();
      llvm::sys::fs::remove(tempPath);
      return llvm::createStringError(ec, "cannot write '%s': %s", path.str().c_str(),
                                     ec.message().c_str());
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tempPath, path)) {
    llvm::sys::fs::remove(tempPath);
    return llvm::createStringError(ec, "cannot write '%s': %s", path.str().c_str(),
                                   ec.message().c_str());
  }
  return llvm::Error::success();
}

}  // namespace vtac::support
