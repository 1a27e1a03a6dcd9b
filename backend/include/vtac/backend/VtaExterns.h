// TVM's VTA runtime C API as interpreter externs, so lowered VTA programs run on the simulator.
//
// Registers, by name, the runtime functions lowered VTA code calls through T.call_extern
// (VTALoadBuffer2D, VTAStoreBuffer2D, VTAUopLoopBegin/End, VTAPushGEMMOp/ALUOp, VTADepPush/Pop,
// VTASynchronize, VTATLSCommandHandle, ...) and the T.tir.vta.* intrinsics with the meaning
// TVM's code generator gives them:
//   coproc_dep_push(from, to) -> VTADepPush(VTATLSCommandHandle(), from, to), likewise pop;
//   uop_push(...)             -> VTAUopPush(...);
//   command_handle()          -> VTATLSCommandHandle();
//   coproc_sync()             -> VTASynchronize(VTATLSCommandHandle(), 1 << 31).
// VTAPushGEMMOp/VTAPushALUOp receive the interpreter's micro-kernel closure (see Interpreter.h,
// `coproc_uop_scope`) and hand the runtime a C trampoline that runs it. Buffers of programs
// calling these functions are allocated with VTABufferAlloc, so `B.data` is a VTA DRAM buffer.
// Every runtime error (VTARuntimeLastError, with the simulator's VTASimLastError detail, e.g. a
// dependency-queue deadlock) becomes the failing call's error.
#pragma once

#include <cstdint>

#include "vtac/backend/ExternRegistry.h"
#include "vtac/ir/SourceLoc.h"

namespace vtac::backend {

// TVM's simulator counters (vta/sim.h), in the order TVM's simulator prints them.
inline constexpr const char *kTvmCounters[] = {"inp_load_nbytes",  "wgt_load_nbytes", "acc_load_nbytes",
                                               "uop_load_nbytes",  "out_store_nbytes", "gemm_counter",
                                               "alu_counter"};

// The simulator's timing model (docs/timing-model.md), in the order it reports them.
inline constexpr const char *kTimingCounters[] = {"cycles",
                                                  "fetch_busy_cycles",   "fetch_stalled_cycles",
                                                  "load_busy_cycles",    "load_stalled_cycles",
                                                  "compute_busy_cycles", "compute_stalled_cycles",
                                                  "store_busy_cycles",   "store_stalled_cycles"};

// Time spent inside VTASynchronize (where the simulator executes the queued program): wall
// time, and CPU time of the calling thread (the simulator runs on it).
struct VtaTiming {
  double synchronizeSeconds = 0;
  double synchronizeCpuSeconds = 0;
  uint64_t synchronizeCalls = 0;
};

// CPU time consumed by the calling thread so far, in seconds.
double threadCpuSeconds();
// CPU time consumed by all threads of the process so far, in seconds.
double processCpuSeconds();

// Adds the VTA externs and VTA device memory to `registry`; `timing` (optional, must outlive
// the registry's use) accumulates simulation time.
void registerVtaExterns(ExternRegistry &registry, VtaTiming *timing = nullptr);

// Ends a run on the VTA runtime (VTARuntimeShutdown). Commands the program queued after its
// last synchronisation never ran: that is an error at `loc` (the function that ran), as is any
// other runtime error the shutdown reports.
llvm::Error finishVtaRun(ir::SourceLoc loc);

}  // namespace vtac::backend
