// The backend reports errors as the IR's DiagnosticError (vtac/ir/Diagnostic.h), shared with
// the passes, so that the driver renders all of them alike.
#pragma once

#include "vtac/ir/Diagnostic.h"

namespace vtac::backend {

using ir::DiagnosticError;
using ir::diagnosticError;
using ir::errorMessage;
using ir::renderError;

}  // namespace vtac::backend
