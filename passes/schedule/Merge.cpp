// merge(*loops): loops of equal extents at the same depth in different loop nests of one block
// scope become one loop nest. For each given loop, the loops from the nests' lowest common
// ancestor down to it (each the only child of the one above) are replaced by new loops
// `<name>_m` named after the first nest's; the bodies below the given loops, with their loop
// variables substituted, run in sequence under the innermost new loop. The merged nest takes
// the place of the last nest; the others leave their sequence (TVM's Merge: it does not check
// dependencies between the blocks). Every loop on the way must start at 0 and carry no
// annotation or thread binding; nests must have the same depth and extents. Returns the
// innermost new loop.
#include "BlockTree.h"
#include "LoopUtils.h"
#include "vtac/passes/schedule/Primitives.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/Substitute.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// Length of the prefix all paths share (by node identity).
size_t commonPrefixLength(const std::vector<StmtPath> &paths) {
  size_t length = 0;
  for (;; ++length)
    for (const StmtPath &path : paths)
      if (length >= path.size() || path[length].get() != paths[0][length].get()) return length;
}

}  // namespace

llvm::Expected<LoopRV> merge(Schedule &sch, const std::vector<Located<LoopRV>> &rvs, ir::SourceLoc stepAt) {
  auto fail = [](SourceLoc at, const std::string &why) { return diagnosticError(at, "merge: " + why); };
  if (rvs.size() < 2) return fail(stepAt, "give at least two loops");
  const std::string &func = rvs[0].value.func;

  std::vector<StmtPath> paths;
  for (size_t i = 0; i < rvs.size(); ++i) {
    llvm::Expected<StmtPath> path = sch.findLoop(rvs[i].value, rvs[i].at);
    if (!path) return path.takeError();
    if (rvs[i].value.func != func) return fail(rvs[i].at, "the loops are in different functions");
    paths.push_back(std::move(*path));
  }
  size_t common = commonPrefixLength(paths);
  // nests[i]: the loops from the common ancestor down to the given loop, outermost first.
  for (size_t i = 1; i < paths.size(); ++i)
    if (scopeOf(paths[i]).back().get() != scopeOf(paths[0]).back().get())
      return fail(rvs[i].at, "the loops are not under the same block scope");
  std::vector<std::vector<const For *>> nests;
  for (size_t i = 0; i < paths.size(); ++i) {
    SourceLoc at = rvs[i].at;
    const StmtPath &path = paths[i];
    if (path.size() <= common) return fail(at, "the loop '" + rvs[i].value.loopVar->name + "' encloses another given loop");
    std::vector<const For *> nest;
    for (size_t k = common; k < path.size(); ++k)
      if (const auto *loop = path[k].as<For>()) {
        if (llvm::Error error = checkPlainLoop(*loop, "merge", at)) return error;
        if (!nest.empty() && nest.back()->body.get() != loop)
          return fail(at, "the loop '" + loop->loopVar->name + "' is not the only child of '" +
                              nest.back()->loopVar->name + "'");
        nest.push_back(loop);
      }
    if (nest.empty() || path[common].get() != nest.front())
      return fail(at, "the loop '" + rvs[i].value.loopVar->name + "' is not in a loop nest of its own below the common scope");
    if (i > 0 && nest.size() != nests[0].size())
      return fail(at, "the loops are at different nesting depths (" + std::to_string(nests[0].size()) + " and " +
                          std::to_string(nest.size()) + " loops below their common scope)");
    for (size_t k = 0; i > 0 && k < nest.size(); ++k)
      if (!isZero(simplify(subExpr(nest[k]->extent, nests[0][k]->extent))))
        return fail(at, "the extent of '" + nest[k]->loopVar->name + "' (" + printExpr(nest[k]->extent) +
                            ") differs from that of '" + nests[0][k]->loopVar->name + "' (" +
                            printExpr(nests[0][k]->extent) + ")");
    nests.push_back(std::move(nest));
  }
  const auto *parent = paths[0][common - 1].as<SeqStmt>();
  if (!parent) return fail(rvs[0].at, "the loop nests are not statements of one sequence");

  std::vector<VarRef> merged;
  for (const For *loop : nests[0]) merged.push_back(makeVar(loop->loopVar->name + "_m", loop->loopVar->dtype));
  std::vector<Stmt> bodies;
  for (const std::vector<const For *> &nest : nests) {
    VarMap vars;
    for (size_t k = 0; k < nest.size(); ++k) vars[nest[k]->loopVar.get()] = merged[k];
    bodies.push_back(substitute(nest.back()->body, vars));
  }
  Stmt mergedNest = seq(std::move(bodies));
  for (size_t k = merged.size(); k-- > 0;)
    mergedNest = make<For>(merged[k], intImm(0, merged[k]->dtype), nests[0][k]->extent, ForKind::Serial, mergedNest);

  std::vector<Stmt> statements;
  for (const Stmt &stmt : parent->stmts) {
    bool removed = false;
    for (size_t i = 0; i + 1 < nests.size(); ++i) removed |= stmt.get() == nests[i].front();
    if (stmt.get() == nests.back().front())
      statements.push_back(mergedNest);
    else if (!removed)
      statements.push_back(stmt);
  }
  sch.replace(func, StmtPath(paths[0].begin(), paths[0].begin() + common), seq(std::move(statements)));
  return LoopRV{func, merged.back()};
}

}  // namespace vtac::passes::schedule
