// fuse(*loops, preserve_unit_iters=True): consecutive loops, each the only child of the one
// before, become one loop `<a>_<b>_..._fused` over the product of their extents. Loop k's
// variable becomes `fused % (extent_k * below_k) // below_k`, below_k the product of the
// extents below k (no `//` for the innermost, no `%` for the outermost, 0 for a unit loop), the
// form TVM's IterMapSimplify leaves.
// The loops must start at 0, carry no annotation or thread binding, and have extents that do not
// use the variables of the loops fused with them.
#include "LoopUtils.h"
#include "vtac/passes/schedule/Primitives.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

bool usesAnyVar(const Expr &expr, const std::vector<const For *> &loops) {
  bool found = false;
  preOrderVisit(expr, [&](const Node &node) {
    for (const For *loop : loops) found |= &node == loop->loopVar.get();
  });
  return found;
}

// The fused loop runs over the product of the extents, which its type must hold: a product
// that wrapped would drop iterations. An error at the first loop where the constant extents'
// product overflows (symbolic extents are not checked).
llvm::Error checkFusedExtent(const std::vector<const For *> &loops, DataType dtype,
                             const std::vector<Located<LoopRV>> &rvs) {
  int64_t product = 1;
  for (size_t i = 0; i < loops.size(); ++i) {
    std::optional<int64_t> extent = asConstInt(loops[i]->extent);
    if (!extent) continue;
    std::optional<int64_t> next = exactIntArith(NodeKind::Mul, product, *extent);
    if (!next || !fitsIntType(*next, dtype))
      return diagnosticError(rvs[i].at, "fuse: the product of the extents up to '" + loops[i]->loopVar->name +
                                            "' overflows the fused loop's type (" + dtype.str() + ")");
    product = *next;
  }
  return llvm::Error::success();
}

}  // namespace

llvm::Expected<LoopRV> fuse(Schedule &sch, const std::vector<Located<LoopRV>> &rvs, bool preserveUnitIters,
                            ir::SourceLoc stepAt) {
  if (rvs.empty()) return diagnosticError(stepAt, "fuse: no loops given");

  std::vector<const For *> loops;
  StmtPath outerPath;
  for (size_t i = 0; i < rvs.size(); ++i) {
    SourceLoc at = rvs[i].at;
    llvm::Expected<StmtPath> path = sch.findLoop(rvs[i].value, at);
    if (!path) return path.takeError();
    const For *loop = path->back().as<For>();
    if (i == 0) {
      outerPath = *path;
    } else {
      bool inside = std::any_of(path->begin(), path->end(), [&](const Stmt &s) { return s.get() == loops.back(); });
      if (!inside)
        return diagnosticError(at, "fuse: the loop '" + loop->loopVar->name + "' is not inside '" +
                                       loops.back()->loopVar->name + "'");
      if (loops.back()->body.get() != loop)
        return diagnosticError(at, "fuse: the loop '" + loop->loopVar->name + "' is not the only child of '" +
                                       loops.back()->loopVar->name + "'");
    }
    if (llvm::Error error = checkPlainLoop(*loop, "fuse", at)) return error;
    if (usesAnyVar(loop->extent, loops))
      return diagnosticError(at, "fuse: the extent of '" + loop->loopVar->name + "' depends on an outer fused loop");
    loops.push_back(loop);
  }

  // TVM joins the loops' names; fusing fused loops again doubles the name each round, so a
  // name longer than kMaxJoinedNameLength (no schedule of TVM's tests comes near) is plain
  // "fused": names stay short however often a trace fuses and splits.
  constexpr size_t kMaxJoinedNameLength = 64;
  std::string name = loops[0]->loopVar->name;
  for (size_t i = 1; i < loops.size(); ++i) name += "_" + loops[i]->loopVar->name;
  if (name.size() > kMaxJoinedNameLength) name.clear();
  // The widest of the loops' types (TVM's fused variable has their largest bit width).
  DataType dtype = loops[0]->loopVar->dtype;
  for (const For *loop : loops)
    if (loop->loopVar->dtype.bits() > dtype.bits()) dtype = loop->loopVar->dtype;
  if (llvm::Error error = checkFusedExtent(loops, dtype, rvs)) return error;
  VarRef fused = makeVar(name.empty() ? "fused" : name + "_fused", dtype);
  VarMap replacements;
  Expr below = intImm(1, dtype);
  arith::Analyzer analyzer;  // TVM simplifies the fused extent with its analyzer
  for (size_t i = loops.size(); i-- > 0;) {
    const For &loop = *loops[i];
    Expr span = analyzer.simplify(mulExpr(below, loop.extent));
    replacements[loop.loopVar.get()] =
        isOne(loop.extent) ? intImm(0, dtype) : floorDivExpr(i == 0 ? Expr(fused) : floorModExpr(fused, span), below);
    below = span;
  }
  Stmt body = substitute(loops.back()->body, replacements);
  body = make<For>(fused, intImm(0, dtype), below, ForKind::Serial, body);
  std::vector<const For *> outer = loopsInScope(outerPath);
  outer.pop_back();
  body = simplifyBindings(body, outer, preserveUnitIters);
  sch.replace(rvs[0].value.func, outerPath, body);
  return LoopRV{rvs[0].value.func, fused};
}

}  // namespace vtac::passes::schedule
