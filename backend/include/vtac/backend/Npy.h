// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0).
//
// Supported: C order (fortran_order False), little-endian or byte-order-free element types
// bool, int8/16/32/64, uint8/16/32/64, float16/32/64. Everything else — a Fortran-order array,
// a big-endian or structured dtype, a header that is not a Python dict literal, data shorter
// or longer than the shape says — is an error that names the file and what is wrong.
// Writing produces version 1.0 files (as numpy.save does for small headers) and replaces the
// target atomically, so a failed write never leaves a partial file behind.
#pragma once

#include <string>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

#include "vtac/backend/Tensor.h"

namespace vtac::backend {

// Decodes the bytes of a .npy file; `name` is used in error messages.
llvm::Expected<Tensor> parseNpy(llvm::StringRef bytes, llvm::StringRef name);
llvm::Expected<Tensor> readNpy(llvm::StringRef path);

// The bytes of a version 1.0 .npy file holding `tensor`.
std::string encodeNpy(const Tensor &tensor);
llvm::Error writeNpy(llvm::StringRef path, const Tensor &tensor);

// The NumPy descr string of an element type ("<f4", "|i1", "|b1", ...).
std::string npyDescr(ir::DataType dtype);

}  // namespace vtac::backend
