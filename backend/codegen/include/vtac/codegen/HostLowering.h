// Lowering of a prim_func for the host: what every code emitter (C, LLVM) consumes.
//
// `lowerForHost` takes what the `host-lower` pipeline gives (passes/host/Pipeline.cpp: flat
// loops, the VTA intrinsics already runtime calls on one command handle bound at entry by
// combine-context-call, `coproc_uop_scope` micro-kernels that declare their closures; no blocks;
// the entry bound by bind-entry-parameters: each buffer parameter a `DLTensor *` handle, the body
// starting with the checks of every tensor and the bindings of its sizes and data, whose
// `hostop` names the emitters implement, passes/EntryBinding.h) and produces a HostFunction:
//  - the entry ABI: the parameters as bind-entry-parameters left them (a buffer's in bufferMap);
//  - `commandHandle`: the variable combine-context-call bound `VTATLSCommandHandle()` to, which
//    the emitters use beyond the body (dropping queued commands on failure);
//  - TVM's CreateStaticInit: each `coproc_uop_scope` body becomes a MicroKernel (its body and
//    the closure declare-micro-kernels wrote as the scope's node: the free scalar variables it
//    reads, in order of first use, as the interpreter packs them) and its place in the body a
//    `hostop::kPushMicroKernel(index)` call, which an emitter turns into
//    `VTAPushGEMMOp/VTAPushALUOp(&static_handle, kernel, &closure, size)`;
//  - tir.noalias: the buffer parameters' data variables listed as distinct (distinctData);
//  - each outermost `parallel` loop, with the closure declare-parallel-tasks wrote around it,
//    becomes a ParallelTask (ParallelOutlining.h) run by the
//    thread pool of runtime/parallel (`vtac_parallel_for`), in its place a
//    `hostop::kParallelFor(index, extent)` call.
// Errors (a block left in the program, a function host-lower has not run on: a VTA function
// without its command handle, a micro-kernel without its closure, an entry not bound) are located
// DiagnosticErrors; host-lower's steps report what they refuse
// (declare-micro-kernels: a nested micro-kernel, a handle captured by one).
#pragma once

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/ir/Function.h"
#include "vtac/passes/EntryBinding.h"

namespace vtac::codegen {

// Call ops the host lowering introduces; emitters implement each one.
namespace hostop {
// The DLTensor field ops of the entry checks (passes/EntryBinding.h).
using namespace passes::hostop;
// (index) -> int32: push micro-kernel `index` of the function (see MicroKernel).
inline constexpr const char *kPushMicroKernel = "vtac.push_micro_kernel";
// (index, extent: int64) -> int32: run parallel task `index` of the function (see ParallelTask)
// over [0, extent) on the thread pool; a non-zero status is returned from the caller.
inline constexpr const char *kParallelFor = "vtac.parallel_for";
// (data, type code, bits, lanes, dim0, dim1, ...) -> handle: a DLTensor (host memory, compact)
// over `data`, alive for the rest of the function; only as the value of a LetStmt.
inline constexpr const char *kMakeTensor = "vtac.make_tensor";
// The same over a VTABufferAlloc buffer handle, on device kDLExtDev as TVM passes VTA tensors
// (RelaxHostLowering.h).
inline constexpr const char *kMakeVtaTensor = "vtac.make_vta_tensor";
// ("symbol", tensor, ...) -> int32: calls `int32_t symbol(DLTensor *, ...)` (a compiled prim_func
// or a function the program is linked with) and returns its non-zero status from the caller.
inline constexpr const char *kCallChecked = "vtac.call_checked";
}  // namespace hostop

// The body of one `coproc_uop_scope`: a static function recording micro-ops, called by the
// runtime through `pushFunction` (VTAPushGEMMOp or VTAPushALUOp) with its closure.
struct MicroKernel {
  std::string pushFunction;
  ir::Stmt body;
  std::vector<ir::VarRef> closure;  // free scalar variables of body, in order of first use (declared)
};

// The body of an outermost `parallel` loop (ParallelOutlining.h): a static function
// `int32_t task(int64_t begin, int64_t end, void *closure)` that the thread pool calls with
// consecutive ranges of the loop's iterations, returning 0 or a status.
struct ParallelTask {
  ir::VarRef begin, end;            // int64: the task's range of iterations
  ir::Stmt body;                    // a serial loop over that range
  std::vector<ir::VarRef> closure;  // variables body reads from the function (scalars, handles)
  ir::Range loopRange;              // the parallel loop's whole range (bounds of its variable)
};

// A parameter of the compiled function, as the entry checks bind it.
using HostParam = passes::EntryParam;

struct HostFunction {
  std::string name;    // the function's name in the module
  bool graph = false;  // a Relax graph function (RelaxHostLowering.h), not a prim_func
  std::string symbol;  // the name of the emitted function
  // Internal linkage (C `static`, not in the header): a private function a graph of the same
  // object calls, so that two objects may each have their own `add`.
  bool internal = false;
  std::vector<HostParam> params;
  ir::Stmt body;
  std::vector<MicroKernel> kernels;
  std::vector<ParallelTask> tasks;
  ir::VarRef commandHandle;  // null when the function makes no VTA runtime call
  // tir.noalias (TVM's promise that no two buffer parameters overlap where one is written): the
  // data variables of the buffer parameters, each a distinct buffer that emitters tell the
  // optimiser of (LLVM alias scopes, C `restrict`). Empty without the promise, and for a VTA
  // function, whose data are runtime handles that the device reads behind the code's back.
  std::vector<ir::VarRef> distinctData;
  ir::SourceLoc loc;

  bool isDistinctData(const ir::Var &var) const {
    return std::any_of(distinctData.begin(), distinctData.end(), [&](const ir::VarRef &data) { return data.get() == &var; });
  }
};

// The symbols a graph function calls (vtac.call_checked), sorted.
std::set<std::string> calledSymbols(const HostFunction &graph);

// The name an error gives a failed call of runtime function `callee`: the VTA intrinsic the
// program wrote, which lower-vta-intrinsics turned into that call (`tir.vta.coproc_sync` for
// VTASynchronize), as the interpreter, which runs the intrinsic itself, names it (a call the
// program wrote as VTASynchronize is named so too: host-lower's output no longer tells them apart).
std::string writtenName(const std::string &callee);

llvm::Expected<HostFunction> lowerForHost(const ir::PrimFunc &func, const std::string &name,
                                          const std::string &symbol);

}  // namespace vtac::codegen
