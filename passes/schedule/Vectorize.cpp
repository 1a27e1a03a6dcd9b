// vectorize(loop): the loop becomes T.vectorized(...). See ForKind.h for the checks.
#include "ForKind.h"

namespace vtac::passes::schedule {

llvm::Error vectorize(Schedule &sch, const Located<LoopRV> &loop) {
  return setLoopKind(sch, loop, ir::ForKind::Vectorized);
}

}  // namespace vtac::passes::schedule
