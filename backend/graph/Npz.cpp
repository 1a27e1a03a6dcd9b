#include "vtac/graph/Npz.h"

#include <zip.h>

#include <memory>

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

}  // namespace

llvm::Expected<NamedTensors> readNpz(llvm::StringRef path) {
  int code = 0;
  Archive archive(zip_open(path.str().c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code));
  if (!archive)
    return backend::diagnosticError("cannot read '" + path + "' as an .npz archive: " +
                                    zipErrorText(code));
  NamedTensors tensors;
  zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  for (zip_int64_t index = 0; index < count; ++index) {
    zip_stat_t stat;
    if (zip_stat_index(archive.get(), index, 0, &stat) != 0 || !(stat.valid & ZIP_STAT_SIZE) ||
        !(stat.valid & ZIP_STAT_NAME))
      return backend::diagnosticError("corrupt .npz archive '" + path + "': entry " +
                                      llvm::Twine(index) + " has no name or size");
    std::string member = stat.name;
    std::unique_ptr<zip_file_t, int (*)(zip_file_t *)> file(zip_fopen_index(archive.get(), index, 0),
                                                           zip_fclose);
    if (!file)
      return backend::diagnosticError("corrupt .npz archive '" + path + "': cannot open '" +
                                      member + "': " + zip_strerror(archive.get()));
    // The size is the archive's claim: bounded before allocating (a .npy header is far below 1 MiB).
    if (stat.size > zip_uint64_t(backend::kMaxTensorBytes) + (1 << 20))
      return backend::diagnosticError("corrupt .npz archive '" + path + "': member '" + member +
                                      "' claims " + llvm::Twine(stat.size) + " bytes, more than the " +
                                      llvm::Twine(backend::kMaxTensorBytes >> 30) +
                                      " GiB vtac allocates for one tensor");
    std::string bytes(stat.size, '\0');
    zip_int64_t read = zip_fread(file.get(), bytes.data(), stat.size);
    // libzip checks the CRC only on a read that finds the end, so one more is needed.
    char pastTheEnd;
    zip_int64_t extra = read < 0 ? 0 : zip_fread(file.get(), &pastTheEnd, 1);
    if (read < 0 || extra < 0)
      return backend::diagnosticError("corrupt .npz archive '" + path + "': cannot read '" +
                                      member + "': " + zip_file_strerror(file.get()));
    if (zip_uint64_t(read) != stat.size || extra != 0)
      return backend::diagnosticError("corrupt .npz archive '" + path + "': member '" + member +
                                      "' does not hold the " + llvm::Twine(stat.size) +
                                      " bytes its directory entry says");
    llvm::Expected<backend::Tensor> tensor = backend::parseNpy(bytes, path.str() + ":" + member);
    if (!tensor) return tensor.takeError();
    llvm::StringRef name(member);
    name.consume_back(".npy");
    tensors.emplace_back(name.str(), std::move(*tensor));
  }
  return tensors;
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
