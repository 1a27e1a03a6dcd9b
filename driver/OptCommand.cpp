#include "vtac/driver/OptCommand.h"

#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <llvm/Support/raw_os_ostream.h>

#include "Equivalence.h"
#include "vtac/driver/Schedule.h"
#include "vtac/frontend/Commands.h"
#include "vtac/ir/Diagnostic.h"
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

// VTA's on-chip buffers as TVM's environment.py registers them (tvm.info.mem.local.*_buffer):
// one tile's bits is the alignment, the SRAM size the bound.
void addVtaMemories(const vta::Config &config, passes::PassContext &context) {
  auto add = [&](const char *scope, uint32_t elemBytes, uint32_t logBuffSize) {
    context.memoryInfo[scope] = {uint64_t(elemBytes) * 8, (uint64_t(1) << logBuffSize) * 8};
  };
  add("local.inp_buffer", config.inpElemBytes, config.logInpBuffSize);
  add("local.wgt_buffer", config.wgtElemBytes, config.logWgtBuffSize);
  add("local.acc_buffer", config.accElemBytes, config.logAccBuffSize);
}

}  // namespace

int runOpt(const OptOptions &options, std::ostream &out, std::ostream &errors) {
  if (options.listPasses) {
    listPasses(out);
    return support::kExitSuccess;
  }
  const auto &registry = passes::PassRegistry::builtin();
  auto pipeline = options.passes.empty()
                      ? llvm::Expected<std::vector<passes::PipelineStep>>(std::vector<passes::PipelineStep>{})
                      : passes::parsePipeline(options.passes, registry);
  llvm::Error usage = pipeline ? llvm::Error::success() : pipeline.takeError();
  if (!usage) usage = checkPassNames(options.printAfter, "--print-after");
  if (!usage) usage = checkPassNames(options.printBefore, "--print-before");
  if (usage) {
    errors << "vtac opt: error: " << llvm::toString(std::move(usage)) << "\n";
    return support::kExitUsageError;
  }

  llvm::raw_os_ostream dumps(errors);
  passes::Instrumentation instrumentation;
  instrumentation.printAfterAll = options.printAfterAll;
  instrumentation.printChanged = options.printChanged;
  instrumentation.printAfter = options.printAfter;
  instrumentation.printBefore = options.printBefore;
  instrumentation.verifyEach = options.verifyEach;
  instrumentation.timePasses = options.timePasses;
  instrumentation.dumpStream = &dumps;
  passes::PassManager manager(std::move(*pipeline), instrumentation);
  passes::PassContext context;
  // --vta-config, else VTA_CONFIG, else TVM's default configuration.
  auto vtaConfig = options.vtaConfig.empty() ? vta::Config::fromEnvironment()
                                             : vta::Config::fromPathOrJSON(options.vtaConfig);
  if (!vtaConfig) {
    errors << "vtac opt: error: " << (options.vtaConfig.empty() ? "VTA_CONFIG" : "--vta-config " + options.vtaConfig)
           << ": " << llvm::toString(vtaConfig.takeError()) << "\n";
    return support::kExitInputError;
  }
  context.vta = *vtaConfig;
  addVtaMemories(context.vta, context);
  for (const auto &[name, value] : options.passOptions) context.options[name] = value;
  context.remark = [&](ir::SourceLoc loc, const std::string &message) {
    dumps.flush();
    errors << ir::formatDiagnostic(loc, ir::Severity::Warning, message);
  };

  bool ok = true;
  std::string text;
  for (const std::string &input : options.inputs) {
    std::optional<frontend::ParsedModule> parsed = frontend::loadModule(input, errors);
    if (!parsed) {
      ok = false;
      continue;
    }
    // Without passes there must be a schedule to apply, from --schedule or the input itself.
    if (options.passes.empty() && options.schedule.empty() && !parsed->schedule && !options.printTrace) {
      errors << "vtac opt: error: --passes is required (or a schedule: --schedule FILE, or a schedule def in "
             << input << ")\n";
      return support::kExitUsageError;
    }
    ir::IRModule original = parsed->module;
    std::string trace;
    if (!applyModuleSchedule(*parsed, options.schedule, options.intrinsics, &trace, errors, options.seed)) {
      ok = false;
      continue;
    }
    if (options.printTrace) errors << trace;
    llvm::Error error = manager.run(parsed->module, context, options.function);
    if (!error && options.checkEquivalence)
      error = checkEquivalence(original, parsed->module, options.seed, options.sizes, errors, options.function);
    dumps.flush();
    if (error) {
      errors << ir::renderError(std::move(error));
      ok = false;
      continue;
    }
    text += frontend::printParsedModule(*parsed);
  }
  if (options.timePasses) {
    manager.timings().print(dumps);
    dumps.flush();
  }
  if (!ok) return support::kExitInputError;
  if (options.output.empty() || options.output == "-") {
    out << text;
    return out.flush() ? support::kExitSuccess : support::kExitInputError;
  }
  if (llvm::Error error = support::writeFileAtomically(options.output, text)) {
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
  command->add_option("--passes", options->passes,
                      "Comma-separated pipeline, e.g. --passes=lower-init-block,simplify or "
                      "--passes=tir-lower (see --list-passes)");
  command->add_option("-o,--output", options->output,
                      "Write to this file instead of standard output (atomically, and only when "
                      "every input went through)");
  command->add_option("--schedule", options->schedule,
                      "Apply the schedule def (TVM's trace text, a `def` taking `sch`) of FILE before "
                      "the passes; without it, the input's own schedule def, if any");
  command->add_option("--intrinsics", options->intrinsics,
                      "Read tensor intrinsics (desc/impl prim_funcs and tir.TensorIntrin.register lines) "
                      "from FILE for tensorize");
  command->add_flag("--print-trace", options->printTrace,
                    "Print the applied schedule as TVM's trace text (re-appliable) to standard error");
  command->add_option("--func", options->function, "Transform only the prim_func called NAME");
  command->add_option("--vta-config", options->vtaConfig,
                      "vta_config.json (path or JSON text) the VTA passes lower for; default: TVM's");
  command->add_flag("--list-passes", options->listPasses, "List every pass and pipeline, and exit");
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
                    "same seeded random inputs; fail unless every parameter agrees bit for bit");
  command->add_option("--seed", options->seed, "Seed of the inputs of --check-equivalence and of the schedule's sample_* steps without a decision");
  command->add_option("--size", *sizes,
                      "VAR=VALUE: a symbolic size for --check-equivalence (repeatable)");
  auto passOptions = std::make_shared<std::vector<std::string>>();
  command->add_option("--pass-option", *passOptions,
                      "NAME=VALUE: an option for the passes, e.g. unroll-loop.auto-max-step=16 (repeatable)");
  command->callback([&action, command, options, sizes, passOptions] {
    for (const std::string &assignment : *passOptions) {
      size_t equals = assignment.find('=');
      if (equals == std::string::npos || equals == 0)
        throw CLI::ValidationError("--pass-option", "expected NAME=VALUE, got '" + assignment + "'");
      options->passOptions.emplace_back(assignment.substr(0, equals), assignment.substr(equals + 1));
    }
    for (const std::string &assignment : *sizes) {
      size_t equals = assignment.find('=');
      int64_t value = -1;
      if (equals != std::string::npos) value = std::strtoll(assignment.c_str() + equals + 1, nullptr, 10);
      if (equals == std::string::npos || equals == 0 || value < 0)
        throw CLI::ValidationError("--size", "expected VAR=VALUE with VALUE >= 0, got '" + assignment + "'");
      options->sizes.emplace_back(assignment.substr(0, equals), value);
    }
    if (!options->listPasses && options->inputs.empty())
      throw CLI::RequiredError("FILE");
    action = [options] { return runOpt(*options, std::cout, std::cerr); };
  });
}

}  // namespace vtac::driver
