// vtac: the command-line driver. It parses flags and hands each subcommand to
// the library that implements it; nothing of substance lives here. A new
// subcommand is one more register*Command function.
//
// Exit status: 0 on success, 1 on an error in the input, 2 on a usage error.
#include "vtac/driver/CheckCommand.h"
#include "vtac/driver/CompileCommand.h"
#include "vtac/driver/DiffCommand.h"
#include "vtac/driver/IntrinsicsCommand.h"
#include "vtac/driver/OptCommand.h"
#include "vtac/driver/PrintCommand.h"
#include "vtac/driver/RunCommand.h"
#include "vtac/driver/TuneCommand.h"
#include "vtac/ir/DisplayText.h"
#include "vtac/support/Command.h"
#include "vtac/support/CommandThread.h"

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <llvm/ADT/StringRef.h>
#include <iostream>

namespace {

using vtac::support::kExitUsageError;

// The subcommand CLI11 selected sets this to the work it will do; it returns the exit status.
using Action = vtac::support::CommandAction;

// The first word that is not an option, when it names no subcommand ("vtac frob"), else null:
// CLI11 would only say that a subcommand is required.
const char *unknownSubcommand(const CLI::App &app, int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--log-level") ++i;  // the one top-level option with a separate value
    if (arg.starts_with("-")) continue;
    for (const CLI::App *command : app.get_subcommands({}))
      if (command->get_name() == arg) return nullptr;
    return argv[i];
  }
  return nullptr;
}

// "unknown subcommand 'frob'; did you mean 'opt'?" and the list of subcommands.
std::string unknownSubcommandMessage(const CLI::App &app, llvm::StringRef word) {
  std::string closest, names;
  unsigned best = ~0u;
  for (const CLI::App *command : app.get_subcommands({})) {
    const std::string &name = command->get_name();
    names += (names.empty() ? "" : ", ") + name;
    unsigned distance = word.edit_distance(name);
    if (distance < best) best = distance, closest = name;
  }
  std::string message = "vtac: error: unknown subcommand '" + vtac::ir::displayText(word.str()) + "'";
  if (best <= (closest.size() + 1) / 2) message += "; did you mean '" + closest + "'?";  // at most half of it differs
  return message + "\nSubcommands: " + names + " (vtac --help explains each)\n";
}

// The arguments for CLI11, last first as it consumes them. CLI11 reads `--passes=` (an empty
// value) as `--passes` and takes the next argument for its value; an empty string it keeps.
std::vector<std::string> cliArguments(int argc, char **argv) {
  std::vector<std::string> args;
  for (int i = argc - 1; i > 0; --i) {
    llvm::StringRef arg = argv[i];
    if (arg.starts_with("--") && arg.size() > 3 && arg.find('=') == arg.size() - 1) {
      args.emplace_back();
      args.emplace_back(arg.drop_back().str());
    } else {
      args.emplace_back(arg.str());
    }
  }
  return args;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"vtac: compiler driver for TVMScript tensor programs and the VTA accelerator"};
  app.set_version_flag("--version", std::string("vtac ") + VTAC_VERSION);
  app.require_subcommand(1);
  app.fallthrough();
  // Usage errors quote arguments: control bytes escaped and huge ones cut, as in diagnostics.
  app.failure_message([](const CLI::App *failed, const CLI::Error &e) {
    return vtac::ir::displayText(CLI::FailureMessage::simple(failed, e));
  });

  bool verbose = false;
  std::string logLevel = "warn";
  app.add_flag("-v,--verbose", verbose, "Log progress and timings (same as --log-level=debug)");
  app.add_option("--log-level", logLevel, "Logging threshold")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));

  Action action;
  vtac::driver::registerPrintCommand(app, action);
  vtac::driver::registerCheckCommand(app, action);
  vtac::driver::registerRunCommand(app, action);
  vtac::driver::registerOptCommand(app, action);
  vtac::driver::registerDiffCommand(app, action);
  vtac::driver::registerIntrinsicsCommand(app, action);
  vtac::driver::registerCompileCommand(app, action);
  vtac::driver::registerTuneCommand(app, action);

  vtac::driver::spellDependencyFlags(argc, argv);
  try {
    app.parse(cliArguments(argc, argv));
  } catch (const CLI::ParseError &e) {
    if (const char *word = app.get_subcommands().empty() ? unknownSubcommand(app, argc, argv) : nullptr) {
      std::cerr << unknownSubcommandMessage(app, word);
      return kExitUsageError;
    }
    return app.exit(e) == 0 ? 0 : kExitUsageError;
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("vtac"));
  spdlog::set_level(verbose ? spdlog::level::debug : spdlog::level::from_str(logLevel));
  spdlog::set_pattern("vtac: %l: %v");
  // The VTA runtime and simulator log every error they record; vtac reports each one itself, at
  // the source line of the call that failed, so their unlocated copies show only with --verbose.
  if (!verbose)
    for (const char *library : {"vta_runtime", "vta_sim"}) {
      auto logger = spdlog::get(library);
      if (!logger) logger = spdlog::stderr_color_mt(library);
      logger->set_level(spdlog::level::off);
    }
  return vtac::support::runOnCommandThread(action);
}
