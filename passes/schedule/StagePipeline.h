// TVM's stage-pipeline property of a scope block, which some primitives (rfactor) require.
#pragma once

#include <string>

#include "vtac/passes/schedule/Schedule.h"

namespace vtac::passes::schedule {

// Why the scope is not a stage pipeline, or an empty string when no reason is found: a child
// block reads a region of a buffer that the scope's earlier child blocks write but, relaxed
// over their loops, provably do not cover (TVM's region cover property). Regions are compared
// over the whole scope (TVM compares under each lowest common loop, which is finer) and only
// where their bounds differ by constants; TVM's other conditions (no write-after-read or opaque
// dependency) are not checked.
std::string whyNotStagePipeline(const ir::Block &scope);

}  // namespace vtac::passes::schedule
