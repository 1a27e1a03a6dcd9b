// `vtac run FILE --entry main` when the entry is a Relax function: runs the graph with the
// graph executor and reports like `vtac run` does for a prim_func.
//
//   --input NAME=PATH.npy     data of parameter NAME (others: zero-filled, or seeded random data
//                             with --random-inputs; their shapes must follow from the given ones
//                             or from --size NAME=VALUE for the symbolic sizes)
//   --params FILE.npz         binds parameters by name (relax.transform.BindParams) first; then
//                             every remaining parameter needs an --input
//   --load-library PATH.so    loads a library that registers runtime functions (repeatable)
//   --output NAME=PATH.npy    writes result NAME (a returned variable's name);
//   --output PATH.npy           or the only result
//   --expect [NAME=]PATH.npy  compares result NAME (or the only one) with the file's data (exit
//                             status 1 when they differ; tolerances --rtol, --atol)
//   --stats / --stats-json    graph statistics (calls, peak and total tensor bytes) and the VTA
//                             simulator's counters: per call (index, callee, what the call added:
//                             bytes loaded and stored, GEMM/ALU operations, instructions) and in
//                             total; the JSON has "calls": [{"index", "callee", "vta": {...}}] and
//                             "vta": {...}, the total
//   --timing                  compile and run times (wall and process CPU seconds) on `errors`
// Errors are diagnostics (file:line:col where a source location exists) and exit status 1;
// no output file is written then.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <llvm/Support/Error.h>

#include "vtac/backend/PrimFuncEngine.h"
#include "vtac/backend/RunArguments.h"
#include "vtac/backend/TensorCompare.h"
#include "vtac/graph/Npz.h"
#include "vtac/ir/Function.h"

namespace vtac::driver {

struct GraphRunOptions {
  std::string file;   // for messages
  std::string entry;  // empty: "main"
  backend::ArgumentSources arguments;  // --input, --size (symbolic sizes), --random-inputs, --seed
  std::vector<std::pair<std::string, std::string>> outputs;  // result name ("" = the only one), path
  std::vector<std::pair<std::string, std::string>> expectations;  // --expect: as outputs
  backend::FloatTolerance tolerance;  // of the --expect comparisons
  std::string paramsFile;  // the --params file the module's parameters were bound from (messages)
  std::vector<std::string> libraries;
  bool stats = false;
  std::string statsJsonPath;
  bool timing = false;
  // Compiles the prim_funcs the graph calls (`--engine`), each distinct one once, on up to
  // `compileThreads` threads; empty: the interpreter.
  backend::PrimFuncCompiler compiler;
  unsigned compileThreads = 1;
};

// True when `entry` ("" = main) names a Relax function of `module`: `vtac run` then runs the
// graph instead of a prim_func.
bool isGraphEntry(const ir::IRModule &module, const std::string &entry);

// Runs Relax function `entry` of `module` on the interpreter as the command would, on what
// `arguments` gives (--input files, --size, seeded random data for the rest); the results,
// named as the function returns them. `vtac opt --check-equivalence` compares graphs with it.
llvm::Expected<graph::NamedTensors> runGraph(const ir::IRModule &module, const std::string &entry,
                                             const backend::ArgumentSources &arguments);

// Runs the command on a parsed module; returns the exit status.
int runGraphCommand(const ir::IRModule &module, const GraphRunOptions &options, std::ostream &out,
                    std::ostream &errors);

}  // namespace vtac::driver
