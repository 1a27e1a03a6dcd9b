// split(loop, factors, preserve_unit_iters=True, disable_predication=False): the loop becomes a
// nest of loops `<name>_0`, `<name>_1`, ... with the given extents (one factor may be None: it
// is inferred as the ceiling of extent / product of the others, also for a symbolic extent); the
// others' product must be at least the extent. The old variable becomes
// `((l_0 * f_1 + l_1) * f_2 + l_2) ...`; when the analyzer cannot prove that below the extent,
// the blocks below get the predicate `<that> < extent` (unless disable_predication). Block
// bindings are then simplified as TVM's IterMapSimplify does. The loop must start at 0 and carry
// neither annotations nor a thread binding.
#include "LoopUtils.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

class PredicateAppender : public StmtExprMutator {
public:
  explicit PredicateAppender(Expr predicate) : predicate_(std::move(predicate)) {}
  Expr visitExpr(const Expr &e) override { return e; }
  Stmt visitBlockRealize(const BlockRealize &op) override {
    auto *copy = copyNode(op);
    copy->predicate = op.predicate ? makeBinary(NodeKind::And, op.predicate, predicate_) : predicate_;
    return Stmt(copy);
  }

private:
  Expr predicate_;
};

// known * factor, which the loop's type must hold: the loops' values are computed in it, and a
// product that wrapped would give loops that never run or miss iterations.
// `what` names the factor ("factor 4").
llvm::Expected<int64_t> productInLoopType(int64_t known, int64_t factor, const For &loop, SourceLoc at,
                                          const std::string &what) {
  DataType dtype = loop.loopVar->dtype;
  std::string type = "the type of '" + loop.loopVar->name + "' (" + dtype.str() + ")";
  if (!fitsIntType(factor, dtype)) return diagnosticError(at, "split: " + what + " does not fit " + type);
  std::optional<int64_t> product = exactIntArith(NodeKind::Mul, known, factor);
  if (!product || !fitsIntType(*product, dtype))
    return diagnosticError(at, "split: the product of the factors with " + what + " overflows " + type);
  return *product;
}

// The None factor: ceil(extent / known), as TVM's `(extent + known - 1) // known`. A constant
// extent is divided here, where `extent + known - 1` cannot overflow, and the loops' product
// must fit the loop's type too.
llvm::Expected<Expr> inferredExtent(const For &loop, int64_t known, SourceLoc at) {
  DataType dtype = loop.loopVar->dtype;
  std::optional<int64_t> extent = asConstInt(loop.extent);
  if (!extent) return floorDivExpr(addExpr(loop.extent, intImm(known - 1, dtype)), intImm(known, dtype));
  int64_t inferred = *extent <= 0 ? 0 : (*extent - 1) / known + 1;
  llvm::Expected<int64_t> product = productInLoopType(known, inferred, loop, at, "the inferred factor " + std::to_string(inferred));
  if (!product) return product.takeError();
  return intImm(inferred, dtype);
}

}  // namespace

llvm::Expected<std::vector<LoopRV>> split(Schedule &sch, const Located<LoopRV> &loopRV,
                                          const Located<std::vector<Located<SplitFactor>>> &factorList,
                                          bool preserveUnitIters, bool disablePredication) {
  const std::string &funcName = loopRV.value.func;
  llvm::Expected<StmtPath> path = sch.findLoop(loopRV.value, loopRV.at);
  if (!path) return path.takeError();
  const For &loop = *path->back().as<For>();
  if (llvm::Error error = checkPlainLoop(loop, "split", loopRV.at)) return error;

  // Factors: positive integers, at most one None.
  const std::vector<Located<SplitFactor>> &given = factorList.value;
  if (given.size() < 2)
    return diagnosticError(factorList.at, "split: factors must be a list of at least two factors");
  if (llvm::Error error = checkNestDepth(path->size() + given.size() - 1, "split", loopRV.at)) return error;
  DataType dtype = loop.loopVar->dtype;
  std::optional<size_t> inferred;
  int64_t known = 1;
  for (size_t i = 0; i < given.size(); ++i) {
    const Located<SplitFactor> &factor = given[i];
    if (!factor.value) {
      if (inferred) return diagnosticError(factor.at, "split: at most one factor can be None");
      inferred = i;
      continue;
    }
    if (*factor.value <= 0)
      return diagnosticError(factor.at, "split: factor " + std::to_string(*factor.value) + " is not positive");
    llvm::Expected<int64_t> product =
        productInLoopType(known, *factor.value, loop, factor.at, "factor " + std::to_string(*factor.value));
    if (!product) return product.takeError();
    known = *product;
  }
  std::vector<Expr> extents;
  for (const Located<SplitFactor> &factor : given) extents.push_back(factor.value ? intImm(*factor.value, dtype) : Expr());
  arith::Analyzer analyzer;
  llvm::Expected<PrimFuncRef> func = sch.function(funcName, loopRV.at);
  if (!func) return func.takeError();
  arith::boundShapeVariables(analyzer, **func);
  if (inferred) {
    llvm::Expected<Expr> extent = inferredExtent(loop, known, given[*inferred].at);
    if (!extent) return extent.takeError();
    extents[*inferred] = analyzer.simplify(*extent);
  } else if (!analyzer.canProve(makeBinary(NodeKind::GE, intImm(known, dtype), loop.extent))) {
    return diagnosticError(factorList.at, "split: the product of the factors (" + std::to_string(known) +
                                              ") is less than the extent of '" + loop.loopVar->name + "' (" +
                                              printExpr(loop.extent) + ")");
  }

  std::vector<VarRef> newVars;
  Expr value;
  for (size_t i = 0; i < extents.size(); ++i) {
    newVars.push_back(makeVar(loop.loopVar->name + "_" + std::to_string(i), dtype));
    analyzer.bind(newVars.back(), rangeFromExtent(extents[i]));
    value = value ? addExpr(mulExpr(value, extents[i]), newVars.back()) : Expr(newVars.back());
  }
  Stmt body = substitute(loop.body, VarMap{{loop.loopVar.get(), value}});
  Expr inBounds = makeBinary(NodeKind::LT, value, loop.extent, factorList.at);
  if (!disablePredication && !analyzer.canProve(inBounds, arith::Analyzer::ProofStrength::SymbolicBound))
    body = PredicateAppender(inBounds).visitStmt(body);
  for (size_t i = extents.size(); i-- > 0;)
    body = make<For>(newVars[i], intImm(0, dtype), extents[i], ForKind::Serial, body);
  std::vector<const For *> outer = loopsInScope(*path);
  outer.pop_back();
  body = simplifyBindings(body, outer, preserveUnitIters);
  sch.replace(funcName, *path, body);

  std::vector<LoopRV> results;
  for (const VarRef &var : newVars) results.push_back(LoopRV{funcName, var});
  return results;
}

}  // namespace vtac::passes::schedule
