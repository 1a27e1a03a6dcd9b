#include "vtac/support/OutputDirectory.h"

#include <map>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace vtac::support {

bool namesDirectory(llvm::StringRef path) {
  return !path.empty() && (path.back() == '/' || llvm::sys::fs::is_directory(path));
}

llvm::Expected<OutputDirectory> OutputDirectory::check(llvm::StringRef path) {
  bool pending = !llvm::sys::fs::is_directory(path);
  if (pending) {
    llvm::SmallString<256> ancestor(path);
    while (!ancestor.empty() && !llvm::sys::fs::is_directory(ancestor)) llvm::sys::path::remove_filename(ancestor);
    if (ancestor.empty()) ancestor = ".";
    if (llvm::sys::fs::access(ancestor, llvm::sys::fs::AccessMode::Write))
      return llvm::createStringError("cannot make the output directory '" + path + "': '" + ancestor +
                                     "' is not writable");
  }
  return OutputDirectory(path.str(), pending);
}

llvm::Expected<std::vector<std::string>> OutputDirectory::outputsFor(const std::vector<std::string> &inputs,
                                                                     llvm::StringRef extension) const {
  std::vector<std::string> outputs;
  std::map<std::string, llvm::StringRef> writer;
  for (const std::string &input : inputs) {
    llvm::SmallString<256> output(path_);
    llvm::sys::path::append(output, (input == "-" ? "stdin" : llvm::sys::path::stem(input)) + extension);
    auto [first, fresh] = writer.emplace(std::string(output), input);
    if (!fresh)
      return llvm::createStringError("'" + first->second + "' and '" + input + "' would both write '" + output +
                                     "': give the inputs different names");
    outputs.push_back(std::string(output));
  }
  return outputs;
}

bool OutputDirectory::pendingHolds(llvm::StringRef file) const { return pending_ && file.starts_with(path_); }

llvm::Error OutputDirectory::make() const {
  if (!pending_) return llvm::Error::success();
  if (std::error_code error = llvm::sys::fs::create_directories(path_))
    return llvm::createStringError("cannot make the output directory '" + path_ + "': " + error.message());
  return llvm::Error::success();
}

}  // namespace vtac::support
