// The VTA lowering passes and the vta-lower pipeline, registered by name.
#include "vtac/passes/PassRegistry.h"
#include "vtac/passes/Vta.h"

#include "vta/AnnotateAluCoprocScope.h"
#include "vta/CombineContextCall.h"
#include "vta/CoprocSync.h"
#include "vta/CpuAccessRewrite.h"
#include "vta/FoldUopLoop.h"
#include "vta/InjectAluIntrin.h"
#include "vta/InjectDmaCopies.h"
#include "vta/InjectVirtualThread.h"
#include "vta/LiftAllocToScopeBegin.h"
#include "vta/LiftAttrScope.h"
#include "vta/LowerDeviceStorageAccess.h"
#include "vta/LowerVtaIntrinsics.h"
#include "vta/Pipeline.h"
#include "vta/UnifyCoprocAxis.h"

namespace vtac::passes {

void registerVtaPasses(PassRegistry &registry) {
  registry.add({"unify-coproc-axis",
                "one coprocessor axis for all coproc scopes, one GEMM micro-kernel identity, one "
                "per ALU stage (vtac; TVM relies on object identity)",
                unifyCoprocAxis, nullptr, PassInput::LoweredTir});
  registry.add({"inject-dma-copies",
                "pragma_dma_copy nests -> 2D strided VTALoadBuffer2D/VTAStoreBuffer2D with padding "
                "(InjectDMAIntrin)",
                injectDmaCopies, nullptr, PassInput::LoweredTir});
  registry.add({"annotate-alu-coproc-scope",
                "pragma_alu -> compute coproc_scope + ALU coproc_uop_scope (AnnotateALUCoProcScope)",
                annotateAluCoprocScope, nullptr, PassInput::LoweredTir});
  registry.add({"lift-coproc-uop-scope",
                "lift and merge coproc_uop_scope attributes (LiftAttrScope(\"coproc_uop_scope\"))",
                liftCoprocUopScope, nullptr, PassInput::LoweredTir});
  registry.add({"lift-coproc-scope",
                "lift and merge coproc_scope attributes (LiftAttrScope(\"coproc_scope\"))",
                liftCoprocScope, nullptr, PassInput::LoweredTir});
  registry.add({"lift-alloc-to-scope-begin",
                "allocations to the start of their loop / virtual thread (LiftAllocToScopeBegin)",
                liftAllocToScopeBegin, nullptr, PassInput::LoweredTir});
  registry.add({"coproc-sync",
                "dependence push/pop between VTA's queues, final coproc_sync (CoProcSync)",
                coprocSync, nullptr, PassInput::LoweredTir});
  registry.add({"inject-virtual-thread",
                "virtual_thread -> per-thread copies (cthread: no sharing) (InjectVirtualThread)",
                injectVirtualThread, nullptr, PassInput::LoweredTir});
  registry.add({"inject-alu-intrin",
                "pragma_alu nests -> ALU micro-op loops and uop_push (InjectALUIntrin)",
                injectAluIntrin, nullptr, PassInput::LoweredTir});
  registry.add({"lower-device-storage-access",
                "drop SRAM allocations, access_ptr -> SRAM tile index (LowerDeviceStorageAccessInfo)",
                lowerDeviceStorageAccess, nullptr, PassInput::LoweredTir});
  registry.add({"fold-uop-loop",
                "GEMM micro-kernel loops -> VTAUopLoopBegin/End, remark when not (FoldUopLoop)",
                foldUopLoop, nullptr, PassInput::LoweredTir});
  registry.add({"cpu-access-rewrite",
                "CPU loads/stores through VTABufferCPUPtr (CPUAccessRewrite)", cpuAccessRewrite,
                nullptr, PassInput::LoweredTir});
  registry.add({"lower-vta-intrinsics",
                "tir.vta.* intrinsics -> VTA runtime calls (host LowerIntrin; run by every backend)",
                lowerVtaIntrinsics, nullptr});
  registry.add({"combine-context-call",
                "one VTATLSCommandHandle() per VTA function, bound at entry and used by every "
                "runtime call (CombineContextCall; run by every backend)",
                combineContextCall, nullptr});
  registry.add({"uop-kernel-closures",
                "micro-kernels capture what TVM's runtime takes: outer lets recomputed inside, loop "
                "variables packed into one int key (vtac; run by every backend)",
                uopKernelClosures, nullptr});
  registry.add({"vta-lower", "flat TIR -> VTA program: TVM's VTA build_config passes in order",
                nullptr, buildVtaLower});
}

}  // namespace vtac::passes
