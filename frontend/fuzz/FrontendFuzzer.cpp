// libFuzzer target for the frontend: any bytes go through parse, verify and
// print; the frontend must answer with diagnostics, never crash or hang.
// How to build and run it: frontend/README.md.
#include "vtac/frontend/ModuleFile.h"
#include "vtac/ir/Verifier.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace vtac;
  frontend::SourceFile file("fuzz.tvm", std::string(reinterpret_cast<const char *>(data), size));
  frontend::DiagnosticEngine diagnostics;
  std::optional<frontend::ParsedModule> parsed = frontend::parseModule(file, diagnostics);
  if (parsed) {
    bool wellFormed = true;
    for (const auto &entry : parsed->module.functions())
      if (auto *func = entry.function.as<ir::PrimFunc>())
        wellFormed &= ir::verifyDiagnostics(*func).empty();
    // Only verified modules reach the printer in `vtac print`.
    if (wellFormed)
      (void)frontend::printParsedModule(*parsed);
  }
  (void)diagnostics.render();
  return 0;
}
