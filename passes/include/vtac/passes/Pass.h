// A pass: a named transformation of one PrimFunc, as TVM's tir.transform passes and LLVM's
// function passes are.
//
// A pass takes the function and a PassContext and returns the transformed function — the very
// same object when it changed nothing (mutators share untouched trees, so identity is how the
// pass manager tells --print-changed what changed) — or an error. Errors are located values
// (ir::diagnosticError(loc, message)) at the statement the pass could not handle; the pass
// manager prefixes them with `[pass-name]`. Passes never print and never exit.
//
// A named pipeline (`tir-lower`, `vta-lower`) is a pass too: instead of a transform it has a
// `build` function that appends its steps, so the pass manager can instrument every step
// (--print-after-all, --verify-each, --time-passes) as if the user had listed them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <llvm/ADT/StringMap.h>
#include <llvm/Support/Error.h>

#include "vta/config.h"
#include "vtac/ir/Function.h"

namespace vtac::passes {

// A tagged on-chip memory scope's geometry (TVM's MemoryInfo, "tvm.info.mem.<scope>"):
// storage-rewrite aligns the allocations it merges into one scope to maxSimdBits and fails
// when their total exceeds maxNumBits.
struct MemoryInfo {
  uint64_t maxSimdBits = 0;
  uint64_t maxNumBits = 0;
};

// What a pass may read besides the function: options given on the command line (e.g. `cse`
// for vta-lower), the VTA target the VTA passes lower for (tile shapes, SRAM sizes: `vtac opt
// --vta-config`, TVM's default configuration otherwise), the on-chip memories of the target by
// scope name ("local.acc_buffer"; the driver fills VTA's three SRAMs from `vta`) and a sink for
// remarks (missed optimisations, -Rpass-missed style).
struct PassContext {
  llvm::StringMap<std::string> options;
  vta::Config vta = vta::Config::tvmDefault();
  llvm::StringMap<MemoryInfo> memoryInfo;
  // Remarks are warnings that do not stop the pipeline; the driver prints them.
  std::function<void(ir::SourceLoc, const std::string &)> remark;

  bool hasOption(llvm::StringRef name) const { return options.count(name) != 0; }
  void emitRemark(ir::SourceLoc loc, const std::string &message) const {
    if (remark) remark(loc, message);
  }
};

using FunctionTransform =
    std::function<llvm::Expected<ir::PrimFuncRef>(const ir::PrimFuncRef &, PassContext &)>;
// A pass over the whole module (legalize-ops adds prim_funcs and rewrites Relax functions):
// it changes the module in place, or returns an error and leaves it unusable.
using ModuleTransform = std::function<llvm::Error(ir::IRModule &, PassContext &)>;

class PipelineBuilder;

// What a pass accepts. A lowered-TIR pass (every VTA pass, as TVM runs them after its phase-1
// lowering) is not given TensorIR: the pass manager stops at the function's first block with a
// located error naming the pass, where the pass would write a program the verifier rejects.
enum class PassInput { Any, LoweredTir };

struct PassInfo {
  std::string name;     // what --passes, --print-after and --list-passes use
  std::string summary;  // one line for --list-passes
  FunctionTransform transform;                 // a pass...
  std::function<void(PipelineBuilder &)> build;  // ...or a named pipeline of passes
  PassInput input = PassInput::Any;
  // The PassContext options it reads (`--pass-option NAME=VALUE`): any other name is an error.
  std::vector<std::string> options = {};
  ModuleTransform moduleTransform = nullptr;  // ...or a module pass (no `transform`)
  bool isPipeline() const { return static_cast<bool>(build); }
  bool isModulePass() const { return static_cast<bool>(moduleTransform); }
};

}  // namespace vtac::passes
