// Reading a pass's PassContext options (`vtac opt --pass-option NAME=VALUE`).
#pragma once

#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/Pass.h"

namespace vtac::passes {

// The integer value of option `name`, or `fallback` when it is not given; an error when the
// given value is not an integer.
inline llvm::Expected<int64_t> integerOption(const PassContext &context, llvm::StringRef name, int64_t fallback) {
  auto it = context.options.find(name);
  if (it == context.options.end()) return fallback;
  int64_t value = 0;
  if (llvm::StringRef(it->second).getAsInteger(10, value))
    return ir::diagnosticError(llvm::Twine("option ") + name + " wants an integer, not '" + it->second + "'");
  return value;
}

}  // namespace vtac::passes
