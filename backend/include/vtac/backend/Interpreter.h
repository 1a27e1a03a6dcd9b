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
#include "vtac/backend/RunLimits.h"
#include "vtac/backend/Tensor.h"
#include "vtac/ir/Function.h"

namespace vtac::backend {

namespace interp {
struct StmtExec;
}

struct ParamInfo {
  std::string name;       // the parameter's name in the source
  ir::DataType dtype;     // element type (buffers) or value type (scalars)
  bool isBuffer = false;  // false: a scalar parameter, passed as a 0-d tensor
  ir::BufferRef buffer;   // the bound buffer, for buffer parameters
};

// Values of the symbolic size variables of a function's parameters.
using SizeBindings = llvm::DenseMap<const ir::Var *, int64_t>;

class CompiledFunction {
public:
  ~CompiledFunction();

  // `registry` must outlive the compiled function (calls point into it).
  static llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(ir::PrimFuncRef function, llvm::StringRef name, const ExternRegistry &registry);

  llvm::StringRef name() const { return name_; }
  const std::vector<ParamInfo> &params() const { return params_; }
  // The parameter called `name`, or -1.
  int paramIndex(llvm::StringRef name) const;
  // True when the function calls device externs (its buffers then live in device memory).
  bool usesDeviceMemory() const { return usesDeviceMemory_; }

  // Binds symbolic sizes from the tensors given so far (null entries: not given) and from
  // `namedSizes` (variable name -> value), checking every given tensor's dtype and shape.
  llvm::Expected<SizeBindings> bindSizes(llvm::ArrayRef<const Tensor *> arguments,
                                         const llvm::StringMap<int64_t> &namedSizes = {}) const;
  // The concrete shape of parameter `index` under `sizes`, or an error naming the unknown size.
  llvm::Expected<std::vector<int64_t>> shapeOf(size_t index, const SizeBindings &sizes) const;
  // A zero-filled tensor for parameter `index` under `sizes`; an error at the parameter's buffer
  // when a size is unknown or the tensor would exceed kMaxTensorBytes.
  llvm::Expected<Tensor> allocateArgument(size_t index, const SizeBindings &sizes) const;

  // Runs the function on `arguments` (one per parameter, in order); buffers are written back
  // (not when the run fails, e.g. on exceeding `limits`).
  llvm::Error run(llvm::MutableArrayRef<Tensor> arguments, const RunLimits &limits = {});

  // Stores, evaluates and lets executed by the last run (the interpreter's unit of work).
  uint64_t statementsExecuted() const { return statementsExecuted_; }

private:
  CompiledFunction() = default;

  struct SizeSlot {
    const ir::Var *var;
    int slot;
  };

  ir::PrimFuncRef function_;  // keeps the IR (strings, locations) alive
  std::string name_;
  std::vector<ParamInfo> params_;
  std::vector<int> paramSlots_;  // slot of each parameter (storage or scalar)
  std::vector<SizeSlot> sizeSlots_;
  std::unique_ptr<interp::StmtExec> body_;
  int numSlots_ = 0;
  bool usesDeviceMemory_ = false;
  const ExternRegistry *registry_ = nullptr;
  uint64_t statementsExecuted_ = 0;
};

}  // namespace vtac::backend
