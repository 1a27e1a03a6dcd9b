// unroll(loop): the loop becomes T.unroll(...). See ForKind.h for the checks.
#include "ForKind.h"

namespace vtac::passes::schedule {

llvm::Error unroll(Schedule &sch, const Located<LoopRV> &loop) {
  return setLoopKind(sch, loop, ir::ForKind::Unrolled);
}

}  // namespace vtac::passes::schedule
