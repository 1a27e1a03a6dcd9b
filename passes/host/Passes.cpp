// The host passes (vtac's own: TVM leaves these to LLVM or to its codegen) and host-lower. They
// take any input (a block is left alone) so that code generation reports TensorIR it is given.
#include "vtac/passes/PassRegistry.h"

#include "host/BindEntryParameters.h"
#include "host/DeclareMicroKernels.h"
#include "host/DeclareParallelTasks.h"
#include "host/HoistReductionInit.h"
#include "host/Pipeline.h"
#include "host/VectorizeOuterLoops.h"

namespace vtac::passes {

void registerHostPasses(PassRegistry &registry) {
  registry.add({"hoist-reduction-init",
                "a reduction's `if k == 0` initialisation -> in front of its loop (vtac)", hoistReductionInit,
                nullptr});
  registry.add({"vectorize-outer-loops",
                "a loop of independent iterations around a reduction -> vector lanes, same results (vtac)",
                vectorizeOuterLoops, nullptr});
  registry.add({"declare-micro-kernels",
                "each coproc_uop_scope checked, its closure written out as the scope's node (the IR half of "
                "TVM's CreateStaticInit)",
                declareMicroKernels, nullptr});
  registry.add({"declare-parallel-tasks",
                "each outermost parallel loop's closure written out around it, for the thread pool's task "
                "(the IR half of TVM's parallel-loop outlining)",
                declareParallelTasks, nullptr});
  registry.add({"bind-entry-parameters",
                "buffer parameters -> checked DLTensor handles, their sizes and data bound at entry (the binding "
                "half of TVM's MakePackedAPI)",
                bindFunctionEntry, nullptr});
  registry.add({"host-lower", "lowered TIR -> what the emitters take: the host passes in order (run by vtac compile and the JIT)", nullptr,
                buildHostLower});
}

}  // namespace vtac::passes
