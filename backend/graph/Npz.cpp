#include "vtac/graph/Npz.h"

#include <zip.h>

#include <algorithm>
#include <map>
#include <memory>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>

#include "vtac/backend/Diagnostic.h"
#include "vtac/backend/Npy.h"

namespace vtac::graph {

namespace {

std::string zipErrorText(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

struct ArchiveCloser {
  void operator()(zip_t *archive) const { zip_discard(archive); }
};
using Archive = std::unique_ptr<zip_t, ArchiveCloser>;

llvm::Expected<Archive> openArchive(llvm::StringRef path, int flags) {
  int code = 0;
  Archive archive(zip_open(path.str().c_str(), flags, &code));
  if (!archive)
    return backend::diagnosticError("cannot read '" + path + "' as an .npz archive: " +
                                    zipErrorText(code));
  return archive;
}

// One entry of the central directory, as the archive claims it.
struct Member {
  zip_uint64_t index;
  std::string entry;  // "w0.npy"
  std::string name;   // "w0"
  zip_uint64_t size, compressedSize;
};

llvm::Error corrupt(llvm::StringRef path, const llvm::Twine &what) {
  return backend::diagnosticError("corrupt .npz archive '" + path + "': " + what);
}

std::string mebibytes(uint64_t bytes) {
  return bytes % (1 << 20) == 0 ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

// The directory, with the claims that need no inflating checked: names are unique, and the
// compressed data of all members fits in the file once (members sharing data overlap).
llvm::Expected<std::vector<Member>> listMembers(zip_t *archive, llvm::StringRef path) {
  std::vector<Member> members;
  std::map<std::string, std::string> entryOfName;
  zip_uint64_t compressedTotal = 0;
  zip_int64_t count = zip_get_num_entries(archive, 0);
  for (zip_int64_t index = 0; index < count; ++index) {
    zip_stat_t stat;
    const zip_uint64_t needed = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_NAME;
    if (zip_stat_index(archive, index, 0, &stat) != 0 || (stat.valid & needed) != needed)
      return corrupt(path, "entry " + llvm::Twine(index) + " has no name or size");
    Member member{zip_uint64_t(index), stat.name, stat.name, stat.size, stat.comp_size};
    if (llvm::StringRef(member.name).ends_with(".npy")) member.name.resize(member.name.size() - 4);
    auto [previous, fresh] = entryOfName.emplace(member.name, member.entry);
    if (!fresh)
      return corrupt(path, "members '" + previous->second + "' and '" + member.entry +
                               "' both hold the array '" + member.name + "'");
    compressedTotal += member.compressedSize;
    members.push_back(std::move(member));
  }
  uint64_t fileSize = 0;
  if (!llvm::sys::fs::file_size(path, fileSize) && compressedTotal > fileSize)
    return corrupt(path, "its members claim " + llvm::Twine(compressedTotal) +
                             " compressed bytes in a file of " + llvm::Twine(fileSize) +
                             " (members overlapping: a zip bomb?)");
  return members;
}

// The limits of NpzLimits on the members about to be inflated, from their declared sizes.
llvm::Error checkExpansion(const std::vector<const Member *> &members, const NpzLimits &limits,
                           llvm::StringRef path) {
  uint64_t total = 0;
  for (const Member *member : members) {
    if (member->size > limits.ratioExemptBytes &&
        member->size / std::max<zip_uint64_t>(member->compressedSize, 1) > limits.maxCompressionRatio)
      return corrupt(path, "member '" + member->entry + "' inflates " +
                               llvm::Twine(member->compressedSize) + " bytes to " +
                               llvm::Twine(member->size) + ", more than " +
                               llvm::Twine(limits.maxCompressionRatio) +
                               " times (the limit for members over " +
                               mebibytes(limits.ratioExemptBytes) + "; a zip bomb?)");
    total += member->size;
    if (total > limits.maxTotalBytes)
      return corrupt(path, "the members read inflate to more than " +
                               mebibytes(limits.maxTotalBytes) + " (at '" + member->entry +
                               "'; a zip bomb?)");
  }
  return llvm::Error::success();
}

// The member's bytes: exactly its declared size, checked against its CRC.
// (Uninitialised: weights of a model are megabytes, zero-filling them first costs more than reading.)
llvm::Expected<std::unique_ptr<llvm::WritableMemoryBuffer>> inflate(zip_t *archive, const Member &member,
                                                                    llvm::StringRef path) {
  std::unique_ptr<zip_file_t, int (*)(zip_file_t *)> file(zip_fopen_index(archive, member.index, 0),
                                                         zip_fclose);
  if (!file)
    return corrupt(path, "cannot open '" + member.entry + "': " + zip_strerror(archive));
  std::unique_ptr<llvm::WritableMemoryBuffer> bytes =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(member.size, member.entry);
  if (!bytes) return corrupt(path, "cannot allocate " + llvm::Twine(member.size) + " bytes for '" + member.entry + "'");
  zip_int64_t read = zip_fread(file.get(), bytes->getBufferStart(), member.size);
  // libzip checks the CRC only on a read that finds the end, so one more is needed.
  char pastTheEnd;
  zip_int64_t extra = read < 0 ? 0 : zip_fread(file.get(), &pastTheEnd, 1);
  if (read < 0 || extra < 0)
    return corrupt(path, "cannot read '" + member.entry + "': " + zip_file_strerror(file.get()));
  if (zip_uint64_t(read) != member.size || extra != 0)
    return corrupt(path, "member '" + member.entry + "' does not hold the " +
                             llvm::Twine(member.size) + " bytes its directory entry says");
  return bytes;
}

}  // namespace

llvm::Expected<NpzContents> readNpzMembers(llvm::StringRef path,
                                           const std::function<bool(llvm::StringRef)> &wanted,
                                           const NpzLimits &limits) {
  // libzip's consistency checks refuse a duplicate name without saying which, so the directory
  // is listed (and its claims checked) from an unchecked open before the checked one reads.
  llvm::Expected<Archive> listed = openArchive(path, ZIP_RDONLY);
  if (!listed) return listed.takeError();
  llvm::Expected<std::vector<Member>> members = listMembers(listed->get(), path);
  if (!members) return members.takeError();
  llvm::Expected<Archive> archive = openArchive(path, ZIP_RDONLY | ZIP_CHECKCONS);
  if (!archive) return archive.takeError();
  NpzContents contents;
  std::vector<const Member *> toRead;
  for (const Member &member : *members) {
    if (wanted(member.name)) toRead.push_back(&member);
    else contents.unread.push_back(member.name);
  }
  if (llvm::Error error = checkExpansion(toRead, limits, path)) return error;
  for (const Member *member : toRead) {
    auto bytes = inflate(archive->get(), *member, path);
    if (!bytes) return bytes.takeError();
    llvm::StringRef npy((*bytes)->getBufferStart(), (*bytes)->getBufferSize());
    llvm::Expected<backend::Tensor> tensor = backend::parseNpy(npy, path.str() + ":" + member->entry);
    if (!tensor) return tensor.takeError();
    contents.arrays.emplace_back(member->name, std::move(*tensor));
  }
  return contents;
}

llvm::Expected<NamedTensors> readNpz(llvm::StringRef path) {
  llvm::Expected<NpzContents> contents = readNpzMembers(path, [](llvm::StringRef) { return true; });
  if (!contents) return contents.takeError();
  return std::move(contents->arrays);
}

llvm::Error writeNpz(llvm::StringRef path, const NamedTensors &tensors, bool compress) {
  int code = 0;
  Archive archive(zip_open(path.str().c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code));
  if (!archive)
    return backend::diagnosticError("cannot create '" + path + "': " + zipErrorText(code));
  // libzip reads the sources when the archive is closed, so the bytes must outlive the adds.
  std::vector<std::string> contents;
  contents.reserve(tensors.size());
  for (const auto &[name, tensor] : tensors) {
    contents.push_back(backend::encodeNpy(tensor));
    zip_source_t *source =
        zip_source_buffer(archive.get(), contents.back().data(), contents.back().size(), 0);
    zip_int64_t index = source ? zip_file_add(archive.get(), (name + ".npy").c_str(), source,
                                              ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8)
                               : -1;
    if (index < 0) {
      if (source) zip_source_free(source);
      return backend::diagnosticError("cannot add '" + name + "' to '" + path +
                                      "': " + zip_strerror(archive.get()));
    }
    zip_set_file_compression(archive.get(), zip_uint64_t(index),
                             compress ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
  }
  if (zip_close(archive.get()) != 0)
    return backend::diagnosticError("cannot write '" + path + "': " + zip_strerror(archive.get()));
  archive.release();
  return llvm::Error::success();
}

}  // namespace vtac::graph
