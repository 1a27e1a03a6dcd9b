// The passes over a module's Relax functions, registered by name (TVM's names in the summaries).
#include "vtac/passes/PassRegistry.h"

#include "relax/FuseOps.h"
#include "relax/LegalizeOps.h"
#include "relax/VtaGraphPack.h"

namespace vtac::passes {

void registerRelaxPasses(PassRegistry &registry) {
  PassInfo legalize{"legalize-ops",
                    "high-level Relax operators (R.add, R.matmul, ...) -> R.call_tir of generated prim_funcs (LegalizeOps)",
                    nullptr, nullptr};
  legalize.moduleTransform = legalizeOps;
  registry.add(std::move(legalize));
  PassInfo fuse{"fuse-ops",
                "chains of R.call_tir (a convolution and its elementwise consumers) -> one R.call_tir of a fused prim_func "
                "(FuseOps + FuseTIR)",
                nullptr, nullptr};
  fuse.moduleTransform = fuseOps;
  registry.add(std::move(fuse));

  PassInfo graphPack{"vta-graph-pack",
                     "int8 NCHW conv2d and its elementwise epilogue -> VTA's packed layouts, before legalize-ops (vta.top.graph_pack)",
                     nullptr, nullptr};
  graphPack.moduleTransform = vtaGraphPack;
  graphPack.options = {"graph-pack-start", "graph-pack-stop"};
  registry.add(std::move(graphPack));
}

}  // namespace vtac::passes
