// The `compile` subcommand's flags (CLI11); the command itself is compileCommand
// (CompileCommand.cpp).
#include <iostream>
#include <memory>
#include <set>
#include <string_view>

#include <CLI/CLI.hpp>

#include "vtac/codegen/CNames.h"
#include "vtac/codegen/LLVMEmitter.h"
#include "vtac/driver/CompileCommand.h"
#include "vtac/driver/ScheduleOptions.h"
#include "vtac/support/OutputDirectory.h"
#include "vtac/support/ProgressLine.h"

namespace vtac::driver {

namespace {

// The --symbol values: FUNC=NAME or NAME (the main function's, one input only), NAME a C
// function name, each function named once.
void checkSymbols(const std::vector<std::string> &symbols, size_t inputs) {
  std::set<std::string> functions;
  for (const std::string &entry : symbols) {
    size_t equals = entry.find('=');
    std::string function = equals == std::string::npos ? "" : entry.substr(0, equals);
    std::string name = equals == std::string::npos ? entry : entry.substr(equals + 1);
    if (equals == std::string::npos && inputs > 1)
      throw CLI::ValidationError("--symbol", "'" + entry + "' without FUNC= would name every input's main alike");
    if (equals == 0) throw CLI::ValidationError("--symbol", "'" + entry + "' names no function before '='");
    if (!codegen::isCFunctionName(name))
      throw CLI::ValidationError("--symbol", "'" + name + "' cannot name a C function (letters, digits and '_', "
                                             "not starting with a digit; not a C keyword, main or a C library function)");
    if (!functions.insert(function).second)
      throw CLI::ValidationError("--symbol", function.empty() ? "the main function's symbol is given twice"
                                                              : "the symbol of '" + function + "' is given twice");
  }
}

}  // namespace

void registerCompileCommand(CLI::App &app, support::CommandAction &action) {
  auto *command = app.add_subcommand(
      "compile",
      "Compile lowered prim_funcs to C, a header, LLVM IR, bitcode, assembly or an object file,\n"
      "one output per input. Each prim_func NAME becomes `int32_t NAME(DLTensor *, ...)`\n"
      "(0 on success; see --emit=header); a function named main takes the input's file stem\n"
      "as its symbol (conv2d.tvm -> conv2d) unless --symbol says otherwise.");
  auto options = std::make_shared<CompileOptions>();
  command->add_option("FILE", options->inputs, "Input .tvm files")->required();
  command->add_option("-o,--output", options->output,
                      "Output file (one input) or directory (ending in '/' or existing: one file per "
                      "input, named after it; a missing DIR/ is made once every input compiled)")
      ->required();
  command->add_option("--emit", options->emit,
                      "c | header | llvm (.ll) | bc | asm (.s) | obj (default: from the output's "
                      "extension, else obj)")
      ->check(CLI::IsMember({"c", "header", "llvm", "bc", "asm", "obj"}));
  command->add_flag("--print-after-all", options->printAfterAll,
                    "Print each function after every pass of --passes and of the last steps before code "
                    "generation (tir-lower when blocks remain, then host-lower), to standard error (as vtac opt "
                    "--print-after-all)");
  command->add_option("--passes", options->recipe.passes,
                      "Pass pipeline to run first, as vtac run --passes (e.g. vta-lower; see vtac opt "
                      "--list-passes; leading Relax graph passes run before the schedule); then each function "
                      "goes through tir-lower if blocks remain, and host-lower, as vtac run's JIT takes it "
                      "(--print-after-all shows every step)");
  addPassOptions(*command, options->recipe);
  addScheduleOptions(*command, options->recipe);
  command->add_option("--vta-config", options->recipe.vtaConfig,
                      "vta_config.json (path or JSON text) the VTA passes lower for (default: VTA_CONFIG, else "
                      "TVM's default)");
  command->add_option("--symbol", options->symbols,
                      "NAME: symbol of the main (or only) prim_func; FUNC=NAME: symbol of FUNC (repeatable)");
  command->add_option("-j,--jobs", options->jobs, "Compile this many inputs in parallel")->check(CLI::Range(1, 256));
  command->add_flag("--progress", options->progress,
                    std::string(support::kProgressFlagHelp) + " (several inputs: how many are compiled)");
  command->add_flag("--MD", options->depfile, "Write a make depfile next to each output (OUT.d)");
  command->add_option("--MF", options->depfilePath, "Write the depfile here (one input only)");
  command->footer("-MD and -MF are also accepted with one dash, as gcc spells them.");
  command->add_option("--target", options->targetTriple,
                      "LLVM target triple, e.g. armv7a-linux-gnueabihf (default: the host); a "
                      "*eabihf triple passes floats in VFP registers (hard-float), as clang does");
  auto *cpu = command->add_option("--mcpu", options->cpu,
                      "CPU of the target to generate code for, e.g. cortex-a9 (the PYNQ board's; "
                      "default: generic, independent of the compiling machine)");
  auto *features = command->add_option("--mattr", options->features,
                      "Target features to add (+) or remove (-), comma-separated, e.g. +neon");
  command->add_option("-O", options->optLevel, "LLVM optimisation level 0-3 (default 2); host code that drives VTA is left unoptimised (it only issues runtime calls)")->check(CLI::Range(0, 3));
  command->callback([&action, options, cpu, features] {
    if (options->inputs.size() > 1 && !options->output.empty() && !support::namesDirectory(options->output))
      throw CLI::ValidationError("-o", "with several inputs, -o must name a directory (end it with '/')");
    if (!options->depfilePath.empty() && options->inputs.size() > 1)
      throw CLI::ValidationError("--MF", "names one depfile: give it one input (or use -MD)");
    checkSymbols(options->symbols, options->inputs.size());
    // (Without them the target is checked when compiling: an unsupported one is no usage error.)
    if (cpu->count() + features->count() > 0) {
      if (llvm::Error error = codegen::checkCpuAndFeatures(options->targetTriple, options->cpu, options->features))
        throw CLI::ValidationError(llvm::toString(std::move(error)));
    }
    action = [options] { return compileCommand(*options, std::cerr); };
  });
}

void spellDependencyFlags(int argc, char **argv) {
  static char md[] = "--MD", mf[] = "--MF";
  bool afterCompile = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    afterCompile |= arg == "compile";
    if (afterCompile && arg == "-MD") argv[i] = md;
    if (afterCompile && arg == "-MF") argv[i] = mf;
  }
}

}  // namespace vtac::driver
