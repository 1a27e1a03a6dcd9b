#include "Preparing.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/RelaxOperators.h"
#include "vtac/support/Command.h"

namespace vtac::driver {

int reportRecipeError(const std::string &command, llvm::Error error, std::ostream &errors) {
  int status = support::kExitInputError;
  std::string message;
  llvm::handleAllErrors(
      std::move(error),
      [&](const prepare::RecipeError &refused) {
        status = refused.exitStatus();
        message = refused.message();
      },
      [&](const llvm::ErrorInfoBase &other) { message = other.message(); });
  errors << command << ": error: " << message << "\n";
  return status;
}

int prepareModule(const std::string &command, const prepare::Recipe &given, frontend::ParsedModule &parsed,
                  std::ostream &errors, passes::Instrumentation instrumentation) {
  // High-level operators run as the prim_funcs legalize-ops makes of them, as relax.build
  // legalizes first.
  prepare::Recipe recipe = given;
  if (ir::relax::hasOperatorCalls(parsed.module))
    recipe.passes = recipe.passes.empty() ? "legalize-ops" : "legalize-ops," + recipe.passes;
  llvm::Expected<prepare::Preparer> preparer = prepare::Preparer::create(recipe, std::move(instrumentation));
  if (!preparer) return reportRecipeError(command, preparer.takeError(), errors);
  if (llvm::Error error = preparer->prepare(parsed, errors)) {
    errors << ir::renderError(std::move(error));
    return support::kExitInputError;
  }
  return support::kExitSuccess;
}

}  // namespace vtac::driver
