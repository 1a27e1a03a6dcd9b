// The parameters of a prim_func as `vtac run` passes them, whichever engine runs it: names,
// element types, shapes with their symbolic sizes. From tensors given for some parameters and
// sizes given by name (`--size n=8`) it binds the symbolic sizes, checking each tensor's dtype
// and shape against its parameter, and allocates zero-filled tensors for the others.
//
// It knows nothing of the function's body, so it serves the interpreter (CompiledFunction
// derives from it) and the JIT alike, for any body the engine can run (vector code included).
// A handle parameter without a buffer (T.match_buffer) to give it a shape is an error at the
// parameter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Support/Error.h>

#include "vtac/backend/Tensor.h"
#include "vtac/ir/Function.h"

namespace vtac::backend {

struct ParamInfo {
  std::string name;       // the parameter's name in the source
  ir::DataType dtype;     // element type (buffers) or value type (scalars)
  bool isBuffer = false;  // false: a scalar parameter, passed as a 0-d tensor
  ir::BufferRef buffer;   // the bound buffer, for buffer parameters
};

// Values of the symbolic size variables of a function's parameters.
using SizeBindings = llvm::DenseMap<const ir::Var *, int64_t>;

class FunctionSignature {
public:
  static llvm::Expected<FunctionSignature> of(ir::PrimFuncRef function, llvm::StringRef name);

  llvm::StringRef name() const { return name_; }
  const ir::PrimFuncRef &function() const { return function_; }
  const std::vector<ParamInfo> &params() const { return params_; }
  // The parameter called `name`, or -1.
  int paramIndex(llvm::StringRef name) const;

  // Binds symbolic sizes from the tensors given so far (null entries: not given) and from
  // `namedSizes` (variable name -> value), checking every given tensor's dtype and shape.
  llvm::Expected<SizeBindings> bindSizes(llvm::ArrayRef<const Tensor *> arguments,
                                         const llvm::StringMap<int64_t> &namedSizes = {}) const;
  // The concrete shape of parameter `index` under `sizes`, or an error naming the unknown size.
  llvm::Expected<std::vector<int64_t>> shapeOf(size_t index, const SizeBindings &sizes) const;
  // A zero-filled tensor for parameter `index` under `sizes`; an error at the parameter's buffer
  // when a size is unknown or the tensor would exceed kMaxTensorBytes.
  llvm::Expected<Tensor> allocateArgument(size_t index, const SizeBindings &sizes) const;

protected:
  FunctionSignature() = default;

  ir::PrimFuncRef function_;  // keeps the IR (strings, locations) alive
  std::string name_;
  std::vector<ParamInfo> params_;
  // The layout variables (shapes, strides, offsets) of buffer parameters that no scalar
  // parameter binds, in order of first appearance.
  std::vector<const ir::Var *> sizeVars_;
};

}  // namespace vtac::backend
