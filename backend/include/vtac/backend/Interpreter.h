// The reference interpreter: executes a PrimFunc — TensorIR (blocks, init, T.where,
// alloc_buffer, symbolic shapes) or lowered TIR (allocate, decl_buffer, let, attr, flat
// accesses, extern calls) — on host tensors.
//
// Semantics: integers wrap to their width (two's complement) after every operation and on
// narrowing casts; Div/Mod truncate, FloorDiv/FloorMod (TVMScript's // and %) floor;
// shift_right of a signed value is arithmetic; floats are IEEE at their own width (float32
// results are rounded to float32 after each operation). T.if_then_else evaluates only the
// chosen branch, `and`/`or` short-circuit. Every buffer access is checked against its
// allocation, and indices of multi-dimensional buffers against their extents (a flat buffer of
// lowered TIR is a view of raw memory: TVM indexes merged buffers past their declared extent);
// an out-of-bounds access, a division by zero, a
// float-to-int cast out of range, a failing extern or a variable nobody binds stops the run
// with an error at the source location of the offending expression. Allocations start
// zero-filled. Loops of every kind (parallel, vectorized, thread bindings) run sequentially.
//
// Execution: `compile` turns the function into a tree of typed nodes once (variables resolved
// to slots, calls to registry entries); `run` binds the arguments — one tensor per parameter,
// symbolic sizes taken from the tensors' shapes — executes, and writes every buffer back into
// its tensor.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Support/Error.h>

#include "vtac/backend/ExternRegistry.h"
#include "vtac/backend/FunctionSignature.h"
#include "vtac/backend/RunLimits.h"
#include "vtac/backend/Tensor.h"
#include "vtac/ir/Function.h"

namespace vtac::backend {

namespace interp {
struct StmtExec;
}

// The signature part (parameters, size binding, argument allocation) is FunctionSignature.
class CompiledFunction : public FunctionSignature {
public:
  ~CompiledFunction();

  // `registry` must outlive the compiled function (calls point into it).
  static llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(ir::PrimFuncRef function, llvm::StringRef name, const ExternRegistry &registry);

  // True when the function calls device externs (its buffers then live in device memory).
  bool usesDeviceMemory() const { return usesDeviceMemory_; }

  // Runs the function on `arguments` (one per parameter, in order); buffers are written back
  // (not when the run fails, e.g. on exceeding `limits`).
  llvm::Error run(llvm::MutableArrayRef<Tensor> arguments, const RunLimits &limits = {});

  // Stores, evaluates and lets executed by the last run (the interpreter's unit of work).
  uint64_t statementsExecuted() const { return statementsExecuted_; }

private:
  explicit CompiledFunction(FunctionSignature signature);

  struct SizeSlot {
    const ir::Var *var;
    int slot;
  };

  std::vector<int> paramSlots_;  // slot of each parameter (storage or scalar)
  std::vector<SizeSlot> sizeSlots_;
  ir::Stmt closedBody_;  // the function's body after closeUopKernels, which body_ was compiled from
  std::unique_ptr<interp::StmtExec> body_;
  int numSlots_ = 0;
  bool usesDeviceMemory_ = false;
  const ExternRegistry *registry_ = nullptr;
  uint64_t statementsExecuted_ = 0;
};

}  // namespace vtac::backend
