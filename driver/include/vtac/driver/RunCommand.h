// `vtac run`: execute a prim_func, compiled by LLVM's ORC JIT or in the interpreter — on the VTA
// simulator when it calls the VTA runtime — with data from .npy files or the seeded generator,
// then write outputs, print simulator statistics and compare against a reference program.
//
//   vtac run FILE [--entry NAME] [--input NAME=PATH.npy]... [--random-inputs] [--seed N]
//            [--size VAR=VALUE]... [--output NAME=PATH.npy]... [--stats] [--stats-json PATH]
//            [--reference FILE2 [--reference-entry NAME]] [--expect NAME=PATH.npy]...
//            [--vta-config PATH] [--timing]
//            [--engine=jit|interp]
//
// Parameters are named by the prim_func's parameter names. A parameter with no --input is
// zero-filled, or filled by the generator of RandomFill.h with --random-inputs (seed --seed,
// default 0). Symbolic sizes come from the inputs' shapes or from --size. --output writes a
// parameter's contents after the call. --reference runs FILE2's function on the same
// arguments (by position) and compares every parameter afterwards: exact for integers,
// relative tolerance 1e-5 for floats (--rtol, --atol); a mismatch prints the count and the first differing
// indices and makes the exit status 1. --expect NAME=PATH.npy compares parameter NAME after the
// call with the file's data (a numpy model's, an earlier run's --output) in the same way. Every error (bad file, shape, name, an out-of-bounds
// access, a VTA deadlock...) is printed as a diagnostic, gives exit status 1 and writes no
// output file.
//
// --load-library PATH.so (repeatable) loads a library whose C functions the program calls with
// T.call_extern (vtac/backend/LibraryExterns.h), in the interpreter and the JIT alike.
//
// --engine=jit (the default) runs the prim_func compiled by LLVM's ORC JIT
// (vtac/jit/JitFunction.h); --engine=interp runs it in the interpreter, the reference semantics,
// with the same arguments, outputs and statistics. The reference program runs in the
// interpreter, or on the JIT with --reference-engine=jit.
//
// When the entry is a Relax function (@R.function), the graph executor runs it instead
// (GraphRunCommand.h): --params FILE.npz binds parameters by name,
// --load-library PATH.so adds runtime functions, --output NAME=PATH names a returned variable
// (or --output PATH for the only result) and --stats adds the graph's tensor memory.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "vtac/backend/RunArguments.h"
#include "vtac/backend/RunLimits.h"
#include "vtac/backend/TensorCompare.h"
#include "vtac/prepare/Prepare.h"
#include "vtac/support/Command.h"

namespace CLI {
class App;
}

namespace vtac::driver {

struct RunOptions {
  std::string file;
  std::string entry;  // empty: "main", else the module's only prim_func
  backend::ArgumentSources arguments;  // --input, --size, --random-inputs, --seed
  std::vector<std::pair<std::string, std::string>> outputs;  // parameter name, .npy path
  std::vector<std::pair<std::string, std::string>> expectations;  // --expect: parameter name, .npy path
  bool stats = false;
  std::string statsJsonPath;
  std::string referenceFile;
  std::string referenceEntry;
  // The engine of the --reference run: the interpreter by default, the semantics vtac checks
  // against; the JIT for references too large to interpret in reasonable time.
  std::string referenceEngine = "interp";
  backend::FloatTolerance tolerance;  // of the float comparisons with the reference and --expect
  std::string traceVtaPath;  // --trace-vta: the executed VTA instructions, decoded, one a line
  std::string timelinePath;  // --timeline: the timing model's schedule of them, as JSON
  backend::RunLimits limits;  // of the program's run (--max-steps, --timeout); progress: see runCommand
  std::string engine = "jit";  // "jit" or "interp"
  bool timing = false;  // phase times (parse, host interpretation, simulation) to `errors`
  bool progress = false;  // --progress: the progress line even when stderr is no terminal
  // Each function after every pass of --passes and, with the JIT, of its pipeline (tir-lower
  // when blocks remain, host-lower), to `errors`, as vtac compile --print-after-all shows them.
  bool printAfterAll = false;
  // Relax entries only (see GraphRunCommand.h): parameters bound from an .npz,
  // libraries registering runtime functions.
  std::string paramsFile;
  std::vector<std::string> libraries;
  // The program is scheduled and goes through the pipeline before it runs (the --reference
  // program does not): prepare::Preparer. Its vtaConfig is the simulated VTA's too.
  prepare::Recipe recipe;
};

// Runs the command; returns the exit status (0: success, 1: error or mismatch). When the
// process's stderr is a terminal (or with --progress), runs over a second draw a progress line
// on `errors`.
int runCommand(const RunOptions &options, std::ostream &out, std::ostream &errors);

// Adds the `run` subcommand to the driver; when it is selected, `action` is set to run it
// (returning false for exit status 1).
void registerRunCommand(CLI::App &app, support::CommandAction &action);

}  // namespace vtac::driver
