// The C entry points of libvta_runtime (vta/runtime.h). Errors never abort: they are logged,
// recorded for VTARuntimeLastError, and turned into a -1 status where the signature allows;
// exceptions (std::bad_alloc) stop at the boundary the same way (vta/api_boundary.h).
#include <cstring>
#include <memory>
#include <spdlog/fmt/fmt.h>

#include "command_queue.h"
#include "data_buffer.h"
#include "runtime_state.h"
#include "vta/api_boundary.h"
#include "vta/runtime.h"

using namespace vta::runtime;
using vta::atApiBoundary;

namespace {

// The calling thread's command queue, owned by a thread_local unique_ptr and mirrored in a
// plain pointer: every command checks its handle against it, and reading the unique_ptr takes
// two TLS lookups (its initialisation guard, then the pointer), the plain pointer one.
thread_local CommandQueue* currentQueue = nullptr;

struct ThreadQueueOwner {
  std::unique_ptr<CommandQueue> queue;
  ~ThreadQueueOwner() { currentQueue = nullptr; }  // at thread exit: no dangling mirror
};

// Makes `queue` the calling thread's queue and returns the one it replaces.
std::unique_ptr<CommandQueue> replaceThreadQueue(std::unique_ptr<CommandQueue> queue) {
  thread_local ThreadQueueOwner owner;
  std::unique_ptr<CommandQueue> previous = std::move(owner.queue);
  owner.queue = std::move(queue);
  currentQueue = owner.queue.get();
  return previous;
}

CommandQueue* threadQueue() {
  if (!currentQueue) {
    const vta::ConfigSlot::Snapshot active = activeConfig();
    replaceThreadQueue(CommandQueue::create(active.config, active.generation));
  }
  return currentQueue;
}

// The queue behind a command handle; only the calling thread's queue is valid.
CommandQueue* queueOf(VTACommandHandle cmd, const char* api) {
  if (cmd && cmd == currentQueue) return static_cast<CommandQueue*>(cmd);
  reportError(fmt::format("{}: {} is not this thread's command handle (VTATLSCommandHandle)", api, cmd));
  return nullptr;
}

// The kernel being recorded on this thread, for the VTAUop* calls made by `finit` closures.
UopKernel* recordingKernel(const char* api) {
  UopKernel* kernel = currentQueue ? currentQueue->recordingKernel() : nullptr;
  if (!kernel) reportError(fmt::format("{}: called outside a micro-kernel closure", api));
  return kernel;
}

// Runs a VTAUop* call on the kernel being recorded. One that throws leaves the kernel
// incomplete: it is abandoned (never cached) before the exception goes on to the API boundary.
template <typename Record>
void recordInKernel(const char* api, Record&& record) {
  UopKernel* kernel = recordingKernel(api);
  if (!kernel) return;
  try {
    record(*kernel);
  } catch (...) {
    kernel->abandon();
    throw;
  }
}

// VTAReadBarrier (the device is about to read: flush CPU writes) and VTAWriteBarrier (the
// device has written: invalidate the CPU's copy), unless the debug flags skip them.
void barrier(VTACommandHandle cmd, void* buffer, uint32_t elemBits, uint32_t start,
             uint32_t extent, bool toDevice, const char* api) {
  const CommandQueue* queue = queueOf(cmd, api);
  if (!queue) return;
  if (queue->debugFlags() & (toDevice ? VTA_DEBUG_SKIP_READ_BARRIER : VTA_DEBUG_SKIP_WRITE_BARRIER))
    return;
  const DataBuffer* data = DataBuffer::fromHandle(buffer);
  if (!data) return reportError(fmt::format("{}: {} is not a live buffer handle", api, buffer));
  const uint64_t elemBytes = (elemBits + 7) / 8;
  if ((uint64_t{start} + extent) * elemBytes > data->bytes)
    return reportError(fmt::format("{}: elements [{}, {}) of {} bits are outside buffer {} of {} bytes", api,
                                   start, uint64_t{start} + extent, elemBits, buffer, data->bytes));
  char* host = static_cast<char*>(data->host) + elemBytes * start;
  const vta_phy_addr_t phy = static_cast<vta_phy_addr_t>(data->phy + elemBytes * start);
  const int bytes = static_cast<int>(elemBytes * extent);
  if (toDevice)
    VTAFlushCache(host, phy, bytes);
  else
    VTAInvalidateCache(host, phy, bytes);
}

// VTABufferCopy: host <-> device copies, checked against the buffers' sizes.
void bufferCopy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t size,
                int kind_mask) {
  const DataBuffer* fromBuffer = nullptr;
  const DataBuffer* toBuffer = nullptr;
  if (kind_mask & VTA_MEMCPY_D2H) {
    fromBuffer = DataBuffer::fromHandle(from);
    if (!fromBuffer) return reportError(fmt::format("VTABufferCopy: source {} is not a live buffer", from));
    from = fromBuffer->host;
  }
  if (kind_mask & VTA_MEMCPY_H2D) {
    toBuffer = DataBuffer::fromHandle(to);
    if (!toBuffer) return reportError(fmt::format("VTABufferCopy: destination {} is not a live buffer", to));
    to = toBuffer->host;
  }
  for (const DataBuffer* buffer : {fromBuffer, toBuffer}) {
    const size_t offset = buffer == fromBuffer ? from_offset : to_offset;
    if (buffer && (offset > buffer->bytes || size > buffer->bytes - offset))
      return reportError(fmt::format("VTABufferCopy: {} bytes at offset {} overrun a buffer of {} bytes",
                                     size, offset, buffer->bytes));
  }
  char* dst = static_cast<char*>(to) + to_offset;
  const char* src = static_cast<const char*>(from) + from_offset;
  if (fromBuffer) {
    VTAInvalidateCache(const_cast<char*>(src), static_cast<vta_phy_addr_t>(fromBuffer->phy + from_offset),
                       static_cast<int>(size));
    VTAMemCopyToHost(dst, src, size);
  } else if (toBuffer) {
    VTAMemCopyFromHost(dst, src, size);
    VTAFlushCache(dst, static_cast<vta_phy_addr_t>(toBuffer->phy + to_offset), static_cast<int>(size));
  } else {
    std::memcpy(dst, src, size);
  }
}

}  // namespace

