// The generic TIR passes, registered by name (TVM's names in the summaries).
#include "vtac/passes/PassRegistry.h"

#include "tir/CommonSubexprElim.h"
#include "tir/CompactBufferAllocation.h"
#include "tir/ConvertBlocksToOpaque.h"
#include "tir/FlattenBuffer.h"
#include "tir/LowerInitBlock.h"
#include "tir/LowerMatchBuffer.h"
#include "tir/LowerOpaqueBlock.h"
#include "tir/Pipeline.h"
#include "tir/PlanBufferAllocation.h"
#include "tir/RemoveNoOp.h"
#include "tir/Simplify.h"
#include "tir/StorageRewrite.h"
#include "tir/UnrollLoop.h"

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
                compactBufferAllocation, nullptr, PassInput::Any, compactBufferAllocationOptions()});
  registry.add({"lower-match-buffer",
                "block match_buffer views -> accesses of their source, parts bound (LowerMatchBuffer)",
                lowerMatchBuffer, nullptr});
  registry.add({"lower-opaque-block",
                "blocks -> allocate/decl_buffer/if; pragmas, thread bindings -> T.attr (LowerOpaqueBlock)",
                lowerOpaqueBlock, nullptr});
  registry.add({"flatten-buffer", "N-d buffer accesses and allocations -> 1-d (FlattenBuffer)", flattenBuffer,
                nullptr});
  registry.add({"cse", "common sub-expressions -> cse_var_N lets above the statements using them (CommonSubexprElimTIR)",
                commonSubexprElim, nullptr});
  registry.add({"simplify", "arithmetic simplification in TVM's canonical forms, decided ifs removed (Simplify)",
                simplify, nullptr, PassInput::Any, simplifyOptions()});
  registry.add({"storage-rewrite",
                "liveness-based reuse, in-place reuse and tagged-scope merge of allocations (StorageRewrite)",
                storageRewrite, nullptr});
  registry.add({"remove-no-op", "statements that do nothing removed, side effects kept (RemoveNoOp)", removeNoOp,
                nullptr, PassInput::Any, removeNoOpOptions()});
  registry.add({"unroll-loop", "T.unroll loops (and auto-unrolled small ones) -> copies of the body (UnrollLoop)",
                unrollLoop, nullptr, PassInput::Any, unrollLoopOptions()});
  registry.add({"tir-lower", "TensorIR -> flat TIR: TVM's phase-1 passes in order", nullptr,
                buildTirLower});
}

}  // namespace vtac::passes
