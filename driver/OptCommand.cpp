#include "vtac/driver/OptCommand.h"

#include <iostream>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>
#include <llvm/Support/raw_os_ostream.h>

#include "Preparing.h"
#include "vtac/driver/Equivalence.h"
#include "vtac/driver/ScheduleOptions.h"
#include "vtac/driver/VerifyDiagnostics.h"
#include "vtac/frontend/ModuleFile.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/RelaxOperators.h"
#include "vtac/passes/PassManager.h"
#include "vtac/support/AtomicFile.h"
#include "vta/config.h"

namespace vtac::driver {

namespace {

void listPasses(std::ostream &out) {
  for (const passes::PassInfo *pass : passes::PassRegistry::builtin().all())
    out << "  " << pass->name << (pass->isPipeline() ? " (pipeline)" : "") << "\n      "
        << pass->summary << "\n";
}

void listOperators(std::ostream &out) {
  for (llvm::StringRef name : ir::relax::knownOperators()) out << "  R." << name.str() << "\n";
}

// A --print-after/--print-before name must be a pass too: a typo would otherwise print nothing.
llvm::Error checkPassNames(const std::set<std::string> &names, const char *flag) {
  const auto &registry = passes::PassRegistry::builtin();
  for (const std::string &name : names)
    if (!registry.lookup(name)) {
      auto parsed = passes::parsePipeline(name, registry);
      llvm::Error error = parsed.takeError();
      return llvm::make_error<passes::PipelineSyntaxError>(std::string(flag) + ": " +
                                                           llvm::toString(std::move(error)));
    }
  return llvm::Error::success();
}

// The name of the function defined last at or before `line` (1-based) of printed TVMScript.
std::string functionAtLine(llvm::StringRef printed, uint32_t line) {
  std::string name;
  llvm::SmallVector<llvm::StringRef, 64> lines;
  printed.split(lines, '\n');
  for (size_t i = 0; i < lines.size() && i < line; ++i) {
    llvm::StringRef text = lines[i].ltrim();
    if (text.consume_front("def ")) name = text.take_until([](char c) { return c == '('; }).str();
  }
  return name;
}

// What `vtac opt` writes must be a program vtac reads: a schedule or pass can build IR the
// printer writes but the frontend refuses (2000 add_unit_loop steps nest deeper than its limit),
// so the printed result is parsed back, and a result that does not read is an error at the input.
bool readsBack(const std::string &input, const frontend::ParsedModule &parsed, const std::string &printed,
               std::ostream &errors) {
  frontend::DiagnosticEngine diagnostics(1);
  frontend::parseModule(frontend::SourceFile(input + " (result)", printed), diagnostics);
  if (!diagnostics.hasErrors()) return true;
  const frontend::Diagnostic &first = diagnostics.diagnostics().front();
  std::string function = functionAtLine(printed, first.location.line);
  ir::FunctionRef failed = parsed.module.lookup(function);
  errors << ir::formatDiagnostic(failed ? failed->loc() : parsed.module.loc, ir::Severity::Error,
                                 "vtac cannot read back the result for '" + function + "' (at its line " +
                                     std::to_string(first.location.line) + ": " + first.message + "); nothing is written");
  return false;
}

}  // namespace

int runOpt(const OptOptions &options, std::ostream &out, std::ostream &errors) {
  if (options.listPasses) {
    listPasses(out);
    return support::kExitSuccess;
  }
  if (options.listOperators) {
    listOperators(out);
    return support::kExitSuccess;
  }
  if (llvm::Error usage = checkPassNames(options.printAfter, "--print-after")) {
    errors << "vtac opt: error: " << llvm::toString(std::move(usage)) << "\n";
    return support::kExitUsageError;
  }
  if (llvm::Error usage = checkPassNames(options.printBefore, "--print-before")) {
    errors << "vtac opt: error: " << llvm::toString(std::move(usage)) << "\n";
    return support::kExitUsageError;
  }

  // Unbuffered, so that dumps and remarks reach standard error in the order they happen.
  llvm::raw_os_ostream dumps(errors);
  dumps.SetUnbuffered();
  passes::Instrumentation instrumentation;
  instrumentation.printAfterAll = options.printAfterAll;
  instrumentation.printChanged = options.printChanged;
  instrumentation.printAfter = options.printAfter;
  instrumentation.printBefore = options.printBefore;
  instrumentation.verifyEach = options.verifyEach;
  instrumentation.timePasses = options.timePasses;
  instrumentation.dumpStream = &dumps;
  const prepare::Recipe &recipe = options.recipe;
  llvm::Expected<prepare::Preparer> preparer = prepare::Preparer::create(recipe, std::move(instrumentation));
  if (!preparer) return reportRecipeError("vtac opt", preparer.takeError(), errors);

  bool ok = true;
  std::string text;
  for (const std::string &input : options.inputs) {
    llvm::Expected<frontend::ParsedModule> parsed = frontend::loadModule(input);
    if (!parsed) {
      errors << ir::renderError(parsed.takeError());
      ok = false;
      continue;
    }
    // Without passes there must be a schedule to apply, from --schedule or the input itself.
    if (recipe.passes.empty() && recipe.schedule.empty() && !parsed->schedule && !options.printTrace &&
        !recipe.autoSchedule) {
      errors << "vtac opt: error: --passes is required (or a schedule: --schedule FILE, --auto-schedule, or a schedule def in "
             << input << ")\n";
      return support::kExitUsageError;
    }
    ir::IRModule original = parsed->module;
    std::string trace;
    llvm::Error unprepared = preparer->prepare(*parsed, errors, &trace);
    bool prepared = !unprepared;
    if (unprepared) errors << ir::renderError(std::move(unprepared));
    if (options.printTrace) errors << trace;
    if (!prepared) {
      ok = false;
      continue;
    }
    if (options.checkEquivalence)
      if (llvm::Error error = checkEquivalence(original, parsed->module, recipe.scheduleSeed, options.sizes, errors,
                                               recipe.function)) {
        errors << ir::renderError(std::move(error));
        ok = false;
        continue;
      }
    std::string printed = frontend::printParsedModule(*parsed);
    if (!readsBack(input, *parsed, printed, errors)) {
      ok = false;
      continue;
    }
    text += printed;
  }
  if (options.timePasses) {
    preparer->timings().print(dumps);
  }
  if (!ok) return support::kExitInputError;
  if (llvm::Error error = support::writeOutput(options.output, text, out)) {
    errors << "error: " << llvm::toString(std::move(error)) << "\n";
    return support::kExitInputError;
  }
  return support::kExitSuccess;
}

void registerOptCommand(CLI::App &app, support::CommandAction &action) {
  auto *command = app.add_subcommand(
      "opt", "Run a pipeline of passes on the prim_funcs of TVMScript files and print the result\n"
             "in canonical TVMScript. Dumps (--print-*) and --time-passes go to standard error.");
  auto options = std::make_shared<OptOptions>();
  auto sizes = std::make_shared<std::vector<std::string>>();
  command->add_option("FILE", options->inputs, "Input .tvm files ('-' reads standard input)");
  command->add_option("--passes", options->recipe.passes,
                      "Comma-separated pipeline, e.g. --passes=lower-init-block,simplify or "
                      "--passes=tir-lower (see --list-passes); its leading Relax graph passes (legalize-ops, "
                      "vta-graph-pack, fuse-ops) run before a schedule, the rest after it");
  command->add_option("-o,--output", options->output,
                      "Write to this file instead of standard output (atomically, and only when "
                      "every input went through)");
  addScheduleOptions(*command, options->recipe);
  command->add_flag("--print-trace", options->printTrace,
                    "Print the applied schedule as TVM's trace text (re-appliable) to standard error");
  command->add_option("--func", options->recipe.function, "Transform only the prim_func called NAME");
  command->add_option("--vta-config", options->recipe.vtaConfig,
                      "vta_config.json (path or JSON text) the VTA passes lower for; default: TVM's");
  command->add_flag("--list-passes", options->listPasses, "List every pass and pipeline, and exit");
  command->add_flag("--list-operators", options->listOperators,
                    "List the high-level Relax operators vtac reads (legalize-ops lowers each), and exit");
  command->add_flag("--print-after-all", options->printAfterAll, "Print the function after every pass");
  command->add_option("--print-after", options->printAfter,
                      "Print the function after this pass or pipeline (repeatable)");
  command->add_option("--print-before", options->printBefore,
                      "Print the function before this pass or pipeline (repeatable)");
  command->add_flag("--print-changed", options->printChanged,
                    "Print the function at the start and after each pass that changed it");
  command->add_flag("--verify-each", options->verifyEach,
                    "Run the IR verifier after every pass; a failure names the pass");
  command->add_flag("--time-passes", options->timePasses, "Print a table of time per pass");
  command->add_flag("--check-equivalence", options->checkEquivalence,
                    "Run each function before and after the pipeline with the interpreter on the "
                    "same seeded random inputs; fail unless every parameter agrees bit for bit (a Relax "
                    "function runs on the graph executor, high-level operators legalized first, and "
                    "every result must agree)");
  command->add_flag("--verify-diagnostics", options->verifyDiagnostics,
                    "Check the diagnostics against `# expected-error {{text}}` comments (also -warning, "
                    "-note, -remark; @+N/@-N for another line) in the files they point into; succeed when "
                    "each expected one, and nothing else, is printed");
  command->add_option("--seed", options->recipe.scheduleSeed, "Seed of the inputs of --check-equivalence and of the schedule's sample_* steps without a decision");
  command->add_option("--size", *sizes,
                      "VAR=VALUE: a symbolic size for --check-equivalence (repeatable)");
  addPassOptions(*command, options->recipe);
  command->callback([&action, options, sizes] {
    for (const std::string &assignment : *sizes) {
      size_t equals = assignment.find('=');
      int64_t value = -1;
      if (equals != std::string::npos) value = std::strtoll(assignment.c_str() + equals + 1, nullptr, 10);
      if (equals == std::string::npos || equals == 0 || value < 0)
        throw CLI::ValidationError("--size", "expected VAR=VALUE with VALUE >= 0, got '" + assignment + "'");
      options->sizes.emplace_back(assignment.substr(0, equals), value);
    }
    if (!options->listPasses && !options->listOperators && options->inputs.empty())
      throw CLI::RequiredError("FILE");
    action = [options] {
      if (!options->verifyDiagnostics) return runOpt(*options, std::cout, std::cerr);
      std::ostringstream printed;
      runOpt(*options, std::cout, printed);
      std::vector<std::string> files = options->inputs;
      for (const std::string &file : {options->recipe.schedule, options->recipe.intrinsics})
        if (!file.empty()) files.push_back(file);
      return verifyDiagnostics(printed.str(), files, std::cerr) ? support::kExitSuccess : support::kExitInputError;
    };
  });
}

}  // namespace vtac::driver
