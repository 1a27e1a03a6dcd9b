// Lowering of a Relax graph function (`@R.function main`) for the host: the whole model as one
// compiled function, next to the prim_funcs it calls.
//
// The graph becomes `int32_t SYMBOL(DLTensor *param..., DLTensor *result...)`: the parameters,
// then one destination tensor per returned value (the caller allocates the results, as TVM's
// destination-passing style). Symbolic sizes are bound from the parameters' shapes and every
// tensor is checked at entry like a prim_func's (passes/EntryBinding.h). Each binding
//   lv = R.call_tir(cls.f, (args,), ...)  /  R.call_dps_packed("name", (args,), R.Tensor(...))
// allocates its output (freed when the function returns; a returned variable, or the tensor a
// returned alias names, is written into its destination instead) and calls, in destination-passing style, the compiled prim_func's
// symbol (`symbols`: module name -> symbol) or, for a name the module does not define, the C
// function of that name with '.' as '_' (env.linear -> env_linear), resolved when the program
// is linked: `int32_t env_linear(DLTensor *x, DLTensor *w, DLTensor *b, DLTensor *out)`. A
// non-zero status is returned at once. `gv = lv` aliases a tensor. A returned parameter (or
// alias of one), and a tensor returned a second time, is copied into its destination at the end
// (that result's parameter named `x_result` where `x` is taken). `y = if c: ... else: ...`
// (c a bool scalar tensor, or an expression of sizes such as `n == 4`, R.Prim("bool")) reads
// c's byte (evaluates c) and runs one branch, as TVM's VM does; y's storage is
// allocated before the if (or is the caller's result), the call computing a branch's value
// writes it directly, and a value from outside the branch (a parameter, an earlier tensor) is
// copied into it (VTABufferCopy between host addresses). A call of several outputs
// (`out_sinfo=[...]`) passes one tensor per output (`lv_0`, `lv_1`, each placed as a call's
// output is); a tuple (`t = (a, b)`, an alias of one) is its fields' tensors, `t[i]` an alias of
// field i, and a returned tuple one destination per field.
//
// Memory: the caller passes host tensors (data in host memory, any byte_offset), parameters and
// results alike. A tensor that a VTA prim_func (one whose lowered parameters are VTA buffers,
// `primFuncs`) reads or writes lives in a VTABufferAlloc buffer (scope kVtaBufferScope), passed
// to VTA code as a kDLExtDev DLTensor: a parameter is copied into one at entry, a returned
// tensor copied out of one after the last call (VTABufferCopy); CPU code (other prim_funcs,
// linked C functions) reaches such a buffer through VTABufferCPUPtr, which needs VTA memory
// the CPU sees coherently (TVM's default, and the simulator). Every other tensor is host memory.
// In a graph that runs VTA code, a parameter or a result may also be a VTA buffer (kDLExtDev,
// data a live VTABufferAlloc handle, byte_offset 0: HostParam::hostOrVta, checked at entry),
// which VTA code uses in place (no copy in or out) and CPU code through VTABufferCPUPtr.
// Unsupported (located errors): constants (bound parameters, a constant condition), tensors
// without a shape or dtype (an If variable whose branches' shapes differ), a condition on a
// size no parameter's shape gives, a returned constant, an If variable that is a tuple.
#pragma once

#include <map>
#include <string>

#include <llvm/Support/Error.h>

#include "vtac/codegen/HostLowering.h"
#include "vtac/ir/Relax.h"

namespace vtac::codegen {

llvm::Expected<HostFunction> lowerRelaxForHost(const ir::RelaxFunction &func, const std::string &name,
                                               const std::string &symbol, const std::map<std::string, std::string> &symbols,
                                               const std::vector<HostFunction> &primFuncs);

}  // namespace vtac::codegen
