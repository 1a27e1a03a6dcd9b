// A function after host-lower, the pipeline vtac compile and the JIT run before lowerForHost.
#pragma once

#include <catch2/catch.hpp>

#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/PassManager.h"

namespace vtac::codegen {

inline ir::PrimFuncRef hostLowered(const ir::PrimFuncRef &func) {
  auto steps = passes::parsePipeline("host-lower", passes::PassRegistry::builtin());
  REQUIRE(static_cast<bool>(steps));
  passes::PassContext context;
  auto result = passes::PassManager(std::move(*steps)).run(func, "main", context);
  if (!result) FAIL(ir::errorMessage(result.takeError()));
  return *result;
}

}  // namespace vtac::codegen
