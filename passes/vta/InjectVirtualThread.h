// inject-virtual-thread (TVM's InjectVirtualThread): every `virtual_thread` attribute (TE's
// bind to "vthread"/"cthread", tir-lower's cthread binding) is replaced by its threads. With a
// "cthread" tag (VTA's mode, no sharing) every allocation inside gets one copy per thread (flat
// extent times n, accesses and access_ptr offsets moved by thread * extent), and each coproc
// scope, evaluated call and store outside them is repeated per thread at the outermost such
// statement: unrolled (thread = 0, 1, ...) when it holds no loop and there are fewer than 16
// threads, otherwise in a `for cthread_s in range(n)` loop; loops that do not depend on the
// thread are shared. With a "vthread" tag only what depends on the thread is repeated. Expects
// flat allocations (an error otherwise) and no while loops.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> injectVirtualThread(const ir::PrimFuncRef &func,
                                                    PassContext &context);

}  // namespace vtac::passes
