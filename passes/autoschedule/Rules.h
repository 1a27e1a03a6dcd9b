// The auto-schedule rules, one per file. A rule looks at one prim_func: if it does not recognise
// it, it returns nullopt and says why in `why`; if it does, it appends the function's schedule
// to `trace` (get_block with func_name = `name`) and returns the remark that describes it; a
// function it recognises but cannot schedule (no tile fits) is an error at the function.
#pragma once

#include <optional>
#include <string>

#include <llvm/Support/Error.h>

#include "vta/config.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Function.h"
#include "vtac/ir/Trace.h"

namespace vtac::passes::autoschedule {

using Rule = llvm::Expected<std::optional<std::string>> (*)(const std::string &name, const ir::PrimFunc &func,
                                                            const vta::Config &config, ir::Trace &trace,
                                                            std::string &why);

llvm::Expected<std::optional<std::string>> densePacked(const std::string &name, const ir::PrimFunc &func,
                                                       const vta::Config &config, ir::Trace &trace,
                                                       std::string &why);
llvm::Expected<std::optional<std::string>> conv2dPacked(const std::string &name, const ir::PrimFunc &func,
                                                        const vta::Config &config, ir::Trace &trace,
                                                        std::string &why);

llvm::Expected<std::optional<std::string>> elementwisePacked(const std::string &name, const ir::PrimFunc &func,
                                                             const vta::Config &config, ir::Trace &trace,
                                                             std::string &why);

}  // namespace vtac::passes::autoschedule
