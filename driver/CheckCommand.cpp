#include "vtac/driver/CheckCommand.h"

#include <iostream>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>

#include "vtac/driver/VerifyDiagnostics.h"
#include "vtac/frontend/ModuleFile.h"
#include "vtac/ir/Diagnostic.h"

namespace vtac::driver {

bool runCheck(const std::vector<std::string> &inputs, std::ostream &errors) {
  bool ok = true;
  for (const std::string &input : inputs)
    if (llvm::Expected<frontend::ParsedModule> parsed = frontend::loadModule(input); !parsed) {
      errors << ir::renderError(parsed.takeError());
      ok = false;
    }
  return ok;
}

void registerCheckCommand(CLI::App &app, support::CommandAction &action) {
  auto *command = app.add_subcommand(
      "check", "Parse and verify TVMScript files; print nothing when they are correct,\n"
               "otherwise one 'file:line:col: error: message' diagnostic per problem.");
  auto inputs = std::make_shared<std::vector<std::string>>();
  command->add_option("FILE", *inputs, "Input .tvm files ('-' reads standard input)")->required();
  auto verify = std::make_shared<bool>(false);
  command->add_flag("--verify-diagnostics", *verify,
                    "Check the diagnostics against `# expected-error {{text}}` comments (@+N/@-N for "
                    "another line) in the files; succeed when each expected one, and nothing else, is printed");
  command->callback([&action, inputs, verify] {
    action = [inputs, verify] {
      if (!*verify) return runCheck(*inputs, std::cerr) ? 0 : 1;
      std::ostringstream printed;
      runCheck(*inputs, printed);
      return verifyDiagnostics(printed.str(), *inputs, std::cerr) ? 0 : 1;
    };
  });
}

}  // namespace vtac::driver
