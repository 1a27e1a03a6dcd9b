#include "vtac/backend/VtaExterns.h"

#include <chrono>
#include <ctime>
#include <string>

#include <vta/runtime.h>
#include <vta/sim.h>

#include "vtac/backend/Diagnostic.h"

namespace vtac::backend {

namespace {

// The closure the runtime is recording through `runActiveClosure` (a C function pointer
// cannot carry the closure itself; recording happens inside the push call, on this thread).
thread_local const KernelClosure *activeClosure = nullptr;

int runActiveClosure(void *signature) { return activeClosure ? activeClosure->run(signature) : -1; }

// Success, or the runtime's (and simulator's) first error since `errorsBefore`.
llvm::Expected<Value> checked(Value result, int errorsBefore) {
  if (VTARuntimeErrorCount() <= errorsBefore) return result;
  std::string message = VTARuntimeLastError();
  std::string detail = VTASimLastError();
  if (!detail.empty() && message.find(detail) == std::string::npos) message += " (" + detail + ")";
  VTARuntimeClearError();
  VTASimClearError();
  return diagnosticError(message);
}

// Unpacks args[first...] into 32-bit unsigned ints, as the C API takes them.
llvm::Error unsignedArguments(llvm::StringRef name, llvm::ArrayRef<Value> args, size_t first,
                              llvm::MutableArrayRef<uint32_t> out) {
  for (size_t i = 0; i < out.size(); ++i) {
    auto value = intArgument(name, args, first + i);
    if (!value) return value.takeError();
    out[i] = uint32_t(*value);
  }
  return llvm::Error::success();
}

using Body = std::function<llvm::Expected<Value>(llvm::ArrayRef<Value> args)>;

void add(ExternRegistry &registry, llvm::StringRef name, int arity, Body body) {
  ExternEntry entry;
  entry.arity = arity;
  entry.usesDeviceMemory = true;
  entry.function = [body = std::move(body)](llvm::ArrayRef<Value> args, ir::DataType) -> llvm::Expected<Value> {
    int errorsBefore = VTARuntimeErrorCount();
    auto result = body(args);
    if (!result) return result.takeError();
    return checked(*result, errorsBefore);
  };
  registry.add(name, std::move(entry));
}

Body pushKernel(llvm::StringRef name, int (*push)(void **, int (*)(void *), void *, int)) {
  return [name = name.str(), push](llvm::ArrayRef<Value> args) -> llvm::Expected<Value> {
    auto slot = handleArgument(name, args, 0);
    if (!slot) return slot.takeError();
    if (args[1].kind != Value::Kind::Closure)
      return diagnosticError("argument 2 of '" + name + "' must be a micro-kernel (a coproc_uop_scope body)");
    auto signature = handleArgument(name, args, 2);
    if (!signature) return signature.takeError();
    auto bytes = intArgument(name, args, 3);
    if (!bytes) return bytes.takeError();
    const KernelClosure *outer = activeClosure;
    activeClosure = args[1].closure;
    int status = push(static_cast<void **>(*slot), runActiveClosure, *signature, int(*bytes));
    activeClosure = outer;
    return Value::fromInt(status);
  };
}

Body depToken(llvm::StringRef name, int (*call)(VTACommandHandle, int, int), bool withHandle) {
  return [name = name.str(), call, withHandle](llvm::ArrayRef<Value> args) -> llvm::Expected<Value> {
    size_t first = withHandle ? 1 : 0;
    void *cmd = VTATLSCommandHandle();
    if (withHandle) {
      auto handle = handleArgument(name, args, 0);
      if (!handle) return handle.takeError();
      cmd = *handle;
    }
    auto from = intArgument(name, args, first), to = intArgument(name, args, first + 1);
    if (!from) return from.takeError();
    if (!to) return to.takeError();
    return Value::fromInt(call(cmd, int(*from), int(*to)));
  };
}

Body synchronize(VtaTiming *timing, bool withArguments) {
  return [timing, withArguments](llvm::ArrayRef<Value> args) -> llvm::Expected<Value> {
    void *cmd = VTATLSCommandHandle();
    uint32_t waitCycles = 1u << 31;
    if (withArguments) {
      auto handle = handleArgument("VTASynchronize", args, 0);
      if (!handle) return handle.takeError();
      cmd = *handle;
      auto cycles = intArgument("VTASynchronize", args, 1);
      if (!cycles) return cycles.takeError();
      waitCycles = uint32_t(*cycles);
    }
    auto start = std::chrono::steady_clock::now();
    double cpuStart = threadCpuSeconds();
    VTASynchronize(cmd, waitCycles);
    if (timing) {
      timing->synchronizeSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      timing->synchronizeCpuSeconds += threadCpuSeconds() - cpuStart;
      ++timing->synchronizeCalls;
    }
    return Value::fromInt(0);
  };
}

}  // namespace

llvm::Error finishVtaRun(ir::SourceLoc loc) {
  const int errorsBefore = VTARuntimeErrorCount();
  VTARuntimeShutdown();
  auto finished = checked(Value::fromInt(0), errorsBefore);
  if (finished) return llvm::Error::success();
  return diagnosticError(loc, errorMessage(finished.takeError()));
}

namespace {

double cpuSeconds(clockid_t clock) {
  timespec now;
  clock_gettime(clock, &now);
  return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

}  // namespace

double threadCpuSeconds() { return cpuSeconds(CLOCK_THREAD_CPUTIME_ID); }

double processCpuSeconds() { return cpuSeconds(CLOCK_PROCESS_CPUTIME_ID); }

void registerVtaExterns(ExternRegistry &registry, VtaTiming *timing) {
  add(registry, "VTALoadBuffer2D", 12, [](llvm::ArrayRef<Value> args) -> llvm::Expected<Value> {
    auto cmd = handleArgument("VTALoadBuffer2D", args, 0);
    if (!cmd) return cmd.takeError();
    auto source = handleArgument("VTALoadBuffer2D", args, 1);
    if (!source) return source.takeError();
    uint32_t v[10];
    if (llvm::Error error = unsignedArguments("VTALoadBuffer2D", args, 2, v)) return error;
    VTALoadBuffer2D(*cmd, *source, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
    return Value::fromInt(0);
  });
  add(registry, "VTAStoreBuffer2D", 8, [](llvm::ArrayRef<Value> args) -> llvm::Expected<Value> {
    auto cmd = handleArgument("VTAStoreBuffer2D", args, 0);
    if (!cmd) return cmd.takeError();
    uint32_t sram[2], layout[4];
    if (llvm::Error error = unsignedArguments("VTAStoreBuffer2D", args, 1, sram)) return error;
    auto destination = handleArgument("VTAStoreBuffer2D", args, 3);
    if (!destination) return destination.takeError();
    if (llvm::Error error = unsignedArguments("VTAStoreBuffer2D", args, 4, layout)) return error;
    VTAStoreBuffer2D(*cmd, sram[0], sram[1], *destination, layout[0], layout[1], layout[2], layout[3]);
    return Value::fromInt(0);
  });
  auto uopPush = [](llvm::StringRef name) {
    return [name = name.str()](llvm::ArrayRef<Value> args) -> llvm::Expected<Value> {
      uint32_t v[8];
      if (llvm::Error error = unsignedArguments(name, args, 0, v)) return error;
      VTAUopPush(v[0], v[1], v[2], v[3], v[4], v[5], v[6], int32_t(v[7]));
      return Value::fromInt(0);
    };
  };
  add(registry, "VTAUopPush", 8, uopPush("VTAUopPush"));
  add(registry, "tir.vta.uop_push", 8, uopPush("tir.vta.uop_push"));
  add(registry, "VTAUopLoopBegin", 4, [](llvm::ArrayRef<Value> args) -> llvm::Expected<Value> {
    uint32_t v[4];
    if (llvm::Error error = unsignedArguments("VTAUopLoopBegin", args, 0, v)) return error;
    VTAUopLoopBegin(v[0], v[1], v[2], v[3]);
    return Value::fromInt(0);
  });
  add(registry, "VTAUopLoopEnd", 0, [](llvm::ArrayRef<Value>) -> llvm::Expected<Value> {
    VTAUopLoopEnd();
    return Value::fromInt(0);
  });
  add(registry, "VTAPushGEMMOp", 4, pushKernel("VTAPushGEMMOp", VTAPushGEMMOp));
  add(registry, "VTAPushALUOp", 4, pushKernel("VTAPushALUOp", VTAPushALUOp));
  add(registry, "VTADepPush", 3, depToken("VTADepPush", VTADepPush, true));
  add(registry, "VTADepPop", 3, depToken("VTADepPop", VTADepPop, true));
  add(registry, "tir.vta.coproc_dep_push", 2, depToken("tir.vta.coproc_dep_push", VTADepPush, false));
  add(registry, "tir.vta.coproc_dep_pop", 2, depToken("tir.vta.coproc_dep_pop", VTADepPop, false));
  add(registry, "VTASynchronize", 2, synchronize(timing, true));
  add(registry, "tir.vta.coproc_sync", 0, synchronize(timing, false));
  auto commandHandle = [](llvm::ArrayRef<Value>) -> llvm::Expected<Value> {
    return Value::fromHandle(VTATLSCommandHandle());
  };
  add(registry, "VTATLSCommandHandle", 0, commandHandle);
  add(registry, "tir.vta.command_handle", 0, commandHandle);
  add(registry, "VTASetDebugMode", 2, [](llvm::ArrayRef<Value> args) -> llvm::Expected<Value> {
    auto cmd = handleArgument("VTASetDebugMode", args, 0);
    if (!cmd) return cmd.takeError();
    auto flags = intArgument("VTASetDebugMode", args, 1);
    if (!flags) return flags.takeError();
    VTASetDebugMode(*cmd, int(*flags));
    return Value::fromInt(0);
  });
  add(registry, "VTABufferCPUPtr", 2, [](llvm::ArrayRef<Value> args) -> llvm::Expected<Value> {
    auto cmd = handleArgument("VTABufferCPUPtr", args, 0);
    if (!cmd) return cmd.takeError();
    auto buffer = handleArgument("VTABufferCPUPtr", args, 1);
    if (!buffer) return buffer.takeError();
    return Value::fromHandle(VTABufferCPUPtr(*cmd, *buffer));
  });
  auto barrier = [](llvm::StringRef name, void (*call)(VTACommandHandle, void *, uint32_t, uint32_t, uint32_t)) {
    return [name = name.str(), call](llvm::ArrayRef<Value> args) -> llvm::Expected<Value> {
      auto cmd = handleArgument(name, args, 0);
      if (!cmd) return cmd.takeError();
      auto buffer = handleArgument(name, args, 1);
      if (!buffer) return buffer.takeError();
      uint32_t v[3];
      if (llvm::Error error = unsignedArguments(name, args, 2, v)) return error;
      call(*cmd, *buffer, v[0], v[1], v[2]);
      return Value::fromInt(0);
    };
  };
  add(registry, "VTAWriteBarrier", 5, barrier("VTAWriteBarrier", VTAWriteBarrier));
  add(registry, "VTAReadBarrier", 5, barrier("VTAReadBarrier", VTAReadBarrier));

  DeviceMemory memory;
  memory.allocate = [](size_t bytes) -> llvm::Expected<void *> {
    int errorsBefore = VTARuntimeErrorCount();
    void *handle = VTABufferAlloc(bytes);
    if (handle && VTARuntimeErrorCount() <= errorsBefore) return handle;
    std::string message = VTARuntimeLastError();
    VTARuntimeClearError();
    return diagnosticError("VTABufferAlloc(" + llvm::Twine(bytes) + ") failed" +
                           (message.empty() ? "" : ": " + message));
  };
  memory.release = [](void *handle) { VTABufferFree(handle); };
  memory.cpuAddress = [](void *handle) {
    return static_cast<uint8_t *>(VTABufferCPUPtr(VTATLSCommandHandle(), handle));
  };
  registry.setDeviceMemory(std::move(memory));
}

}  // namespace vtac::backend
