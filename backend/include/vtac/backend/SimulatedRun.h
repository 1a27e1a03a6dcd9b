// One run of a prim_func on seeded random arguments, as `vtac run --random-inputs --seed S
// --stats-json` makes it, for tools that run many programs in one process (`vtac tune`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/backend/Tensor.h"
#include "vtac/ir/Function.h"

namespace vtac::backend {

struct SimulatedRun {
  std::vector<Tensor> arguments;  // every parameter after the run
  std::string statsJson;          // the VTA simulator's statistics of the run (vta/sim.h)
};

// Makes --vta-config's value (a path or JSON text, else VTA_CONFIG, else TVM's default) the
// configuration of the VTA runtime and simulator; `origin` names it in the error.
llvm::Error selectVtaConfig(const std::string &pathOrJSON, const std::string &origin);

// The arguments `vtac run --random-inputs --seed S` gives `function` (RandomFill.h's generator).
llvm::Expected<std::vector<Tensor>> randomArguments(ir::PrimFuncRef function, const std::string &name, uint64_t seed);

// Runs `function` on `arguments` (a copy, so that many runs can start from one set): compiled by
// the JIT (vtac run's default engine) or, with `interpret`, in the interpreter (the reference
// semantics, for the unscheduled program). Every error is located at the function.
llvm::Expected<SimulatedRun> runSimulated(ir::PrimFuncRef function, const std::string &name,
                                          std::vector<Tensor> arguments, bool interpret);

}  // namespace vtac::backend
