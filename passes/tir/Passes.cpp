// The generic TIR passes, registered by name (TVM's names in the summaries).
#include "vtac/passes/PassRegistry.h"

#include "tir/CommonSubexprElim.h"
#include "tir/LowerInitBlock.h"
#include "tir/Pipeline.h"
#include "tir/Simplify.h"
#include "tir/StorageRewrite.h"

namespace vtac::passes {

void registerTirPasses(PassRegistry &registry) {
  registry.add({"lower-init-block",
                "T.init() -> a statement guarded by 'reduction axes at their start' (LowerInitBlock)",
                lowerInitBlock, nullptr});
  registry.add({"cse", "common sub-expressions -> cse_var_N lets above the statements using them (CommonSubexprElimTIR)",
                commonSubexprElim, nullptr});
  registry.add({"simplify", "arithmetic simplification in TVM's canonical forms, decided ifs removed (Simplify)",
                simplify, nullptr});
  registry.add({"storage-rewrite",
                "liveness-based reuse, in-place reuse and tagged-scope merge of allocations (StorageRewrite)",
                storageRewrite, nullptr});
  registry.add({"tir-lower", "TensorIR -> flat TIR: TVM's phase-1 passes in order", nullptr,
                buildTirLower});
}

}  // namespace vtac::passes
