#include "Preparing.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/RelaxOperators.h"
#include "vtac/support/Command.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringExtras.h>

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

std::string withLegalizeOps(const std::string &pipeline) {
  llvm::SmallVector<llvm::StringRef> names;
  llvm::StringRef(pipeline).split(names, ',', -1, /*KeepEmpty=*/false);
  if (llvm::is_contained(names, "legalize-ops")) return pipeline;
  auto before = llvm::find_if(names, [](llvm::StringRef name) { return name.trim() != "vta-graph-pack"; });
  names.insert(before, "legalize-ops");
  return llvm::join(names, ",");
}

int prepareModule(const std::string &command, const prepare::Recipe &given, frontend::ParsedModule &parsed,
                  std::ostream &errors, passes::Instrumentation instrumentation) {
  // High-level operators run as the prim_funcs legalize-ops makes of them, as relax.build
  // legalizes first: after the graph passes that work on the operators (vta-graph-pack) when the
  // pipeline does not place legalize-ops itself.
  prepare::Recipe recipe = given;
  if (ir::relax::hasOperatorCalls(parsed.module)) recipe.passes = withLegalizeOps(recipe.passes);
  llvm::Expected<prepare::Preparer> preparer = prepare::Preparer::create(recipe, std::move(instrumentation));
  if (!preparer) return reportRecipeError(command, preparer.takeError(), errors);
  if (llvm::Error error = preparer->prepare(parsed, errors)) {
    errors << ir::renderError(std::move(error));
    return support::kExitInputError;
  }
  return support::kExitSuccess;
}

}  // namespace vtac::driver
