// A VTA command queue (what VTATLSCommandHandle returns): builds one program of instructions
// and micro-kernel loads per synchronisation, then runs it on a device through the driver API.
//
// An error while building (an unknown buffer handle, a value that does not fit its field, a
// malformed micro-kernel, ...) is reported at once, the offending command is dropped, and the
// next VTASynchronize discards the program instead of running a half-built one.
#ifndef VTA_RUNTIME_COMMAND_QUEUE_H_
#define VTA_RUNTIME_COMMAND_QUEUE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "instruction_queue.h"
#include "uop_cache.h"
#include "uop_kernel.h"
#include "vta/config.h"
#include "vta/driver.h"
#include "vta/isa.h"

namespace vta::runtime {

struct DataBuffer;

class CommandQueue {
public:
  // nullptr (error reported) if the configuration is unusable or the device cannot be opened.
  static std::unique_ptr<CommandQueue> create(const Config& config, uint64_t configGeneration);
  ~CommandQueue();

  void loadBuffer2D(void* srcHandle, uint32_t srcElemOffset, uint32_t xSize, uint32_t ySize,
                    uint32_t xStride, uint32_t xPadBefore, uint32_t yPadBefore,
                    uint32_t xPadAfter, uint32_t yPadAfter, uint32_t dstSramIndex,
                    uint32_t dstMemoryType);
  void storeBuffer2D(uint32_t srcSramIndex, uint32_t srcMemoryType, void* dstHandle,
                     uint32_t dstElemOffset, uint32_t xSize, uint32_t ySize, uint32_t xStride);
  // VTADepPush (push) or VTADepPop between neighbouring queues; -1 for any other pair.
  int dependency(bool push, int fromQueue, int toQueue);
  // Records (or finds) the kernel of (handle, signature) and queues a GEMM or ALU instruction.
  int pushUopKernel(bool isGemm, void** uopHandle, int (*finit)(void*), void* signature,
                    int nbytes);
  void synchronize(uint32_t waitCycles);
  // Drops the program built since the last synchronisation, unrun (VTARuntimeDiscardCommands).
  void discard();
  // Whether commands (instructions, dependency pops) were queued since the last synchronisation:
  // they have not run.
  bool hasQueuedCommands() const { return insns_.size() > 0 || insns_.hasPendingPops(); }
  size_t queuedInstructions() const { return insns_.size(); }

  // The kernel being recorded by a `finit` closure (nullptr outside one).
  UopKernel* recordingKernel() const { return recording_; }
  const isa::Layout& layout() const { return layout_; }
  void setDebugFlags(int flags) { debugFlags_ = flags; }
  int debugFlags() const { return debugFlags_; }

private:
  CommandQueue(const Config& config, const isa::Layout& layout, uint64_t configGeneration);
  void fail(const std::string& message);
  // Sets `address` to the DRAM address, in elements of `memoryType`, of element `elemOffset`
  // of a buffer handle, for a transfer of `ySize` rows of `xSize` elements `xStride` apart;
  // false (error reported) for an unknown handle or type, rows that reach past the end of the
  // buffer (they would read or overwrite another allocation) or an address beyond 32 bits.
  // (Not a std::optional: its value and flag, stored apart, were reloaded as one word, a
  // store-forwarding stall on every call.)
  bool dramElementAddress(const char* api, const void* handle, uint32_t memoryType,
                          uint32_t elemOffset, uint32_t xSize, uint32_t ySize, uint32_t xStride,
                          uint32_t& address);
  // Looks `handle` up for transfers of `memoryType` into lookup_; false (error reported) for an
  // unknown handle or type, or a buffer not aligned to the type's elements.
  bool lookUpBuffer(const char* api, const void* handle, uint32_t memoryType, uint64_t releases);
  // Reports why dramElementAddress rejects a transfer of the buffer in lookup_; false. Apart
  // (and cold) so that the checks of every LOAD and STORE stay small enough to inline.
  [[gnu::cold]] bool failTransfer(const char* api, const void* handle, uint32_t memoryType,
                                  uint32_t elemOffset, uint32_t xSize, uint32_t ySize,
                                  uint32_t xStride);
  bool appendChecked(llvm::Expected<isa::Insn> insn, const char* what);
  // Encodes `mem` straight into a new slot of the queue (see Layout::encodeInto); on an error
  // the slot is dropped and the error reported.
  bool appendChecked(const isa::MemInsn& mem, const char* what);
  // Takes back the slot appendChecked(MemInsn) encoded into and reports `error`; false.
  [[gnu::cold]] bool dropLastInsn(llvm::Error error, const char* what);
  // Keeps the program within what one device run can take (TVM's VTA_MAX_XFER).
  void syncIfFull(size_t extraUops);
  bool ensureDeviceBuffers();

  Config config_;
  isa::Layout layout_;
  uint64_t configGeneration_;
  InstructionQueue insns_;
  UopCache uops_;
  VTADeviceHandle device_ = nullptr;
  void* insnBuffer_ = nullptr;  // device copies of the program, VTA_MAX_XFER bytes each
  void* uopBuffer_ = nullptr;
  vta_phy_addr_t insnBufferPhy_ = 0, uopBufferPhy_ = 0;
  UopKernel* recording_ = nullptr;
  int debugFlags_ = 0;
  int droppedCommands_ = 0;  // errors since the last synchronisation
  // The buffer handle and memory type looked up last, valid while the release count is the
  // same (see DataBuffer::releaseCount): a program addresses a few buffers thousands of times.
  struct BufferLookup {
    const void* handle = nullptr;
    uint32_t memoryType = 0;
    uint64_t releaseCount = 0;
    const DataBuffer* buffer = nullptr;  // nullptr: nothing looked up
    uint32_t elemBytes = 0;
    uint64_t firstElement = 0;  // the buffer's DRAM address in elements of memoryType
  };
  BufferLookup lookup_;
};

}  // namespace vta::runtime

#endif  // VTA_RUNTIME_COMMAND_QUEUE_H_
