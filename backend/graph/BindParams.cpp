#include "vtac/graph/BindParams.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "vtac/backend/Diagnostic.h"
#include "vtac/graph/Npz.h"
#include "vtac/ir/Relax.h"

namespace vtac::graph {

namespace relax = ir::relax;

llvm::Expected<ir::IRModule> bindParamsFromFile(const ir::IRModule &module, const std::string &function,
                                                const std::string &npzPath, std::ostream &warnings) {
  const ir::RelaxFunction *func = ir::asRelaxFunction(module.lookup(function));
  if (!func) return backend::diagnosticError("--params: the module has no Relax function '" + function + "'");
  auto isParameter = [&](llvm::StringRef name) {
    return std::any_of(func->params.begin(), func->params.end(),
                       [&](const relax::VarPtr &p) { return p->name == name; });
  };
  llvm::Expected<NpzContents> arrays = readNpzMembers(npzPath, isParameter);
  if (!arrays) return arrays.takeError();
  // Like BindParams, arrays that name no parameter are not used; a misspelt name should show.
  for (const std::string &name : arrays->unread)
    warnings << ir::formatDiagnostic({}, ir::Severity::Warning,
                                     npzPath + ": array '" + name + "' names no parameter of '" +
                                         function + "'; not used");
  std::vector<std::pair<std::string, std::shared_ptr<const relax::TensorData>>> params;
  for (auto &[name, tensor] : arrays->arrays) {
    auto data = std::make_shared<relax::TensorData>();
    data->dtype = tensor.dtype();
    data->shape = tensor.shape().vec();
    data->bytes = std::move(tensor).takeBytes();
    params.emplace_back(name, std::move(data));
  }
  relax::RelaxDiagnostic diagnostic;
  ir::RelaxFunctionRef bound = relax::bindParams(*func, params, diagnostic);
  if (!bound) return backend::diagnosticError(diagnostic.loc, npzPath + ": " + diagnostic.message);
  ir::IRModule result = module;
  result.add(function, bound);
  return result;
}

}  // namespace vtac::graph
