// libFuzzer target for .npz reading (`vtac run --params`): any bytes, written to a scratch file
// (the reader takes a path, as libzip opens it), go through readNpz, which must answer with
// arrays or an error, never crash, hang or inflate beyond its limits. See fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

#include "vtac/graph/Npz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string path = "/tmp/vtac_npz_fuzzer." + std::to_string(getpid()) + ".npz";
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file) return 0;
  const bool written = std::fwrite(data, 1, size, file) == size;
  if (std::fclose(file) != 0 || !written) return 0;
  auto arrays = vtac::graph::readNpz(path);
  if (!arrays) llvm::consumeError(arrays.takeError());
  return 0;
}
