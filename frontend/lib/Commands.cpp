#include "vtac/frontend/Commands.h"

#include "vtac/ir/Printer.h"
#include "vtac/ir/DisplayText.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Verifier.h"
#include "vtac/support/AtomicFile.h"
#include "vtac/support/OutputDirectory.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace vtac::frontend {

namespace {

class Stopwatch {
public:
  double milliseconds() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }

private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

} // namespace

std::optional<ParsedModule> loadModule(const std::string &path, std::ostream &errors) {
  std::string name = path == "-" ? "<stdin>" : path;
  std::string text, reason;
  if (!readSourceFile(path, text, reason)) {
    errors << ir::displayText(name) << ": error: cannot read file: " << reason << "\n";
    return std::nullopt;
  }
  Stopwatch parseTime;
  SourceFile file(name, std::move(text));
  DiagnosticEngine diagnostics;
  std::optional<ParsedModule> parsed = parseModule(file, diagnostics);
  spdlog::debug("{}: parsed in {:.1f} ms", name, parseTime.milliseconds());
  if (parsed) {
    Stopwatch verifyTime;
    for (const auto &entry : parsed->module.functions())
      if (auto *func = entry.function.as<ir::PrimFunc>())
        for (const ir::VerifierDiagnostic &problem : ir::verifyDiagnostics(*func))
          diagnostics.error(problem.loc, problem.message);
    spdlog::debug("{}: verified in {:.1f} ms", name, verifyTime.milliseconds());
  }
  errors << diagnostics.render();
  if (diagnostics.hasErrors())
    return std::nullopt;
  return parsed;
}

std::string printParsedModule(const ParsedModule &parsed) {
  const auto &functions = parsed.module.functions();
  if (parsed.className.empty() && functions.size() == 1)
    if (auto *func = functions[0].function.as<ir::PrimFunc>())
      return ir::printPrimFunc(*func, functions[0].name->name);
  return ir::printModule(parsed.module);
}

bool runCheck(const std::vector<std::string> &inputs, std::ostream &errors) {
  bool ok = true;
  for (const std::string &input : inputs)
    ok &= loadModule(input, errors).has_value();
  return ok;
}

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
    std::optional<ParsedModule> parsed = loadModule(input, errors);
    if (!parsed || (rewrite && !rewrite(*parsed, errors))) {
      ok = false;
      continue;
    }
    Stopwatch printTime;
    texts.push_back(printParsedModule(*parsed));
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

} // namespace vtac::frontend
