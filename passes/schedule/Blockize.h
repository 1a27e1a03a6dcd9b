// Blockization shared by blockize and tensorize (which blockizes a loop before matching it).
#pragma once

#include "Primitive.h"

namespace vtac::passes::schedule {

// Blockizes the nest under `loop` (see Blockize.cpp); errors at `at`. Returns the outer block.
llvm::Expected<BlockRV> blockizeLoop(Schedule &sch, const LoopRV &loop, bool preserveUnitIters, ir::SourceLoc at);

}  // namespace vtac::passes::schedule
