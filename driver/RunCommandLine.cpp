// The `run` subcommand's flags (CLI11); the command itself is runCommand (RunCommand.cpp).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "vtac/driver/RunCommand.h"
#include "vtac/driver/ScheduleOptions.h"
#include "vtac/support/ProgressLine.h"

namespace vtac::driver {

namespace {

constexpr double kMaxTimeoutSeconds = 365.0 * 24 * 3600;

// "NAME=VALUE" -> (NAME, VALUE); CLI11 has validated the form. "VALUE" alone (an --output of a
// graph's only result) -> ("", VALUE).
std::pair<std::string, std::string> splitAssignment(const std::string &text) {
  size_t equals = text.find('=');
  if (equals == std::string::npos) return {"", text};
  return {text.substr(0, equals), text.substr(equals + 1)};
}

std::string checkAssignment(const std::string &text) {
  size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
    return "expected NAME=VALUE, got '" + text + "'";
  return "";
}

std::string checkOutput(const std::string &text) {
  if (text.find('=') == std::string::npos) return text.empty() ? "expected [NAME=]PATH" : "";
  return checkAssignment(text);
}

std::string checkSize(const std::string &text) {
  std::string problem = checkAssignment(text);
  if (!problem.empty()) return problem;
  const std::string value = splitAssignment(text).second;
  size_t used = 0;
  try {
    long long parsed = std::stoll(value, &used);
    if (used != value.size() || parsed < 0) return "size '" + value + "' is not a non-negative integer";
  } catch (const std::exception &) {
    return "size '" + value + "' is not a non-negative integer";
  }
  return "";
}

// --timeout's seconds: finite (nan and inf would mean no limit at all) and short of the overflow
// of the clocks that add them to now.
std::string checkSeconds(const std::string &text) {
  char *end = nullptr;
  double seconds = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(seconds) || seconds <= 0 || seconds > kMaxTimeoutSeconds)
    return "expected seconds, a number > 0 and at most " + std::to_string(int64_t(kMaxTimeoutSeconds)) +
           " (a year), got '" + text + "'";
  return "";
}

}  // namespace