void* VTABufferAlloc(size_t size) {
  return atApiBoundary("VTABufferAlloc", reportError, static_cast<void*>(nullptr),
                       [&] { return DataBuffer::allocate(size); });
}

void VTABufferFree(void* buffer) {
  atApiBoundary("VTABufferFree", reportError, [&] {
    if (!DataBuffer::release(buffer))
      reportError(fmt::format("VTABufferFree: {} is not a live buffer (freed twice?)", buffer));
  });
}

void VTABufferCopy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t size,
                   int kind_mask) {
  atApiBoundary("VTABufferCopy", reportError,
                [&] { bufferCopy(from, from_offset, to, to_offset, size, kind_mask); });
}

void VTARuntimeShutdown() {
  atApiBoundary("VTARuntimeShutdown", reportError, [] {
    // Freed before anything that may throw (the report), so that out of memory cannot leak it.
    std::unique_ptr<CommandQueue> queue = replaceThreadQueue(nullptr);
    const bool unrun = queue && queue->hasQueuedCommands();
    const size_t instructions = queue ? queue->queuedInstructions() : 0;
    queue.reset();
    if (unrun)
      reportError(fmt::format("VTARuntimeShutdown: VTA commands queued after the last "
                              "VTASynchronize never ran ({} instructions; a missing final "
                              "synchronisation)",
                              instructions));
  });
}

VTACommandHandle VTATLSCommandHandle() {
  return atApiBoundary("VTATLSCommandHandle", reportError, VTACommandHandle(nullptr),
                       [] { return VTACommandHandle(threadQueue()); });
}

void* VTABufferCPUPtr(VTACommandHandle cmd, void* buffer) {
  const DataBuffer* data = DataBuffer::fromHandle(buffer);
  return data ? data->host : buffer;  // a plain CPU pointer is its own CPU address
}

size_t VTABufferSize(const void* buffer) {
  const DataBuffer* data = DataBuffer::fromHandle(buffer);
  return data ? data->bytes : 0;
}

void VTAWriteBarrier(VTACommandHandle cmd, void* buffer, uint32_t elem_bits, uint32_t start,
                     uint32_t extent) {
  atApiBoundary("VTAWriteBarrier", reportError, [&] {
    barrier(cmd, buffer, elem_bits, start, extent, /*toDevice=*/false, "VTAWriteBarrier");
  });
}

void VTAReadBarrier(VTACommandHandle cmd, void* buffer, uint32_t elem_bits, uint32_t start,
                    uint32_t extent) {
  atApiBoundary("VTAReadBarrier", reportError, [&] {
    barrier(cmd, buffer, elem_bits, start, extent, /*toDevice=*/true, "VTAReadBarrier");
  });
}

void VTASetDebugMode(VTACommandHandle cmd, int debug_flag) {
  atApiBoundary("VTASetDebugMode", reportError, [&] {
    if (CommandQueue* queue = queueOf(cmd, "VTASetDebugMode")) queue->setDebugFlags(debug_flag);
  });
}

