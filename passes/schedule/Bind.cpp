// bind(loop, thread_axis): the loop becomes T.thread_binding(..., thread=thread_axis). Accepted
// axes: blockIdx.x/y/z, threadIdx.x/y/z, vthread, vthread.x/y/z and cthread (VTA's virtual
// threads). See ForKind.h for the checks.
#include "ForKind.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

llvm::Error bind(Schedule &sch, const Located<LoopRV> &loop, const Located<std::string> &threadAxis) {
  const std::string &thread = threadAxis.value;
  static const char *const kAxes[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z", "threadIdx.x",
                                      "threadIdx.y", "threadIdx.z", "vthread",    "vthread.x",
                                      "vthread.y",   "vthread.z",   "cthread"};
  if (std::find(std::begin(kAxes), std::end(kAxes), thread) == std::end(kAxes))
    return ir::diagnosticError(threadAxis.at, "unknown thread axis '" + thread +
                                                  "' (blockIdx.*, threadIdx.*, vthread[.*] or cthread)");
  return setLoopKind(sch, loop, ir::ForKind::ThreadBinding, thread);
}

}  // namespace vtac::passes::schedule
