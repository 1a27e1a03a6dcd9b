#include "AffineInverse.h"

#include <algorithm>
#include <optional>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Printer.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// An output `(mark // lower) % modulus` (no modulus: the quotient itself).
struct Split {
  Expr mark;
  int64_t lower = 1;
  std::optional<int64_t> modulus;
};

// Peels the constant floordivs and floormods off an output, folding `x // a // b` into
// `x // (a * b)`, `x % m // c` into `x // c % (m / c)` and `x % m % c` into `x % c` (c dividing
// m); nullopt for a modulus or divisor that does not divide the one inside it.
std::optional<Split> asSplit(const Expr &e) {
  const auto *binary = e.as<BinaryExpr>();
  bool splits = binary && (binary->kind() == NodeKind::FloorDiv || binary->kind() == NodeKind::FloorMod);
  std::optional<int64_t> c = splits ? asConstInt(binary->b) : std::nullopt;
  if (!c || *c <= 0) return Split{e, 1, std::nullopt};
  std::optional<Split> split = asSplit(binary->a);
  if (!split || (split->modulus && *split->modulus % *c != 0)) return std::nullopt;
  if (binary->kind() == NodeKind::FloorMod) {
    split->modulus = *c;
  } else {
    if (split->modulus) split->modulus = *split->modulus / *c;
    split->lower *= *c;
  }
  return split;
}

// A fused sum of inputs plus a constant, and the outputs that split it.
struct Mark {
  std::vector<std::pair<size_t, int64_t>> terms;  // (input, coefficient), coefficients decreasing
  int64_t base = 0;
  struct Use {
    size_t output;
    int64_t lower;
    std::optional<int64_t> modulus;
  };
  std::vector<Use> uses;
};

std::string describe(size_t output, const Expr &e) {
  return "output " + std::to_string(output) + " (" + printExpr(e) + ")";
}

llvm::Error notInvertible(const std::string &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
}

// The marks of the outputs, in the order of the first output using each.
llvm::Expected<std::vector<Mark>> detectMarks(const std::vector<Expr> &outputs, const std::vector<AffineInput> &inputs) {
  std::vector<VarRef> vars;
  for (const AffineInput &input : inputs) vars.push_back(input.var);
  std::vector<Mark> marks;
  std::vector<std::optional<size_t>> markOf(inputs.size());
  for (size_t k = 0; k < outputs.size(); ++k) {
    std::optional<Split> split = asSplit(outputs[k]);
    std::optional<LinearEquation> linear = split ? detectLinearEquation(split->mark, vars) : std::nullopt;
    std::optional<int64_t> base = linear ? asConstInt(linear->base) : std::nullopt;
    if (!base)
      return notInvertible(describe(k, outputs[k]) + " is not `(x // c) % d` of a sum of indices times constants");
    Mark mark;
    mark.base = *base;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (linear->coeffs[i] != 0) mark.terms.push_back({i, linear->coeffs[i]});
    if (mark.terms.empty()) continue;  // a constant output
    std::stable_sort(mark.terms.begin(), mark.terms.end(), [](auto &a, auto &b) { return a.second > b.second; });
    std::optional<size_t> known;
    for (const auto &[input, coeff] : mark.terms)
      if (markOf[input]) known = markOf[input];
    if (known && (marks[*known].terms != mark.terms || marks[*known].base != mark.base))
      return notInvertible(describe(k, outputs[k]) + " combines its indices otherwise than output " +
                           std::to_string(marks[*known].uses.front().output) + " does");
    if (!known) {
      int64_t stride = 1;
      for (size_t t = mark.terms.size(); t-- > 0;) {
        if (mark.terms[t].second != stride)
          return notInvertible(describe(k, outputs[k]) + " does not fuse its indices: '" +
                               inputs[mark.terms[t].first].var->name + "' has the coefficient " +
                               std::to_string(mark.terms[t].second) + " where " + std::to_string(stride) +
                               " fuses it with the indices after it");
        stride *= inputs[mark.terms[t].first].extent;
      }
      known = marks.size();
      for (const auto &[input, coeff] : mark.terms) markOf[input] = known;
      marks.push_back(std::move(mark));
    }
    marks[*known].uses.push_back({k, split->lower, split->modulus});
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!markOf[i] && inputs[i].extent != 1)
      return notInvertible("no output uses the index '" + inputs[i].var->name + "'");
  return marks;
}

// The extent of the fused sum of a mark's inputs.
int64_t fusedExtent(const Mark &mark, const std::vector<AffineInput> &inputs) {
  return mark.terms.front().second * inputs[mark.terms.front().first].extent;
}

// How a mark [base, base + extent) is padded to whole periods (TVM's padding factor: the
// outermost split's lower): `left` values below it, and the constant the outermost output adds.
struct PaddedMark {
  int64_t period, left, outerBase, quotients;
};
PaddedMark paddedMark(const Mark &mark, int64_t extent) {
  int64_t period = mark.uses.back().lower;
  int64_t left = ((mark.base % period) + period) % period;
  return {period, left, (mark.base - left) / period, (extent + left + period - 1) / period};
}

