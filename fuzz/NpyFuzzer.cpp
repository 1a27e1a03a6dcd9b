// libFuzzer target for .npy reading (`vtac run --input`): any bytes go through parseNpy, which
// must answer with a tensor or an error, never crash, hang or allocate more than the input can
// hold. A tensor it accepts must survive encodeNpy + parseNpy unchanged. See fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "vtac/backend/Npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace vtac::backend;
  auto tensor = parseNpy(llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.npy");
  if (!tensor) {
    llvm::consumeError(tensor.takeError());
    return 0;
  }
  auto again = parseNpy(encodeNpy(*tensor), "re-encoded.npy");
  if (!again || again->dtype() != tensor->dtype() || again->shape() != tensor->shape() ||
      again->byteSize() != tensor->byteSize() ||
      (tensor->byteSize() && std::memcmp(again->data(), tensor->data(), tensor->byteSize()) != 0))
    std::abort();
  return 0;
}
