// Reading and writing NumPy .npz archives: a zip of .npy files, one per array, stored or
// deflated (numpy.savez / numpy.savez_compressed), through libzip.
//
// Entry names lose their ".npy" suffix ("w0.npy" -> "w0"). Every failure — a file that is not
// a zip archive, a truncated or corrupt member, a member that is not a valid .npy — is an
// error naming the archive and the member.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

#include "vtac/backend/Tensor.h"

namespace vtac::graph {

using NamedTensors = std::vector<std::pair<std::string, backend::Tensor>>;

// The arrays of an .npz file in archive order.
llvm::Expected<NamedTensors> readNpz(llvm::StringRef path);

// Writes `tensors` as an .npz (deflated when `compress`), replacing `path`.
llvm::Error writeNpz(llvm::StringRef path, const NamedTensors &tensors, bool compress = false);

}  // namespace vtac::graph
