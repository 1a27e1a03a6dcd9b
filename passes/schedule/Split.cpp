// split(loop, factors, preserve_unit_iters=True, disable_predication=False): the loop becomes a
// nest of loops `<name>_0`, `<name>_1`, ... with the given extents (one factor may be None: it
// is inferred as the ceiling of extent / product of the others, also for a symbolic extent); the
// others' product must be at least the extent. The old variable becomes
// `((l_0 * f_1 + l_1) * f_2 + l_2) ...`; when the analyzer cannot prove that below the extent,
// the blocks below get the predicate `<that> < extent` (unless disable_predication). Block
// bindings are then simplified as TVM's IterMapSimplify does. The loop must start at 0 and carry
// neither annotations nor a thread binding.
#include "LoopUtils.h"
#include "Primitive.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/arith/Analyzer.h"

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

llvm::Expected<std::vector<RV>> applySplit(Schedule &sch, StepArgs &args) {
  llvm::Expected<LoopRV> rv = args.loop("loop");
  if (!rv) return rv.takeError();
  llvm::Expected<bool> preserveUnitIters = args.boolean("preserve_unit_iters");
  if (!preserveUnitIters) return preserveUnitIters.takeError();
  llvm::Expected<bool> disablePredication = args.boolean("disable_predication");
  if (!disablePredication) return disablePredication.takeError();
  llvm::Expected<StmtPath> path = sch.findLoop(*rv, args.at("loop"));
  if (!path) return path.takeError();
  const For &loop = *path->back().as<For>();
  if (llvm::Error error = checkPlainLoop(loop, "split", args.at("loop"))) return error;

  // Factors: literals, sampled values, at most one None.
  const TraceValue &list = args.value("factors");
  if (list.kind != TraceValue::Kind::List || list.items.size() < 2)
    return diagnosticError(args.at("factors"), "split: factors must be a list of at least two factors");
  if (llvm::Error error = checkNestDepth(path->size() + list.items.size() - 1, "split", args.at("loop"))) return error;
  DataType dtype = loop.loopVar->dtype;
  std::vector<std::optional<int64_t>> factors;
  std::optional<size_t> inferred;
  int64_t known = 1;
  for (size_t i = 0; i < list.items.size(); ++i) {
    const TraceValue &item = list.items[i];
    std::optional<RV> sampled;
    if (item.kind == TraceValue::Kind::Name) {
      llvm::Expected<RV> rv = args.resolve(item);
      if (!rv) return rv.takeError();
      sampled = *rv;
    }
    if (item.kind == TraceValue::Kind::None || (sampled && std::holds_alternative<NoneRV>(*sampled))) {
      if (inferred) return diagnosticError(item.loc, "split: at most one factor can be None");
      inferred = i;
      factors.push_back(std::nullopt);
      continue;
    }
    int64_t factor;
    if (item.kind == TraceValue::Kind::Int) {
      factor = item.intValue;
    } else if (sampled) {
      if (!std::holds_alternative<int64_t>(*sampled))
        return diagnosticError(item.loc, "split: the factor " + describeTraceName(item.text) + " is not a sampled value");
      factor = std::get<int64_t>(*sampled);
    } else {
      return diagnosticError(item.loc, "split: a factor is an integer, a sampled value or None");
    }
    if (factor <= 0) return diagnosticError(item.loc, "split: factor " + std::to_string(factor) + " is not positive");
    llvm::Expected<int64_t> product = productInLoopType(known, factor, loop, item.loc, "factor " + std::to_string(factor));
    if (!product) return product.takeError();
    known = *product;
    factors.push_back(factor);
  }
  std::vector<Expr> extents;
  for (const auto &factor : factors) extents.push_back(factor ? intImm(*factor, dtype) : Expr());
  arith::Analyzer analyzer;
  llvm::Expected<PrimFuncRef> func = sch.function(rv->func, args.at("loop"));
  if (!func) return func.takeError();
  arith::boundShapeVariables(analyzer, **func);
  if (inferred) {
    llvm::Expected<Expr> extent = inferredExtent(loop, known, list.items[*inferred].loc);
    if (!extent) return extent.takeError();
    extents[*inferred] = analyzer.simplify(*extent);
  } else if (!analyzer.canProve(makeBinary(NodeKind::GE, intImm(known, dtype), loop.extent))) {
    return diagnosticError(args.at("factors"), "split: the product of the factors (" + std::to_string(known) +
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
  Expr inBounds = makeBinary(NodeKind::LT, value, loop.extent, args.at("factors"));
  if (!*disablePredication && !analyzer.canProve(inBounds, arith::Analyzer::ProofStrength::SymbolicBound))
    body = PredicateAppender(inBounds).visitStmt(body);
  for (size_t i = factors.size(); i-- > 0;)
    body = make<For>(newVars[i], intImm(0, dtype), extents[i], ForKind::Serial, body);
  std::vector<const For *> outer = loopsInScope(*path);
  outer.pop_back();
  body = simplifyBindings(body, outer, *preserveUnitIters);
  sch.replace(rv->func, *path, body);

  std::vector<RV> results;
  for (const VarRef &var : newVars) results.push_back(LoopRV{rv->func, var});
  return results;
}

}  // namespace vtac::passes::schedule
