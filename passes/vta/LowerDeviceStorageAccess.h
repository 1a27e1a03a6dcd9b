// lower-device-storage-access (TVM's LowerDeviceStorageAccessInfo for VTA's SRAM scopes): the
// on-chip buffers are not memory the CPU can address, so their allocations disappear (after a
// check that each fits its SRAM: a located error names the buffer, its size and the limit) and
// every int32-typed `tvm_access_ptr` into one becomes the SRAM index in tiles, `offset / (tile
// bits / element bits)` (16 for inp and acc, 256 for wgt with the default configuration). A
// handle-typed pointer to, or a CPU load/store of, an on-chip buffer is an error.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> lowerDeviceStorageAccess(const ir::PrimFuncRef &func,
                                                         PassContext &context);

}  // namespace vtac::passes
