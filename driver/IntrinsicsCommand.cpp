#include "vtac/driver/IntrinsicsCommand.h"

#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "vtac/prepare/Prepare.h"
#include "vtac/support/AtomicFile.h"

namespace vtac::driver {

namespace {

struct IntrinsicsOptions {
  std::string vtaConfig;
  std::string output;
};

int runIntrinsics(const IntrinsicsOptions &options, std::ostream &out, std::ostream &errors) {
  auto fail = [&](llvm::Error error) {
    errors << "error: " << llvm::toString(std::move(error)) << "\n";
    return support::kExitInputError;
  };
  llvm::Expected<std::string> text = prepare::builtinIntrinsicsText(options.vtaConfig);
  if (!text) return fail(text.takeError());
  if (llvm::Error error = support::writeOutput(options.output, *text, out)) return fail(std::move(error));
  return support::kExitSuccess;
}

}  // namespace

void registerIntrinsicsCommand(CLI::App &app, support::CommandAction &action) {
  auto *command = app.add_subcommand(
      "intrinsics", "Print the built-in tensor intrinsics (vta_gemm, vta_gemm_reset) for a VTA\n"
                    "configuration, as TVMScript desc/impl prim_funcs with their registration lines.");
  auto options = std::make_shared<IntrinsicsOptions>();
  command->add_option("--vta-config", options->vtaConfig,
                      "vta_config.json (path or JSON text); default: VTA_CONFIG, else TVM's default");
  command->add_option("-o,--output", options->output, "Write to this file instead of standard output");
  command->callback([&action, options] {
    action = [options] { return runIntrinsics(*options, std::cout, std::cerr); };
  });
}

}  // namespace vtac::driver
