#include "vtac/driver/PrintCommand.h"

#include <iostream>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "vtac/backend/Diagnostic.h"
#include "vtac/frontend/ModuleFile.h"
#include "vtac/graph/BindParams.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/support/AtomicFile.h"
#include "vtac/support/OutputDirectory.h"
#include "vtac/support/Stopwatch.h"

namespace vtac::driver {

bool runPrint(const std::vector<std::string> &inputs, const std::string &outputPath,
              std::ostream &out, std::ostream &errors, const ModuleRewrite &rewrite) {
  auto fail = [&errors](llvm::Error error) {
    errors << ir::renderError(std::move(error));
    return false;
  };
  std::optional<support::OutputDirectory> directory;
  std::vector<std::string> outputs;
  if (support::namesDirectory(outputPath)) {
    auto checked = support::OutputDirectory::check(outputPath);
    if (!checked) return fail(checked.takeError());
    directory = std::move(*checked);
    auto named = directory->outputsFor(inputs, ".tvm");
    if (!named) return fail(named.takeError());
    outputs = std::move(*named);
  }
  bool ok = true;
  std::vector<std::string> texts;
  for (const std::string &input : inputs) {
    llvm::Expected<frontend::ParsedModule> parsed = frontend::loadModule(input);
    if (!parsed) errors << ir::renderError(parsed.takeError());
    if (!parsed || (rewrite && !rewrite(*parsed, errors))) {
      ok = false;
      continue;
    }
    support::Stopwatch printTime;
    texts.push_back(frontend::printParsedModule(*parsed));
    spdlog::debug("{}: printed in {:.1f} ms", input, printTime.milliseconds());
  }
  if (!ok)
    return false;
  if (directory) {
    if (llvm::Error error = directory->make()) return fail(std::move(error));
    support::OutputSet files;
    for (size_t i = 0; i < texts.size(); ++i)
      if (llvm::Error error = files.stage(outputs[i], std::move(texts[i]))) return fail(std::move(error));
    if (llvm::Error error = files.commit()) return fail(std::move(error));
    return true;
  }
  std::string text;
  for (const std::string &module : texts) text += module;
  if (llvm::Error error = support::writeOutput(outputPath, text, out)) return fail(std::move(error));
  return true;
}

void registerPrintCommand(CLI::App &app, support::CommandAction &action) {
  auto *command = app.add_subcommand(
      "print", "Parse TVMScript files and print them in canonical TVMScript form.\n"
               "The output parses back to the same program and prints identically.");
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  command->add_option("FILE", *inputs, "Input .tvm files ('-' reads standard input)")->required();
  command->add_option("-o,--output", *output,
                      "Write to this file instead of standard output; with several inputs, to a "
                      "directory (DIR/, made if missing) that gets DIR/NAME.tvm for each NAME.tvm. "
                      "Files are replaced atomically, and only when every input is free of errors");
  auto params = std::make_shared<std::string>();
  command->add_option("--params", *params,
                      "FILE.npz: first bind the parameters of the Relax function main by name "
                      "(relax.transform.BindParams)");
  command->callback([&action, inputs, output, params] {
    // Modules printed one after another are no module `vtac check` takes; standard output
    // keeps them so (as `cat` would), a file does not.
    if (inputs->size() > 1 && !output->empty() && *output != "-" && !support::namesDirectory(*output))
      throw CLI::ValidationError("-o", "with several inputs, -o must name a directory (end it with '/'); "
                                       "without -o the modules go one after another to standard output");
    ModuleRewrite bindParams;
    if (!params->empty())
      bindParams = [params](frontend::ParsedModule &parsed, std::ostream &errors) {
        auto bound = graph::bindParamsFromFile(parsed.module, "main", *params, errors);
        if (!bound) {
          errors << backend::renderError(bound.takeError());
          return false;
        }
        parsed.module = std::move(*bound);
        return true;
      };
    action = [inputs, output, bindParams] {
      return runPrint(*inputs, *output, std::cout, std::cerr, bindParams) ? 0 : 1;
    };
  });
}

}  // namespace vtac::driver
