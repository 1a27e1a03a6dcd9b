// The passes over a module's Relax functions, registered by name (TVM's names in the summaries).
#include "vtac/passes/PassRegistry.h"

#include "relax/LegalizeOps.h"

namespace vtac::passes {

void registerRelaxPasses(PassRegistry &registry) {
  PassInfo legalize{"legalize-ops",
                    "high-level Relax operators (R.add, R.matmul, ...) -> R.call_tir of generated prim_funcs (LegalizeOps)",
                    nullptr, nullptr};
  legalize.moduleTransform = legalizeOps;
  registry.add(std::move(legalize));
}

}  // namespace vtac::passes
