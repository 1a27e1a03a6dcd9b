#include "vtac/driver/CheckCommand.h"

#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "vtac/frontend/ModuleFile.h"

namespace vtac::driver {

bool runCheck(const std::vector<std::string> &inputs, std::ostream &errors) {
  bool ok = true;
  for (const std::string &input : inputs)
    ok &= frontend::loadModule(input, errors).has_value();
  return ok;
}

void registerCheckCommand(CLI::App &app, support::CommandAction &action) {
  auto *command = app.add_subcommand(
      "check", "Parse and verify TVMScript files; print nothing when they are correct,\n"
               "otherwise one 'file:line:col: error: message' diagnostic per problem.");
  auto inputs = std::make_shared<std::vector<std::string>>();
  command->add_option("FILE", *inputs, "Input .tvm files ('-' reads standard input)")->required();
  command->callback([&action, inputs] {
    action = [inputs] { return runCheck(*inputs, std::cerr) ? 0 : 1; };
  });
}

}  // namespace vtac::driver
