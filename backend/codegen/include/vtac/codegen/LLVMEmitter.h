// The LLVM emitter (`vtac compile --emit=llvm|bc|asm|obj`): host-lowered functions -> one LLVM
// module (LLVM 19, opaque pointers), optimised with the new pass manager at -O0..-O3 and
// printed as IR, written as bitcode, or compiled for `targetTriple` (the host when empty; X86
// and ARM are built in, e.g. armv7a-linux-gnueabihf for the PYNQ board) to assembly or an ELF
// object.
//
// The functions have the ABI, checks, statuses and micro-kernel lowering of the C emitter
// (CEmitter.h): `i32 SYMBOL(ptr, ...)` over DLTensor, internal micro-kernel functions, an
// internal static handle each, closures as stack structs passed to VTAPushGEMMOp/VTAPushALUOp,
// VTARuntimeReportError/VTARuntimeErrorCount as extern_weak; parallel tasks as internal
// `i32 (i64 begin, i64 end, ptr closure)` functions run by `vtac_parallel_for`. Vector
// expressions (T.Ramp, T.Broadcast) are LLVM vectors: consecutive lanes load and store as one
// vector, other vector accesses are masked gathers and scatters. The DLTensor layout is DLPack's
// (data, device, ndim, dtype, shape, strides, byte_offset) for the target's pointer size.
// Output is deterministic: the same functions and options give the same bytes.
// buildLLVMModule stops before printing (the JIT takes the module from there).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

#include "vtac/codegen/HostLowering.h"
#include "vtac/codegen/RuntimeChecks.h"

namespace vtac::codegen {

// What `vtac compile --emit` writes: the C and header emitters' text, or what LLVM makes.
enum class EmitKind { C, Header, LLVMIR, Bitcode, Assembly, Object };

struct LLVMEmitOptions {
  EmitKind kind = EmitKind::Object;  // LLVMIR, Bitcode, Assembly or Object
  std::string targetTriple;          // empty: the host's
  int optLevel = 2;
  std::string cpu = "generic";  // "generic" keeps objects independent of the compiling machine
  std::string features;
  // When set, also define `i32 packedEntry(ptr args)` calling the first function with args[i]
  // as its i-th argument (a DLTensor pointer, or a pointer to a scalar): what the JIT calls.
  std::string packedEntry;
  // Compile the run-time checks of RuntimeChecks.h in (the JIT does; objects have none).
  bool runtimeChecks = false;
  // With runtimeChecks, also count loop iterations against the run's limits (RuntimeChecks.h):
  // what the JIT compiles when --max-steps, --timeout or a progress line asks for it.
  bool countSteps = false;
  // Allocate buffers of VTA's on-chip scopes in host memory, as the interpreter runs a program
  // not lowered for VTA (the JIT does; `vtac compile` asks for vta-lower instead).
  bool onChipScopesInHostMemory = false;
  // Declare each micro-kernel push's handle slot as an external global for the caller to
  // define (named in LLVMModule::kernelHandles) instead of an internal static: the JIT binds
  // them to process-lifetime slots (backend/KernelCacheSlot.h), which its code is not.
  bool kernelHandlesFromCaller = false;
};

// An optimised module and the target machine it was built for.
struct LLVMModule {
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
  std::vector<CheckSite> checkSites;  // with runtimeChecks: what each vtac_check_failed site is
  std::vector<std::string> kernelHandles;  // with kernelHandlesFromCaller: the slots to define
};

// Whether `cpu` is a CPU of `triple` (empty: the host's) and `features` a comma-separated list of
// +FEATURE / -FEATURE of its target (what `vtac compile --mcpu/--mattr` accept).
llvm::Error checkCpuAndFeatures(const std::string &triple, const std::string &cpu, const std::string &features);

llvm::Expected<LLVMModule> buildLLVMModule(const std::vector<HostFunction> &functions, const std::string &sourceName,
                                           const LLVMEmitOptions &options, llvm::LLVMContext &context);

llvm::Expected<std::string> emitLLVM(const std::vector<HostFunction> &functions, const std::string &sourceName,
                                     const LLVMEmitOptions &options);

}  // namespace vtac::codegen
