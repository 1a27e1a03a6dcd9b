// `vtac diff A.tvm B.tvm`: structural comparison of two modules, as TVM's
// assert_structural_equal (names of variables, buffers and blocks do not matter; functions are
// matched by name). Exit 0 when equal; otherwise exit 1 with the first difference of each
// function: in each file, the use that differs (a load, a literal, a statement; for a graph
// function the binding) with its source line, both sides printed, and the enclosing statements.
#pragma once

#include <ostream>
#include <string>

#include "vtac/support/Command.h"

namespace CLI {
class App;
}

namespace vtac::driver {

int runDiff(const std::string &left, const std::string &right, std::ostream &out,
            std::ostream &errors);

void registerDiffCommand(CLI::App &app, support::CommandAction &action);

}  // namespace vtac::driver
