// `vtac intrinsics [--vta-config C] [-o FILE]`: prints the built-in tensor intrinsics (vta_gemm,
// vta_gemm_reset) for a VTA configuration, in the text format of user-declared intrinsics, so
// that a user can read what a schedule's tensorize matches, or copy one as a starting point.
#pragma once

#include "vtac/support/Command.h"

namespace CLI {
class App;
}

namespace vtac::driver {

void registerIntrinsicsCommand(CLI::App &app, support::CommandAction &action);

}  // namespace vtac::driver
