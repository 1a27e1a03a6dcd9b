// The generic TIR passes, registered by name (TVM's names in the summaries).
#include "vtac/passes/PassRegistry.h"

#include "tir/CompactBufferAllocation.h"
#include "tir/ConvertBlocksToOpaque.h"
#include "tir/FlattenBuffer.h"
#include "tir/LowerInitBlock.h"
#include "tir/LowerMatchBuffer.h"
#include "tir/LowerOpaqueBlock.h"
#include "tir/Pipeline.h"
#include "tir/PlanBufferAllocation.h"

namespace vtac::passes {

void registerTirPasses(PassRegistry &registry) {
  registry.add({"lower-init-block",
                "T.init() -> a statement guarded by 'reduction axes at their start' (LowerInitBlock)",
                lowerInitBlock, nullptr});
  registry.add({"plan-buffer-allocation",
                "alloc_buffer -> the lowest common ancestor of its accesses "
                "(PlanAndUpdateBufferAllocationLocation)",
                planBufferAllocation, nullptr});
  registry.add({"convert-blocks-to-opaque",
                "block iteration variables -> their bindings; blocks become opaque (ConvertBlocksToOpaque)",
                convertBlocksToOpaque, nullptr});
  registry.add({"compact-buffer-allocation",
                "allocated buffers shrink to the region their accesses touch (CompactBufferAllocation)",
                compactBufferAllocation, nullptr});
  registry.add({"lower-match-buffer",
                "block match_buffer views -> accesses of their source, parts bound (LowerMatchBuffer)",
                lowerMatchBuffer, nullptr});
  registry.add({"lower-opaque-block",
                "blocks -> allocate/decl_buffer/if; pragmas, thread bindings -> T.attr (LowerOpaqueBlock)",
                lowerOpaqueBlock, nullptr});
  registry.add({"flatten-buffer", "N-d buffer accesses and allocations -> 1-d (FlattenBuffer)", flattenBuffer,
                nullptr});
  registry.add({"tir-lower", "TensorIR -> flat TIR: TVM's phase-1 passes in order", nullptr,
                buildTirLower});
}

}  // namespace vtac::passes
