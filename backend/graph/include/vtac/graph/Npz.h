// Reading and writing NumPy .npz archives: a zip of .npy files, one per array, stored or
// deflated (numpy.savez / numpy.savez_compressed), through libzip.
//
// Entry names lose their ".npy" suffix ("w0.npy" -> "w0"). Every failure — a file that is not
// a zip archive, a truncated or corrupt member, a member that is not a valid .npy — is an
// error naming the archive and the member. Two members with the same name are an error.
//
// An archive is hostile input: before a single byte is inflated, the central directory's
// claims are checked against the file and the limits below (a member's declared size against
// its compressed size, the sum of the declared sizes of the members read, the sum of all
// compressed sizes against the file's size — overlapping members are the classic zip bomb),
// and each member then inflates into exactly its declared size or is an error. Members the
// caller does not want are listed but never inflated.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

#include "vtac/backend/Tensor.h"

namespace vtac::graph {

using NamedTensors = std::vector<std::pair<std::string, backend::Tensor>>;

// How far an archive may expand. Trained weights barely compress (float noise), and numpy's
// deflate cannot exceed about 1032:1, so a ratio over the limit on a large member means forged
// sizes or a bomb; small members (an all-zero bias) may compress as well as they like.
struct NpzLimits {
  uint64_t maxTotalBytes = uint64_t(backend::kMaxTensorBytes);
  uint64_t maxCompressionRatio = 100;
  uint64_t ratioExemptBytes = uint64_t(1) << 20;
};

struct NpzContents {
  NamedTensors arrays;              // the wanted members, in archive order
  std::vector<std::string> unread;  // the other members' names, never inflated
};

// The arrays of an .npz file whose names `wanted` accepts.
llvm::Expected<NpzContents> readNpzMembers(llvm::StringRef path,
                                           const std::function<bool(llvm::StringRef)> &wanted,
                                           const NpzLimits &limits = {});

// Every array of an .npz file, in archive order.
llvm::Expected<NamedTensors> readNpz(llvm::StringRef path);

// Writes `tensors` as an .npz (deflated when `compress`), replacing `path`.
llvm::Error writeNpz(llvm::StringRef path, const NamedTensors &tensors, bool compress = false);

}  // namespace vtac::graph
