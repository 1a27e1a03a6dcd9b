// `vtac compile FILE... -o OUT`: each input module's prim_funcs -> one output file per input.
//
// Per input: parse and verify (frontend), run the `--passes` pipeline as `vtac opt` does (the
// pass manager of passes/; a malformed pipeline is a usage error), take each prim_func through
// prepare::codegenPipeline (tir-lower when blocks remain, then host-lower: the pipeline vtac
// run's JIT runs), lower it for the host (HostLowering.h), emit C, a header, LLVM IR, bitcode,
// assembly or an object. Outputs are written atomically and only when every input compiled,
// so an error leaves nothing new on disk; with -MD each output gets a make depfile listing every
// file read. Inputs compile in parallel (-j N); the output for the same input and flags is the
// same bytes whatever N.
//
// Symbols: a function keeps its name, except `main` (which a C program cannot link beside its
// own main) which takes the input's file stem; `symbols` overrides both ("NAME" renames the
// main or only prim_func of a single input, "FUNC=NAME" the function FUNC).
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "vtac/prepare/Prepare.h"
#include "vtac/support/Command.h"

namespace CLI {
class App;
}

namespace vtac::driver {

struct CompileOptions {
  std::vector<std::string> inputs;
  std::string output;  // a file (one input) or a directory (a trailing '/' or an existing one)
  std::string emit;    // "c", "header", "llvm", "bc", "asm", "obj"; empty: from the output's extension
  // The schedule, --passes and the VTA configuration they lower for, applied before code
  // generation (prepare::Preparer); a trace's sample_* steps are seeded with 0.
  prepare::Recipe recipe;
  std::vector<std::string> symbols;
  int jobs = 1;
  bool progress = false;  // --progress: the progress line even when stderr is no terminal
  bool depfile = false;       // -MD
  std::string depfilePath;    // -MF (one input only)
  std::string targetTriple;   // empty: the host
  std::string cpu = "generic";  // --mcpu
  std::string features;         // --mattr, e.g. "+neon,-thumb2"
  int optLevel = 2;           // -O0..-O3
  bool printAfterAll = false;  // each function after every pass of --passes and of the codegen pipeline
};

// Returns the driver's exit status: 0, 1 after writing diagnostics to `errors`, 2 for a
// malformed --passes pipeline.
int compileCommand(const CompileOptions &options, std::ostream &errors);

void registerCompileCommand(CLI::App &app, support::CommandAction &action);

// Rewrites gcc's dependency flags after a `compile` argument, `-MD` and `-MF`, to the `--MD`
// and `--MF` that CLI11 parses (it reads `-MD` as the two short flags -M and -D). Call before
// parsing.
void spellDependencyFlags(int argc, char **argv);

}  // namespace vtac::driver
