// inject-dma-copies (TVM's InjectDMAIntrin = InjectCopyIntrin("dma_copy") + VTA's _inject_copy):
// every `pragma_dma_copy` copy nest between DRAM and an SRAM scope becomes one 2D strided DMA
// call in its task queue's coproc_scope: `VTALoadBuffer2D(cmd, src, offset, x_size, y_size,
// x_stride, x_pad_before, y_pad_before, x_pad_after, y_pad_after, sram, mem_type)` for a load,
// `VTAStoreBuffer2D(cmd, sram, 4, dst, offset, x_size, y_size, x_stride)` for a store from the
// accumulator. Expects flat buffers and a perfect nest of loops from 0 (lets and buffer
// declarations inside are seen through) around one store of a load, a cast load, or
// `if_then_else(cond, load, pad)`/`Select` whose condition bounds each loop variable (the
// zero padding the load inserts). A copy that matches none of this, has no 2D pattern in tiles,
// pads an inner dimension, or stores with padding is a located error.
#pragma once

#include "vtac/passes/Pass.h"

namespace vtac::passes {

llvm::Expected<ir::PrimFuncRef> injectDmaCopies(const ir::PrimFuncRef &func, PassContext &context);

}  // namespace vtac::passes
