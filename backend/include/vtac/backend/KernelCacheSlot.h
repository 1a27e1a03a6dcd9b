// The micro-kernel handles of both engines of `vtac run`: a pointer-sized slot, initially null,
// that lives as long as the process, as the static `void*` TVM's code generator emits per call
// site does. The runtime stores its kernel cache for the call site there and offers no way to
// free it (its micro-op cache knows kernels by address), so the slot must stay reachable after
// the interpreted function, or the JIT's code holding the call site, is destroyed.
#pragma once

namespace vtac::backend {

void **newKernelCacheSlot();

}  // namespace vtac::backend
