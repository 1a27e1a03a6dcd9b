// The graph executor: runs a Relax function (`vtac run --entry main`) the way seed 004's
// lnumpy_call_dps_packed describes it — for each binding, allocate the output tensor from
// the call's out_sinfo, then call the callee with the inputs followed by that output
// (destination passing).
//
// Callees are resolved when the executor is created: a name that is a prim_func of the module
// runs on the reference interpreter (prim_funcs calling VTA externs reach the simulator
// through the interpreter's extern registry) or on the engine the caller passes (the JIT),
// each distinct prim_func compiled once, then; any other name must be registered in the C
// function registry (built-ins env.linear / env.relu, or a library loaded with
// --load-library). An unknown name is an error at the call.
//
// Shapes: the symbolic sizes of the parameters are bound from the inputs (a conflict is an
// error at the parameter's annotation), every out_sinfo is evaluated under those bindings.
// if/else: the condition's bool scalar picks the branch when the graph runs; only the taken
// branch's calls run. A call of a local function runs its body inlined (the arguments' shapes
// checked against its parameters' annotations when the graph runs). Memory: each intermediate tensor is freed right after its last use; the statistics report
// the peak of live tensor bytes the executor allocated against the sum of all of them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

#include "vtac/backend/ExternRegistry.h"
#include "vtac/backend/PrimFuncEngine.h"
#include "vtac/backend/Tensor.h"
#include "vtac/graph/Npz.h"
#include "vtac/ir/Relax.h"

namespace vtac::graph {

struct GraphStats {
  uint64_t primFuncCalls = 0;
  uint64_t registeredCalls = 0;
  // Bytes of the tensors the executor allocated (call outputs): the most alive at once, and
  // the total over the run (what keeping every intermediate would cost).
  int64_t peakTensorBytes = 0;
  int64_t totalTensorBytes = 0;
};

// One call of the graph, as the executor reports it after the call returns.
struct GraphCall {
  size_t index = 0;        // the calls in the order they ran: 0, 1, ...
  llvm::StringRef callee;  // the prim_func's or registered function's name
  ir::SourceLoc loc;       // the callee's name in the call
};

struct GraphParam {
  std::string name;
  ir::relax::TensorStructInfo sinfo;
};

class GraphExecutor {
public:
  ~GraphExecutor();
  GraphExecutor(GraphExecutor &&) noexcept;

  // `module` and `externs` must outlive the executor. Errors: `entry` is not a Relax
  // function, a callee that is neither a prim_func of the module nor registered.
  // `compiler` compiles the prim_funcs the graph calls, each distinct one once, on up to
  // `compileThreads` threads (the compiler must then be safe to call concurrently; errors
  // come in call order all the same); empty: the interpreter on `externs`.
  static llvm::Expected<GraphExecutor> create(const ir::IRModule &module, llvm::StringRef entry,
                                              const backend::ExternRegistry &externs,
                                              const backend::PrimFuncCompiler &compiler = {},
                                              unsigned compileThreads = 1);

  // A check run after each call returns successfully (prim_func or registered function); its
  // error fails the run there. `vtac run` ends the call's VTA run with it
  // (backend::finishVtaRun), so that commands a prim_func queued and never synchronised, which
  // the next call's synchronisation would otherwise execute on freed buffers, are an error at
  // the call that queued them, and reads the simulator's counters of the call.
  void setAfterCall(std::function<llvm::Error(const GraphCall &call)> check);

  const std::vector<GraphParam> &params() const;
  // Names of the results: the returned variables ("out"), in order.
  std::vector<std::string> resultNames() const;

  // Runs the function on one tensor per parameter (by name). Returns the results, named as
  // resultNames() says.
  llvm::Expected<NamedTensors> run(const NamedTensors &inputs);

  const GraphStats &stats() const;
  // How many distinct prim_funcs were compiled.
  size_t compiledFunctions() const;

private:
  struct Impl;
  explicit GraphExecutor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vtac::graph