void VTALoadBuffer2D(VTACommandHandle cmd, void* src_dram_addr, uint32_t src_elem_offset,
                     uint32_t x_size, uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before,
                     uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
                     uint32_t dst_sram_index, uint32_t dst_memory_type) {
  atApiBoundary("VTALoadBuffer2D", reportError, [&] {
    if (CommandQueue* queue = queueOf(cmd, "VTALoadBuffer2D"))
      queue->loadBuffer2D(src_dram_addr, src_elem_offset, x_size, y_size, x_stride, x_pad_before,
                          y_pad_before, x_pad_after, y_pad_after, dst_sram_index, dst_memory_type);
  });
}

void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type,
                      void* dst_dram_addr, uint32_t dst_elem_offset, uint32_t x_size,
                      uint32_t y_size, uint32_t x_stride) {
  atApiBoundary("VTAStoreBuffer2D", reportError, [&] {
    if (CommandQueue* queue = queueOf(cmd, "VTAStoreBuffer2D"))
      queue->storeBuffer2D(src_sram_index, src_memory_type, dst_dram_addr, dst_elem_offset, x_size,
                           y_size, x_stride);
  });
}

void VTAUopPush(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index,
                uint32_t wgt_index, uint32_t opcode, uint32_t use_imm, int32_t imm_val) {
  atApiBoundary("VTAUopPush", reportError, [&] {
    recordInKernel("VTAUopPush", [&](UopKernel& kernel) {
      kernel.push(currentQueue->layout(), mode, reset_out, dst_index, src_index, wgt_index,
                  opcode, use_imm, imm_val);
    });
  });
}

void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
                     uint32_t wgt_factor) {
  atApiBoundary("VTAUopLoopBegin", reportError, [&] {
    recordInKernel("VTAUopLoopBegin", [&](UopKernel& kernel) {
      kernel.loopBegin(extent, dst_factor, src_factor, wgt_factor);
    });
  });
}

void VTAUopLoopEnd() {
  atApiBoundary("VTAUopLoopEnd", reportError,
                [] { recordInKernel("VTAUopLoopEnd", [](UopKernel& kernel) { kernel.loopEnd(); }); });
}

int VTAPushGEMMOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return atApiBoundary("VTAPushGEMMOp", reportError, -1, [&] {
    CommandQueue* queue = threadQueue();
    return queue ? queue->pushUopKernel(/*isGemm=*/true, uop_handle, finit, signature, nbytes) : -1;
  });
}

int VTAPushALUOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return atApiBoundary("VTAPushALUOp", reportError, -1, [&] {
    CommandQueue* queue = threadQueue();
    return queue ? queue->pushUopKernel(/*isGemm=*/false, uop_handle, finit, signature, nbytes) : -1;
  });
}

int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid) {
  return atApiBoundary("VTADepPush", reportError, -1, [&] {
    CommandQueue* queue = queueOf(cmd, "VTADepPush");
    return queue ? queue->dependency(/*push=*/true, from_qid, to_qid) : -1;
  });
}

int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid) {
  return atApiBoundary("VTADepPop", reportError, -1, [&] {
    CommandQueue* queue = queueOf(cmd, "VTADepPop");
    return queue ? queue->dependency(/*push=*/false, from_qid, to_qid) : -1;
  });
}

void VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles) {
  atApiBoundary("VTASynchronize", reportError, [&] {
    if (CommandQueue* queue = queueOf(cmd, "VTASynchronize")) queue->synchronize(wait_cycles);
  });
}

int VTARuntimeSetConfig(const char* path_or_json) {
  return atApiBoundary("VTARuntimeSetConfig", reportError, -1, [&] {
    if (llvm::Error error = setActiveConfig(path_or_json)) {
      reportError("VTARuntimeSetConfig: " + llvm::toString(std::move(error)));
      return -1;
    }
    replaceThreadQueue(nullptr);
    return 0;
  });
}

const char* VTARuntimeConfigJSON(void) {
  return atApiBoundary("VTARuntimeConfigJSON", reportError, "", [] {
    thread_local std::string json;
    json = activeConfig().config.toJSON();
    return json.c_str();
  });
}

const char* VTARuntimeLastError(void) { return lastError().c_str(); }

int VTARuntimeErrorCount(void) { return errorCount(); }

void VTARuntimeClearError(void) { clearErrors(); }

void VTARuntimeDiscardCommands(void) {
  if (currentQueue) currentQueue->discard();
}

void VTARuntimeReportError(const char* message) {
  atApiBoundary("VTARuntimeReportError", reportError,
                [&] { reportError(message ? message : "(null)"); });
}