void registerRunCommand(CLI::App &app, support::CommandAction &action) {
  auto *command = app.add_subcommand(
      "run", "Execute a prim_func, or a module's Relax main as a graph, compiled by LLVM's JIT\n"
             "(--engine=interp: the reference interpreter); lowered VTA code runs on the VTA\n"
             "simulator. Inputs come from .npy files or seeded random data.");
  auto options = std::make_shared<RunOptions>();
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto outputs = std::make_shared<std::vector<std::string>>();
  auto expectations = std::make_shared<std::vector<std::string>>();
  auto sizes = std::make_shared<std::vector<std::string>>();
  command->add_option("FILE", options->file, "Input .tvm file")->required();
  addScheduleOptions(*command, options->recipe);
  command->add_option("--passes", options->recipe.passes,
                      "Run this pipeline (see vtac opt --list-passes): its leading Relax graph passes "
                      "(vta-graph-pack, legalize-ops, fuse-ops) before the schedule, the rest after it, e.g. "
                      "--passes=vta-lower or --passes=vta-graph-pack,fuse-ops,vta-lower --auto-schedule; a module "
                      "of high-level operators gets legalize-ops after any vta-graph-pack unless the pipeline "
                      "names it");
  addPassOptions(*command, options->recipe);
  command->add_flag("--print-after-all", options->printAfterAll,
                    "Print each function after every pass of --passes and, with the JIT, of the pipeline it runs "
                    "before code generation (tir-lower when blocks remain, then host-lower, as vtac compile), "
                    "to standard error");
  command->add_option("--entry", options->entry, "The prim_func to run (default: main, or the only one)");
  command->add_option("--input", *inputs, "NAME=PATH.npy: data of parameter NAME")
      ->check(CLI::Validator(checkAssignment, "NAME=PATH"));
  command->add_flag("--random-inputs", options->arguments.randomInputs,
                    "Fill every parameter without --input with seeded random data (SplitMix64 per parameter, documented in backend/include/vtac/backend/RandomFill.h)");
  command->add_option("--seed", options->arguments.seed, "Seed of --random-inputs (default 0)");
  command->add_option("--size", *sizes, "VAR=VALUE: value of a symbolic size no input determines")
      ->check(CLI::Validator(checkSize, "VAR=VALUE"));
  command->add_option("--output", *outputs,
                      "NAME=PATH.npy: write parameter NAME after the call (a Relax entry: result NAME, "
                      "or PATH.npy alone for its only result)")
      ->check(CLI::Validator(checkOutput, "[NAME=]PATH"));
  command->add_option("--params", options->paramsFile,
                      "FILE.npz: bind the Relax entry's parameters by name (relax.transform.BindParams)");
  command->add_option("--load-library", options->libraries,
                      "PATH.so: load a library whose C functions prim_funcs call with T.call_extern, or which registers runtime functions for graphs (vtac/func_registry.h)");
  command->add_flag("--stats", options->stats, "Print the VTA simulator's counters");
  command->add_option("--stats-json", options->statsJsonPath, "Write the VTA simulator's counters as JSON");
  auto *reference = command->add_option("--reference", options->referenceFile,
                                        "Run this program on the same inputs and compare every parameter");
  command->add_option("--reference-entry", options->referenceEntry, "The prim_func of --reference to run")
      ->needs(reference);
  command->add_option("--reference-engine", options->referenceEngine,
                      "Engine of the --reference run: interp, the reference interpreter (default), independent of "
                      "the code generator under test; jit, for references too large to interpret (an unscheduled "
                      "layer of a model)")
      ->check(CLI::IsMember({"interp", "jit"}))
      ->needs(reference);
  auto *expect = command->add_option("--expect", *expectations,
                                     "NAME=PATH.npy: compare parameter NAME after the call with the file's data (a "
                                     "numpy model's, an earlier run's --output), as --reference compares (a Relax "
                                     "entry: result NAME, or PATH.npy alone for its only result)")
                     ->check(CLI::Validator(checkOutput, "[NAME=]PATH"));
  auto *rtol = command->add_option("--rtol", options->tolerance.rtol,
                                   "Relative tolerance of float comparisons with --reference or --expect (default "
                                   "1e-5; integers always compare exactly)")
                   ->check(CLI::NonNegativeNumber);
  auto *atol = command->add_option("--atol", options->tolerance.atol,
                                   "Absolute tolerance of float comparisons with --reference or --expect (default 0)")
                   ->check(CLI::NonNegativeNumber);
  command->add_option("--trace-vta", options->traceVtaPath,
                      "Write each VTA instruction the simulator executes, decoded, one a line");
  command->add_option("--timeline", options->timelinePath,
                      "Write the timing model's schedule of the VTA instructions (module, start and end "
                      "cycle) as JSON; scripts/plot_timeline.py draws it");
  command->add_option("--max-steps", options->limits.maxSteps,
                      "Stop the run with an error after this many loop iterations (for and while, counted alike by "
                      "both engines: the JIT then compiles a count into its loops) or VTA instructions of the simulator")
      ->check(CLI::PositiveNumber);
  command->add_option("--timeout", options->limits.timeoutSeconds,
                      "Stop the run with an error after this many seconds (both engines and the VTA simulator: the clock "
                      "is read every few thousand loop iterations, which the JIT's code then counts)")
      ->check(CLI::Validator(checkSeconds, "SECONDS"));
  command->add_option("--vta-config", options->recipe.vtaConfig, "vta_config.json of the simulated VTA");
  command->add_option("--engine", options->engine,
                      "jit: the code vtac compile emits, run by LLVM's ORC JIT (default); interp: the reference "
                      "interpreter (the JIT draws no progress line unless --progress, --max-steps or --timeout make its "
                      "code count loop iterations); given twice, "
                      "the last one counts")
      ->check(CLI::IsMember({"interp", "jit"}))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  command->add_flag("--progress", options->progress,
                    std::string(support::kProgressFlagHelp) + "; in the JIT, its code then counts loop iterations");
  command->add_flag("--timing", options->timing, "Print the times of parsing, compiling (the JIT; preparing, for the interpreter) and running (host code and simulation)");
  command->callback([&action, options, inputs, outputs, expectations, sizes, reference, expect, rtol, atol] {
    for (const CLI::Option *tolerance : {rtol, atol})
      if (tolerance->count() && !reference->count() && !expect->count())
        throw CLI::ValidationError(tolerance->get_name(), "applies to the comparisons of --reference and --expect; "
                                                          "give one of them");
    for (const std::string &text : *inputs) options->arguments.inputs.push_back(splitAssignment(text));
    for (const std::string &text : *outputs) options->outputs.push_back(splitAssignment(text));
    for (const std::string &text : *expectations) options->expectations.push_back(splitAssignment(text));
    for (const std::string &text : *sizes) {
      auto [name, value] = splitAssignment(text);
      options->arguments.sizes.emplace_back(name, std::stoll(value));
    }
    action = [options] { return runCommand(*options, std::cout, std::cerr); };
  });
}

}  // namespace vtac::driver
