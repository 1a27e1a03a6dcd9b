// A function after host-lower, the pipeline vtac compile and the JIT run before lowerForHost (or
// after another pipeline: part of host-lower, for lowerForHost's errors on what it did not do).
// The function is an entry named `symbol` (its global_symbol, as the driver sets it), which
// bind-entry-parameters' checks name.
#pragma once

#include <catch2/catch.hpp>

#include "vtac/ir/Diagnostic.h"
#include "vtac/passes/PassManager.h"

namespace vtac::codegen {

inline llvm::Expected<ir::PrimFuncRef> runHostPipeline(const ir::PrimFuncRef &func, const char *symbol,
                                                       const char *pipeline) {
  auto steps = passes::parsePipeline(pipeline, passes::PassRegistry::builtin());
  REQUIRE(static_cast<bool>(steps));
  ir::PrimFunc *entry = ir::copyNode(*func);
  entry->attrs.set("global_symbol", std::string(symbol));
  passes::PassContext context;
  return passes::PassManager(std::move(*steps)).run(ir::PrimFuncRef(entry), "main", context);
}

inline ir::PrimFuncRef hostLowered(const ir::PrimFuncRef &func, const char *symbol = "main",
                                   const char *pipeline = "host-lower") {
  auto result = runHostPipeline(func, symbol, pipeline);
  if (!result) FAIL(ir::errorMessage(result.takeError()));
  return *result;
}

}  // namespace vtac::codegen
