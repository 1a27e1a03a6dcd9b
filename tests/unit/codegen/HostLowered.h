// A function after host-lower, the pipeline vtac compile and the JIT run before lowerForHost (or
// after another pipeline: part of host-lower, for lowerForHost's errors on what it did not do).
#pragma once

#include <catch2/catch.hpp>

#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/PassManager.h"

namespace vtac::codegen {

inline ir::PrimFuncRef hostLowered(const ir::PrimFuncRef &func, const char *pipeline = "host-lower") {
  auto steps = passes::parsePipeline(pipeline, passes::PassRegistry::builtin());
  REQUIRE(static_cast<bool>(steps));
  passes::PassContext context;
  auto result = passes::PassManager(std::move(*steps)).run(func, "main", context);
  if (!result) FAIL(ir::errorMessage(result.takeError()));
  return *result;
}

}  // namespace vtac::codegen
