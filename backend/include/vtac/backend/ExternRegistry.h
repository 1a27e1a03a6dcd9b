// The functions a program may call by name: `T.call_extern("int32", "VTALoadBuffer2D", ...)`
// looks up "VTALoadBuffer2D", an intrinsic call such as `T.tir.vta.uop_push(...)` looks up its
// op name "tir.vta.uop_push". Each entry is a C++ callable over interpreter values.
//
// The interpreter resolves every call when it compiles a function, so a program that calls a
// function nobody registered is rejected before it runs, with the call's source location.
// Backends and users add functions with `add`; `registerVtaExterns` (VtaExterns.h) adds TVM's
// VTA runtime API. A registry may also supply device memory: functions compiled against it
// that call an extern marked `usesDeviceMemory` get their buffers from that allocator (VTA
// DMA calls need buffers that live in VTA DRAM).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

#include "vtac/ir/DataType.h"

namespace vtac::backend {

// A micro-kernel body that a runtime may run to record micro-ops: the interpreter's form of
// TVM's `int finit(void* signature)` closures (the body of a `coproc_uop_scope`).
class KernelClosure {
public:
  virtual ~KernelClosure() = default;
  // Runs the body with its free variables unpacked from `signature`; 0 on success.
  virtual int run(const void *signature) const = 0;
};

// One argument or result of an extern call.
struct Value {
  enum class Kind : uint8_t { None, Int, Float, Handle, String, Closure };
  Kind kind = Kind::None;
  union {
    int64_t i;
    double f;
    void *p;
    const KernelClosure *closure;
  };
  llvm::StringRef s;  // Kind::String (points into the IR)

  Value() : i(0) {}
  static Value none() { return Value(); }
  static Value fromInt(int64_t v) { Value x; x.kind = Kind::Int; x.i = v; return x; }
  static Value fromFloat(double v) { Value x; x.kind = Kind::Float; x.f = v; return x; }
  static Value fromHandle(void *v) { Value x; x.kind = Kind::Handle; x.p = v; return x; }
  static Value fromString(llvm::StringRef v) { Value x; x.kind = Kind::String; x.s = v; return x; }
  static Value fromClosure(const KernelClosure *v) { Value x; x.kind = Kind::Closure; x.closure = v; return x; }
};

using ExternFunction =
    std::function<llvm::Expected<Value>(llvm::ArrayRef<Value> args, ir::DataType returnType)>;

struct ExternEntry {
  ExternFunction function;
  // Number of arguments the function takes; -1 for any number.
  int arity = -1;
  // Buffers of programs that call this function must live in device memory.
  bool usesDeviceMemory = false;
};

// Where device-resident buffers come from (VTA DRAM through VTABufferAlloc).
struct DeviceMemory {
  // Returns the buffer handle that externs receive for this buffer, or an error.
  std::function<llvm::Expected<void *>(size_t bytes)> allocate;
  std::function<void(void *handle)> release;
  // The CPU address of a buffer handle (the interpreter reads and writes through it).
  std::function<uint8_t *(void *handle)> cpuAddress;
};

class ExternRegistry {
public:
  // Adds or replaces `name`.
  void add(llvm::StringRef name, ExternEntry entry);
  // nullptr when `name` is not registered.
  const ExternEntry *find(llvm::StringRef name) const;

  void setDeviceMemory(DeviceMemory memory) { deviceMemory_ = std::move(memory); }
  const DeviceMemory *deviceMemory() const {
    return deviceMemory_.allocate ? &deviceMemory_ : nullptr;
  }

private:
  llvm::StringMap<ExternEntry> entries_;
  DeviceMemory deviceMemory_;
};

// Argument helpers for extern implementations: the value as an integer / handle, or an error
// naming the function and argument position.
llvm::Expected<int64_t> intArgument(llvm::StringRef function, llvm::ArrayRef<Value> args,
                                    size_t index);
llvm::Expected<void *> handleArgument(llvm::StringRef function, llvm::ArrayRef<Value> args,
                                      size_t index);

}  // namespace vtac::backend
