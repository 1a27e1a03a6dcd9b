// The VTA lowering passes and the vta-lower pipeline, registered by name.
#include "vtac/passes/PassRegistry.h"

namespace vtac::passes {

void registerVtaPasses(PassRegistry &) {}

}  // namespace vtac::passes