// Checks that a mark's splits tile it (lowers 1, e_0, e_0 * e_1, ...) after ordering them by
// lower; the outermost split's modulus must leave its quotients unchanged.
llvm::Error checkTiling(Mark &mark, const std::vector<Expr> &outputs, int64_t extent) {
  std::sort(mark.uses.begin(), mark.uses.end(), [](auto &a, auto &b) { return a.lower < b.lower; });
  int64_t covered = 1;
  for (size_t s = 0; s < mark.uses.size(); ++s) {
    const Mark::Use &use = mark.uses[s];
    if (use.lower != covered)
      return notInvertible(describe(use.output, outputs[use.output]) + " divides by " + std::to_string(use.lower) +
                           " where the splits of its indices below it cover " + std::to_string(covered) +
                           " values");
    if (s + 1 == mark.uses.size()) break;
    if (!use.modulus)
      return notInvertible(describe(use.output, outputs[use.output]) + " overlaps output " +
                           std::to_string(mark.uses[s + 1].output));
    covered *= *use.modulus;
  }
  const Mark::Use &outer = mark.uses.back();
  PaddedMark padded = paddedMark(mark, extent);
  if (outer.modulus && (padded.outerBase < 0 || padded.outerBase + padded.quotients > *outer.modulus))
    return notInvertible(describe(outer.output, outputs[outer.output]) + " wraps around: its modulus " +
                         std::to_string(*outer.modulus) + " is below the " + std::to_string(padded.quotients) +
                         " values of the quotient");
  return llvm::Error::success();
}

Expr conjunction(Expr a, Expr b) { return makeBinary(NodeKind::And, std::move(a), std::move(b)); }

Expr disjunction(const Expr &a, Expr b) { return a ? makeBinary(NodeKind::Or, a, std::move(b)) : b; }

}  // namespace

llvm::Expected<AffineMapInverse> inverseAffineMap(const std::vector<Expr> &outputs, const std::vector<AffineInput> &inputs,
                                                  const std::vector<Expr> &outputValues) {
  llvm::Expected<std::vector<Mark>> marks = detectMarks(outputs, inputs);
  if (!marks) return marks.takeError();
  AffineMapInverse result;
  for (const AffineInput &input : inputs)
    if (input.extent == 1) result.inverse[input.var.get()] = intImm(0, input.var->dtype);
  for (Mark &mark : *marks) {
    int64_t extent = fusedExtent(mark, inputs);
    if (llvm::Error error = checkTiling(mark, outputs, extent)) return error;
    const PaddedMark range = paddedMark(mark, extent);
    const int64_t period = range.period, left = range.left;

    // x' = fused + left from the output values, the last output's part first.
    std::vector<Mark::Use> byOutput = mark.uses;
    std::sort(byOutput.begin(), byOutput.end(), [](auto &a, auto &b) { return a.output > b.output; });
    Expr padded;
    for (const Mark::Use &use : byOutput) {
      Expr value = outputValues[use.output];
      if (use.lower == period) value = value - range.outerBase;
      Expr part = value * use.lower;
      padded = padded ? padded + part : part;
    }
    Expr fused = padded - left;
    for (size_t t = 0; t < mark.terms.size(); ++t) {
      const auto &[input, coeff] = mark.terms[t];
      Expr value = floorDivExpr(fused, intImm(coeff, fused->dtype));
      if (t > 0) value = floorModExpr(value, intImm(inputs[input].extent, value->dtype));
      result.inverse[inputs[input].var.get()] = value;
    }

    int64_t rightEdge = extent + left;
    if (left == 0 && rightEdge % period == 0) continue;
    // TVM's predicate on the padded mark x', its source rebuilt from the inverse.
    Expr source;
    for (const auto &[input, coeff] : mark.terms) {
      Expr term = result.inverse[inputs[input].var.get()] * coeff;
      source = source ? source + term : term;
    }
    source = source + left;
    Expr quotient = floorDivExpr(source, intImm(period, source->dtype));
    Expr remainder = floorModExpr(source, intImm(period, source->dtype));
    Expr markPadding;
    if (left != 0)
      markPadding = conjunction(makeBinary(NodeKind::EQ, quotient, intImm(0, quotient->dtype)),
                                makeBinary(NodeKind::LT, remainder, intImm(left, remainder->dtype)));
    if (rightEdge % period != 0)
      markPadding = disjunction(
          markPadding, conjunction(makeBinary(NodeKind::EQ, quotient, intImm(rightEdge / period, quotient->dtype)),
                                   makeBinary(NodeKind::GE, remainder, intImm(rightEdge % period, remainder->dtype))));
    result.padding = disjunction(result.padding, markPadding);
  }
  return result;
}

}  // namespace vtac::passes::schedule
