#include "command_queue.h"

#include <cstring>
#include <mutex>
#include <spdlog/fmt/fmt.h>

#include "data_buffer.h"
#include "runtime_state.h"
#include "vta/runtime.h"

namespace vta::runtime {

using namespace isa;

namespace {
// TVM's runtime keeps this many instruction slots free before it synchronises automatically.
constexpr size_t kInsnHeadroom = 6;
}  // namespace

std::unique_ptr<CommandQueue> CommandQueue::create(const Config& config, uint64_t configGeneration) {
  auto layout = Layout::forConfig(config);
  if (!layout) {
    reportError("VTATLSCommandHandle: " + llvm::toString(layout.takeError()));
    return nullptr;
  }
  std::unique_ptr<CommandQueue> queue(new CommandQueue(config, *layout, configGeneration));
  queue->device_ = VTADeviceAlloc();
  if (!queue->device_) {
    reportError("VTATLSCommandHandle: VTADeviceAlloc failed");
    return nullptr;
  }
  if (!queue->ensureDeviceBuffers()) return nullptr;
  return queue;
}

CommandQueue::CommandQueue(const Config& config, const Layout& layout, uint64_t configGeneration)
    : config_(config),
      layout_(layout),
      configGeneration_(configGeneration),
      insns_(layout_),
      uops_(config.uopDepth) {}

CommandQueue::~CommandQueue() {
  if (insnBuffer_) VTAMemFree(insnBuffer_);
  if (uopBuffer_) VTAMemFree(uopBuffer_);
  if (device_) VTADeviceFree(device_);
}

bool CommandQueue::ensureDeviceBuffers() {
  // Micro-op buffer first, as TVM's runtime does: with the same device the two runtimes then
  // produce byte-identical programs (the LOAD UOP addresses included).
  uopBuffer_ = VTAMemAlloc(VTA_MAX_XFER, VTA_CACHED);
  insnBuffer_ = VTAMemAlloc(VTA_MAX_XFER, VTA_CACHED);
  if (!insnBuffer_ || !uopBuffer_) {
    reportError("VTATLSCommandHandle: cannot allocate the instruction and micro-op buffers");
    return false;
  }
  insnBufferPhy_ = VTAMemGetPhyAddr(insnBuffer_);
  uopBufferPhy_ = VTAMemGetPhyAddr(uopBuffer_);
  return true;
}

void CommandQueue::fail(const std::string& message) {
  reportError(message);
  ++droppedCommands_;
}

bool CommandQueue::appendChecked(llvm::Expected<Insn> insn, const char* what) {
  if (!insn) {
    fail(std::string(what) + ": " + llvm::toString(insn.takeError()));
    return false;
  }
  insns_.append(*insn);
  return true;
}

bool CommandQueue::appendChecked(const MemInsn& mem, const char* what) {
  if (llvm::Error error = layout_.encodeInto(mem, insns_.appendSlot()))
    return dropLastInsn(std::move(error), what);
  return true;
}

bool CommandQueue::dropLastInsn(llvm::Error error, const char* what) {
  insns_.dropLast();
  fail(std::string(what) + ": " + llvm::toString(std::move(error)));
  return false;
}

void CommandQueue::syncIfFull(size_t extraUops) {
  const bool insnsFull = (insns_.size() + kInsnHeadroom) * sizeof(Insn) > VTA_MAX_XFER;
  const bool uopsFull =
      (uops_.dramImage().size() + extraUops) * config_.uopElemBytes > VTA_MAX_XFER;
  if (insnsFull || uopsFull) synchronize(1u << 31);
}

bool CommandQueue::lookUpBuffer(const char* api, const void* handle, uint32_t memoryType,
                                uint64_t releases) {
  lookup_ = BufferLookup{};
  const DataBuffer* buffer = DataBuffer::fromHandle(handle);
  if (!buffer) {
    fail(fmt::format("{}: {} is not a live buffer handle", api, handle));
    return false;
  }
  const uint32_t elemBytes = config_.dramElemBytes(memoryType);
  if (elemBytes == 0) {
    fail(fmt::format("{}: unknown memory type {}", api, memoryType));
    return false;
  }
  if (buffer->phy % elemBytes != 0) {
    fail(fmt::format("{}: buffer address {:#x} is not aligned to {}-byte elements", api,
                     buffer->phy, elemBytes));
    return false;
  }
  lookup_ = {handle, memoryType, releases, buffer, elemBytes, uint64_t{buffer->phy} / elemBytes};
  return true;
}

bool CommandQueue::dramElementAddress(const char* api, const void* handle, uint32_t memoryType,
                                      uint32_t elemOffset, uint32_t xSize, uint32_t ySize,
                                      uint32_t xStride, uint32_t& address) {
  const uint64_t releases = DataBuffer::releaseCount();
  if ((!lookup_.buffer || handle != lookup_.handle || memoryType != lookup_.memoryType ||
       releases != lookup_.releaseCount) &&
      !lookUpBuffer(api, handle, memoryType, releases))
    return false;
  const uint64_t end = elemOffset + uint64_t{ySize - 1} * xStride + xSize;
  const uint64_t element = lookup_.firstElement + elemOffset;
  if ((xSize != 0 && ySize != 0 && end * lookup_.elemBytes > lookup_.buffer->bytes) ||
      element > UINT32_MAX)
    return failTransfer(api, handle, memoryType, elemOffset, xSize, ySize, xStride);
  address = static_cast<uint32_t>(element);
  return true;
}

bool CommandQueue::failTransfer(const char* api, const void* handle, uint32_t memoryType,
                                uint32_t elemOffset, uint32_t xSize, uint32_t ySize,
                                uint32_t xStride) {
  const uint64_t elemBytes = lookup_.elemBytes, bytes = lookup_.buffer->bytes;
  const uint64_t end = elemOffset + uint64_t{ySize - 1} * xStride + xSize;
  if (xSize != 0 && ySize != 0 && end * elemBytes > bytes)
    fail(fmt::format("{}: {} elements [{}, {}) (y_size {}, x_size {}, x_stride {}; {} bytes "
                     "each) are outside buffer {} of {} bytes ({} elements)",
                     api, isa::memoryTypeName(memoryType), elemOffset, end, ySize, xSize,
                     xStride, elemBytes, handle, bytes, bytes / elemBytes));
  else
    fail(fmt::format("{}: DRAM element address {} exceeds 32 bits", api,
                     lookup_.firstElement + elemOffset));
  return false;
}

void CommandQueue::loadBuffer2D(void* srcHandle, uint32_t srcElemOffset, uint32_t xSize,
                                uint32_t ySize, uint32_t xStride, uint32_t xPadBefore,
                                uint32_t yPadBefore, uint32_t xPadAfter, uint32_t yPadAfter,
                                uint32_t dstSramIndex, uint32_t dstMemoryType) {
  if (dstMemoryType == kMemOut)  // the output buffer is written by stores only
    return fail(fmt::format("VTALoadBuffer2D: unknown memory type {}", dstMemoryType));
  uint32_t dramBase = 0;
  if (!dramElementAddress("VTALoadBuffer2D", srcHandle, dstMemoryType, srcElemOffset, xSize,
                          ySize, xStride, dramBase))
    return;
  MemInsn mem;
  mem.opcode = kOpLoad;
  mem.deps = insns_.takePendingPops(stageOfLoad(dstMemoryType));
  mem.memoryType = dstMemoryType;
  mem.sramBase = dstSramIndex;
  mem.dramBase = dramBase;
  mem.ySize = ySize, mem.xSize = xSize, mem.xStride = xStride;
  mem.yPad0 = yPadBefore, mem.yPad1 = yPadAfter, mem.xPad0 = xPadBefore, mem.xPad1 = xPadAfter;
  appendChecked(mem, "VTALoadBuffer2D");
  syncIfFull(0);
}

void CommandQueue::storeBuffer2D(uint32_t srcSramIndex, uint32_t srcMemoryType, void* dstHandle,
                                 uint32_t dstElemOffset, uint32_t xSize, uint32_t ySize,
                                 uint32_t xStride) {
  uint32_t dramBase = 0;
  if (!dramElementAddress("VTAStoreBuffer2D", dstHandle, srcMemoryType, dstElemOffset, xSize,
                          ySize, xStride, dramBase))
    return;
  MemInsn mem;
  mem.opcode = kOpStore;
  mem.deps = insns_.takePendingPops(kStoreStage);
  mem.memoryType = srcMemoryType;
  mem.sramBase = srcSramIndex;
  mem.dramBase = dramBase;
  mem.ySize = ySize, mem.xSize = xSize, mem.xStride = xStride;
  appendChecked(mem, "VTAStoreBuffer2D");
  syncIfFull(0);
}

int CommandQueue::dependency(bool push, int fromQueue, int toQueue) {
  const bool neighbours = fromQueue >= kLoadStage && fromQueue <= kStoreStage &&
                          toQueue >= kLoadStage && toQueue <= kStoreStage &&
                          (fromQueue - toQueue == 1 || toQueue - fromQueue == 1);
  if (!neighbours) {
    fail(fmt::format("{}: no dependency queue from {} to {} (queues: 1 load, 2 compute, 3 store; "
                     "only neighbours)",
                     push ? "VTADepPush" : "VTADepPop", fromQueue, toQueue));
    return -1;
  }
  const Stage from = static_cast<Stage>(fromQueue), to = static_cast<Stage>(toQueue);
  push ? insns_.depPush(from, to) : insns_.depPop(from, to);
  return 0;
}

int CommandQueue::pushUopKernel(bool isGemm, void** uopHandle, int (*finit)(void*),
                                void* signature, int nbytes) {
  const char* api = isGemm ? "VTAPushGEMMOp" : "VTAPushALUOp";
  if (!uopHandle || !finit || nbytes < 0 || (nbytes > 0 && !signature)) {
    fail(fmt::format("{}: invalid arguments (handle slot, finit closure or signature)", api));
    return -1;
  }
  // TVM's runtime (UopKernelMap::Get) keys a kernel by no closure or one int below 99 and aborts
  // on anything else; refusing the same here keeps what runs on vtac's runtime running on TVM's.
  int key = 0;
  if (nbytes != 0 && nbytes != int(sizeof key)) {
    fail(fmt::format("{}: a micro-kernel closure of {} bytes; TVM's runtime takes at most one int "
                     "(the virtual thread's loop variable)", api, nbytes));
    return -1;
  }
  if (nbytes != 0) std::memcpy(&key, signature, sizeof key);
  if (key < 0 || key >= 99) {
    fail(fmt::format("{}: a micro-kernel closure of value {}; TVM's runtime takes 0 to 98 (its "
                     "kernel map holds 100 keys)", api, key));
    return -1;
  }
  if (recording_) {
    fail(fmt::format("{}: called while a micro-kernel is being recorded", api));
    return -1;
  }
  // Call sites are shared by all threads: one thread at a time looks up or records a kernel.
  static std::mutex kernelMapsMutex;
  std::unique_lock<std::mutex> lock(kernelMapsMutex);
  auto*& kernels = *reinterpret_cast<UopKernelMap**>(uopHandle);
  if (!kernels) kernels = new UopKernelMap(configGeneration_);  // lives as long as the call site
  UopKernel* kernel = kernels->find(signature, nbytes, configGeneration_);
  if (!kernel) {
    auto recorded = std::make_unique<UopKernel>();
    recording_ = recorded.get();
    const int status = finit(signature);
    recording_ = nullptr;
    recorded->finish();
    if (status != 0) {
      fail(fmt::format("{}: the micro-kernel closure returned {}", api, status));
      return -1;
    }
    if (!recorded->error().empty()) {
      fail(fmt::format("{}: {}", api, recorded->error()));
      return -1;
    }
    const UopKernel::Mode expected = isGemm ? UopKernel::Mode::kGemm : UopKernel::Mode::kAlu;
    if (recorded->mode() != UopKernel::Mode::kUnset && recorded->mode() != expected) {
      fail(fmt::format("{}: the closure recorded {} micro-ops", api, isGemm ? "ALU" : "GEMM"));
      return -1;
    }
    if (recorded->size() > config_.uopDepth) {
      fail(fmt::format("{}: a micro-kernel of {} micro-ops does not fit the micro-op SRAM of {} "
                       "entries", api, recorded->size(), config_.uopDepth));
      return -1;
    }
    if (debugFlags_ & VTA_DEBUG_DUMP_UOP) logInfo(recorded->dump());
    kernel = kernels->insert(std::move(recorded), signature, nbytes);
  }
  lock.unlock();

  syncIfFull(kernel->size());
  const UopCache::Placement placement = uops_.place(*kernel);
  if (placement.needsLoad) {
    MemInsn load;
    load.opcode = kOpLoad;
    load.deps = insns_.takePendingPops(kComputeStage);
    load.memoryType = kMemUop;
    load.sramBase = placement.sramBegin;
    load.dramBase = static_cast<uint32_t>(
        (uint64_t{uopBufferPhy_} + placement.dramImageIndex * config_.uopElemBytes) /
        config_.uopElemBytes);
    load.ySize = 1;
    load.xSize = load.xStride = placement.sramEnd - placement.sramBegin;
    if (!appendChecked(load, api)) return -1;
  }

  // Loop mapping of TVM's runtime: a single GEMM loop is the outer one, a single ALU loop the
  // inner one.
  const auto& loops = kernel->loops();
  UopLoops nest;
  nest.reset = kernel->resetOut();
  nest.uopBgn = placement.sramBegin;
  nest.uopEnd = placement.sramEnd;
  const UopKernel::Loop* outer = nullptr;
  const UopKernel::Loop* inner = nullptr;
  if (loops.size() == 2) outer = &loops[0], inner = &loops[1];
  if (loops.size() == 1) (isGemm ? outer : inner) = &loops[0];
  if (outer) nest.iterOut = outer->extent, nest.dstFactorOut = outer->dstFactor, nest.srcFactorOut = outer->srcFactor;
  if (inner) nest.iterIn = inner->extent, nest.dstFactorIn = inner->dstFactor, nest.srcFactorIn = inner->srcFactor;
  const DepFlags deps = insns_.takePendingPops(kComputeStage);
  bool appended;
  if (isGemm) {
    GemmInsn gemm;
    gemm.deps = deps;
    gemm.loops = nest;
    gemm.wgtFactorOut = outer ? outer->wgtFactor : 0;
    gemm.wgtFactorIn = inner ? inner->wgtFactor : 0;
    appended = appendChecked(layout_.encode(gemm), api);
  } else {
    AluInsn alu;
    alu.deps = deps;
    alu.loops = nest;
    alu.aluOpcode = kernel->aluOpcode();
    alu.useImm = kernel->useImm();
    alu.imm = kernel->imm();
    appended = appendChecked(layout_.encode(alu), api);
  }
  if (!appended) return -1;
  syncIfFull(0);
  return 0;
}

void CommandQueue::synchronize(uint32_t waitCycles) {
  if (debugFlags_ & VTA_DEBUG_FORCE_SERIAL) {
    insns_.serializeAll();
  } else {
    // Make FINISH wait for the last store and the last load, as TVM's runtime does.
    insns_.depPush(kStoreStage, kComputeStage);
    insns_.depPush(kLoadStage, kComputeStage);
    insns_.depPop(kStoreStage, kComputeStage);
    insns_.depPop(kLoadStage, kComputeStage);
    insns_.commitPendingPop(kComputeStage);
  }
  insns_.append(layout_.encode(FinishInsn{insns_.takePendingPops(kComputeStage)}));
  if (insns_.hasPendingPops())
    fail("VTASynchronize: a VTADepPop of the load or store stage is not followed by any "
         "instruction of that stage");

  const auto& program = insns_.insns();
  const auto& uopImage = uops_.dramImage();
  if (droppedCommands_ > 0) {
    reportError(fmt::format("VTASynchronize: program of {} instructions not run: {} command(s) "
                            "failed while it was built",
                            program.size(), droppedCommands_));
  } else {
    VTAMemCopyFromHost(uopBuffer_, uopImage.data(), uopImage.size() * sizeof(uint32_t));
    VTAFlushCache(uopBuffer_, uopBufferPhy_, static_cast<int>(uopImage.size() * sizeof(uint32_t)));
    VTAMemCopyFromHost(insnBuffer_, program.data(), program.size() * sizeof(Insn));
    VTAFlushCache(insnBuffer_, insnBufferPhy_, static_cast<int>(program.size() * sizeof(Insn)));
    if (debugFlags_ & VTA_DEBUG_DUMP_INSN) {
      std::string dump = fmt::format("{} instructions\n", program.size());
      for (size_t i = 0; i < program.size(); ++i)
        dump += fmt::format("  [{}] {}\n", i, layout_.describe(program[i]));
      logInfo(dump);
    }
    const int status = VTADeviceRun(device_, insnBufferPhy_,
                                    static_cast<uint32_t>(program.size()), waitCycles);
    if (status != 0)
      reportError(fmt::format("VTASynchronize: the device failed (status {}: timeout or error) "
                              "running {} instructions",
                              status, program.size()));
  }
  discard();
}

void CommandQueue::discard() {
  insns_.reset();
  uops_.reset();
  droppedCommands_ = 0;
}

}  // namespace vta::runtime
