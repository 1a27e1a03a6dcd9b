// legalize-ops for R.nn.conv2d and the pools (not yet).
#include "Legalize.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::legalize {

llvm::Expected<LegalizedOperator> legalizeWindow(const ir::relax::Call &call) {
  return ir::diagnosticError(call.calleeLoc, "legalize-ops does not support R." + call.callee + " yet");
}

}  // namespace vtac::passes::legalize
