// `vtac opt`: parse modules, run a pass pipeline on their prim_funcs, print canonical TVMScript
// (mlir-opt for vtac).
//
//   vtac opt FILE... --passes=P1,P2,... [-o OUT] [--func=NAME] [--print-after-all]
//            [--print-after=NAME]... [--print-before=NAME]... [--print-changed] [--verify-each]
//            [--time-passes] [--pass-option NAME=VALUE]... [--vta-config PATH]
//            [--check-equivalence [--seed N] [--size VAR=VALUE]...]
//   vtac opt --list-passes
//
// Dumps and the timing table go to standard error, the result to standard output or -o (written
// atomically, only when every input went through, verified and parsed back). An unknown pass or a malformed pipeline is a
// usage error (exit 2) naming the closest passes; a pass that cannot handle its input is
// `file:line:col: error: [pass] message` (exit 1). --check-equivalence runs every function before
// and after the pipeline with the interpreter on the same seeded inputs and fails unless all
// parameters agree bit for bit. --pass-option sets PassContext::options (a pass's header lists the
// ones it reads, e.g. unroll-loop.auto-max-step).
// --vta-config selects the VTA configuration the VTA passes lower
// for (vta_config.json, a path or JSON text; an unusable one is an input error, exit 1).
#pragma once

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "vtac/prepare/Prepare.h"
#include "vtac/support/Command.h"

namespace CLI {
class App;
}

namespace vtac::driver {

struct OptOptions {
  std::vector<std::string> inputs;
  std::string output;
  // --passes (empty: a schedule alone), the schedule options, --func, --vta-config,
  // --pass-option; its scheduleSeed (--seed) seeds --check-equivalence's inputs too.
  prepare::Recipe recipe;
  bool printTrace = false; // the applied trace, in TVM's text, to standard error
  bool listPasses = false;
  bool listOperators = false;
  bool printAfterAll = false, printChanged = false, verifyEach = false, timePasses = false;
  std::set<std::string> printAfter, printBefore;
  bool checkEquivalence = false;
  bool verifyDiagnostics = false;  // check the diagnostics against expected-* comments (VerifyDiagnostics.h)
  std::vector<std::pair<std::string, int64_t>> sizes;
};

int runOpt(const OptOptions &options, std::ostream &out, std::ostream &errors);

void registerOptCommand(CLI::App &app, support::CommandAction &action);

}  // namespace vtac::driver
