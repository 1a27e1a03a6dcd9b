// TVM's stage-pipeline property of a scope (StagePipeline.h): write-after-read dependencies and
// the region cover of each consumer, per lowest common ancestor with its producers.
//
// The cover is proved, as TVM's BlockInfoCollector proves it: each producer's written region is
// bounded from below (TVM's EstimateRegionLowerBound: the indices must be an affine map of the
// relaxed loops that covers a box, or the producer counts as writing nothing), the consumer's
// read region from above (the same map when there is one, else interval relaxation), both are
// clipped to the buffer and the analyzer, knowing the loops of the scope, must prove the
// produced bounds enclose the consumed ones.
#include "StagePipeline.h"

#include "BlockTree.h"
#include "RegionRelax.h"
#include "BufferUtils.h"

#include <algorithm>
#include <map>

#include "vtac/ir/Arith.h"
#include "vtac/ir/StorageScope.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

using LoopDomain = std::map<const Var *, Range>;

const Block &blockAt(const StmtPath &path) { return *path.back().as<BlockRealize>()->block; }

// [min, max] of a buffer dimension, both inclusive (TVM's interval IntSet); null bounds: the
// whole line (an access whose bounds are not known). In a Region, nullopt: nothing.
struct Span {
  Expr min, max;
  bool bounded() const { return min != nullptr; }
};
using Region = std::vector<std::optional<Span>>;

// One digit `(var // lower) % extent` of a relaxed loop variable, times `scale` (TVM's
// IterSplitExpr). lower and extent are constants or symbolic sizes.
struct IterSplit {
  const Var *var;
  Expr lower, extent;
  int64_t scale;
  bool sameDigit(const IterSplit &other) const {
    return var == other.var && structuralEqual(lower, other.lower) && structuralEqual(extent, other.extent);
  }
};

// An index as digits of the relaxed loops plus a base free of them (TVM's IterSumExpr).
struct IterSum {
  std::vector<IterSplit> splits;
  Expr base;
};

bool mentionsAny(const Expr &e, const LoopDomain &loops) {
  bool found = false;
  preOrderVisit(e, [&](const Node &node) {
    if (const auto *var = node.as<Var>(); var && loops.count(var)) found = true;
  });
  return found;
}

// a / b when b provably divides a: two constants, a linear form by a constant, or a symbolic
// size that is a factor of a (`n * 32` by `n`); nullopt otherwise.
std::optional<Expr> exactQuotient(const Expr &a, const Expr &b) {
  std::optional<int64_t> divisor = asConstInt(b);
  if (divisor) return *divisor > 0 ? divideExactly(a, *divisor) : std::nullopt;
  if (structuralEqual(a, b)) return intImm(1, a->dtype);
  if (const auto *product = a.as<BinaryExpr>(); product && product->kind() == NodeKind::Mul) {
    if (std::optional<Expr> quotient = exactQuotient(product->a, b)) return simplify(mulExpr(*quotient, product->b));
    if (std::optional<Expr> quotient = exactQuotient(product->b, b)) return simplify(mulExpr(product->a, *quotient));
  }
  return std::nullopt;
}

// Whether x <= y is known without bounds: two constants, or the same expression.
bool atMost(const Expr &x, const Expr &y) {
  std::optional<int64_t> a = asConstInt(x), b = asConstInt(y);
  return a && b ? *a <= *b : structuralEqual(x, y);
}

// The digit `var // lower % modulus` (modulus absent: all of `var // lower`) of a loop starting
// at 0 whose extent the digit divides (so every digit value meets every value of the digits
// below it); nullopt otherwise.
std::optional<IterSplit> digitOf(const Expr &e, const Expr &lower, const Expr &modulus, const LoopDomain &loops,
                                 int64_t scale) {
  const auto *var = e.as<Var>();
  if (!var || !loops.count(var) || !isZero(loops.at(var).min)) return std::nullopt;
  std::optional<Expr> values = exactQuotient(loops.at(var).extent, lower);  // of var // lower
  if (!values) return std::nullopt;
  Expr extent = modulus ? modulus : *values;
  if (!exactQuotient(*values, extent)) return std::nullopt;
  return IterSplit{var, lower, extent, scale};
}

// Adds `e * scale` to `sum`; false when e is not a sum of digits of the relaxed loops and
// terms free of them.
bool addTerms(const Expr &e, int64_t scale, const LoopDomain &loops, IterSum &sum) {
  auto addBase = [&](const Expr &term) {
    sum.base = simplify(addExpr(sum.base, mulExpr(term, intImm(scale, term->dtype))));
    return true;
  };
  auto addDigit = [&](const std::optional<IterSplit> &digit) {
    if (digit && !isOne(digit->extent)) sum.splits.push_back(*digit);
    return digit.has_value();
  };
  if (!mentionsAny(e, loops)) return addBase(e);
  if (const auto *var = e.as<Var>()) {
    const Range &range = loops.at(var);
    addBase(range.min);  // var = min + a digit over [0, extent)
    return addDigit(IterSplit{var, intImm(1, e->dtype), range.extent, scale});
  }
  const auto *binary = e.as<BinaryExpr>();
  if (!binary) return false;
  std::optional<int64_t> rhs = asConstInt(binary->b);
  // A divisor or modulus: a positive constant or a size free of the relaxed loops.
  auto isFactor = [&](const Expr &factor) {
    std::optional<int64_t> value = asConstInt(factor);
    return value ? *value > 0 : !mentionsAny(factor, loops);
  };
  switch (binary->kind()) {
  case NodeKind::Add: return addTerms(binary->a, scale, loops, sum) && addTerms(binary->b, scale, loops, sum);
  case NodeKind::Sub: return addTerms(binary->a, scale, loops, sum) && addTerms(binary->b, -scale, loops, sum);
  case NodeKind::Mul:
    if (rhs) return addTerms(binary->a, scale * *rhs, loops, sum);
    if (std::optional<int64_t> lhs = asConstInt(binary->a)) return addTerms(binary->b, scale * *lhs, loops, sum);
    return false;
  case NodeKind::FloorDiv:
    return isFactor(binary->b) && addDigit(digitOf(binary->a, binary->b, nullptr, loops, scale));
  case NodeKind::FloorMod: {
    if (!isFactor(binary->b)) return false;
    const auto *div = binary->a.as<BinaryExpr>();
    if (div && div->kind() == NodeKind::FloorDiv)
      return isFactor(div->b) && addDigit(digitOf(div->a, div->b, binary->b, loops, scale));
    return addDigit(digitOf(binary->a, intImm(1, e->dtype), binary->b, loops, scale));
  }
  default: return false;
  }
}

std::optional<IterSum> iterSumOf(const Expr &e, const LoopDomain &loops) {
  IterSum sum{{}, intImm(0, e->dtype)};
  if (addTerms(e, 1, loops, sum)) return sum;
  // Digits of a sum of digits (`(f // 2 * 16 + k) // 16` with k < 16 is `f // 2`): the form the
  // analyzer leaves once it knows the loops' ranges, as TVM's iter map fuses them.
  arith::Analyzer analyzer;
  for (const auto &[var, range] : loops) analyzer.bind(VarRef(var), range);
  Expr simplified = analyzer.simplify(e);
  sum = IterSum{{}, intImm(0, e->dtype)};
  if (structuralEqual(simplified, e) || !addTerms(simplified, 1, loops, sum)) return std::nullopt;
  return sum;
}

// The digits of `sum` fused into one iterator `scale * f`, f in [0, extent) (TVM's TryFuseIters):
// ordered by scale, each scale must be the one below times that digit's extent (so only the
// largest digit may have a symbolic extent).
struct Fused {
  int64_t scale;
  Expr extent;
};
std::optional<Fused> fuse(std::vector<IterSplit> splits, DataType type) {
  if (splits.empty()) return Fused{1, intImm(1, type)};
  std::sort(splits.begin(), splits.end(), [](const IterSplit &a, const IterSplit &b) { return std::abs(a.scale) < std::abs(b.scale); });
  Fused fused{splits.front().scale, intImm(1, type)};
  int64_t expectedScale = fused.scale;
  for (size_t k = 0; k < splits.size(); ++k) {
    if (splits[k].scale != expectedScale) return std::nullopt;
    fused.extent = simplify(mulExpr(fused.extent, splits[k].extent));
    if (k + 1 == splits.size()) break;
    std::optional<int64_t> extent = asConstInt(splits[k].extent);
    if (!extent) return std::nullopt;
    expectedScale *= *extent;
  }
  return fused;
}

// A conjunct of a block predicate as a bound on a sum of digits: lower <= digits or
// digits <= upper (the other null), with the digits' scales positive.
struct Constraint {
  std::vector<IterSplit> digits;
  Expr lower, upper;
};

// The conjuncts of `predicate` that mention the relaxed loops as constraints; nullopt when one
// is not a comparison of integers (TVM's MatchBoundConstraints).
std::optional<std::vector<Constraint>> constraintsOf(const Expr &predicate, const LoopDomain &loops) {
  std::vector<Constraint> constraints;
  std::vector<Expr> pending{predicate};
  while (!pending.empty()) {
    Expr conjunct = pending.back();
    pending.pop_back();
    if (!mentionsAny(conjunct, loops)) continue;
    const auto *compare = conjunct.as<BinaryExpr>();
    if (!compare) return std::nullopt;
    if (compare->kind() == NodeKind::And) {
      pending.push_back(compare->a);
      pending.push_back(compare->b);
      continue;
    }
    // Everything as `difference <= 0` or `difference < 0`.
    NodeKind kind = compare->kind();
    bool flip = kind == NodeKind::GT || kind == NodeKind::GE;
    bool strict = kind == NodeKind::LT || kind == NodeKind::GT;
    if (!flip && kind != NodeKind::LT && kind != NodeKind::LE) return std::nullopt;
    if (!compare->a->dtype.isIntOrUInt() || !compare->b->dtype.isIntOrUInt()) return std::nullopt;
    std::optional<IterSum> difference = iterSumOf(flip ? subExpr(compare->b, compare->a) : subExpr(compare->a, compare->b), loops);
    if (!difference || difference->splits.empty()) return std::nullopt;
    // digits + base <= -strict: an upper bound on the digits, or a lower bound once negated.
    Expr bound = simplify(subExpr(intImm(strict ? -1 : 0, difference->base->dtype), difference->base));
    bool negative = difference->splits.front().scale < 0;
    Constraint constraint{difference->splits, nullptr, nullptr};
    if (negative) {
      for (IterSplit &split : constraint.digits) split.scale = -split.scale;
      constraint.lower = simplify(subExpr(intImm(0, bound->dtype), bound));
    } else {
      constraint.upper = bound;
    }
    constraints.push_back(std::move(constraint));
  }
  return constraints;
}

// Whether `constrained` is the fused iterator of `sum`: the same digits, scaled down by the
// fused scale.
bool isFusedIterator(const std::vector<IterSplit> &constrained, const IterSum &sum) {
  std::optional<Fused> fused = fuse(sum.splits, sum.base->dtype);
  if (sum.splits.empty() || !fused || constrained.size() != sum.splits.size()) return false;
  return std::all_of(sum.splits.begin(), sum.splits.end(), [&](const IterSplit &split) {
    return std::any_of(constrained.begin(), constrained.end(), [&](const IterSplit &other) {
      return split.sameDigit(other) && other.scale * fused->scale == split.scale;
    });
  });
}

// The maximum (kind Max) or minimum (Min) of `candidates`, nested operands of that kind
// flattened and structural duplicates dropped, so that bounds built from the same pieces
// compare equal.
Expr extremum(NodeKind kind, const std::vector<Expr> &candidates) {
  std::vector<Expr> distinct;
  std::vector<Expr> pending(candidates.rbegin(), candidates.rend());
  while (!pending.empty()) {
    Expr candidate = pending.back();
    pending.pop_back();
    if (const auto *nested = candidate.as<BinaryExpr>(); nested && nested->kind() == kind) {
      pending.push_back(nested->b);
      pending.push_back(nested->a);
      continue;
    }
    if (std::none_of(distinct.begin(), distinct.end(), [&](const Expr &seen) { return structuralEqual(seen, candidate); }))
      distinct.push_back(candidate);
  }
  Expr result = distinct.front();
  for (size_t k = 1; k < distinct.size(); ++k) result = makeBinary(kind, result, distinct[k]);
  return result;
}

// TVM's EstimateRegionStrictBound: the exact region `ranges` covers while the loops in `loops`
// run over their ranges and `predicate` holds, when the indices are independent digits of the
// loops, each dimension's digits fuse into one iterator whose steps the extent spans (so a
// strided write such as B[2 * i] has none), and each predicate conjunct on the loops bounds
// one dimension's fused iterator or loops no index uses; nullopt otherwise.
std::optional<Region> strictBound(const std::vector<Range> &ranges, const LoopDomain &loops, const Expr &predicate) {
  std::vector<IterSum> sums;
  std::vector<IterSplit> allDigits;
  for (const Range &range : ranges) {
    std::optional<IterSum> sum = iterSumOf(range.min, loops);
    if (!sum || !asConstInt(range.extent)) return std::nullopt;
    for (const IterSplit &split : sum->splits) {
      // Independence: no two digits of one loop overlap.
      for (const IterSplit &other : allDigits) {
        if (other.var != split.var) continue;
        auto below = [](const IterSplit &low, const IterSplit &high) { return atMost(simplify(mulExpr(low.lower, low.extent)), high.lower); };
        if (!below(other, split) && !below(split, other)) return std::nullopt;
      }
      allDigits.push_back(split);
    }
    sums.push_back(std::move(*sum));
  }
  std::vector<Constraint> constraints;
  if (predicate) {
    std::optional<std::vector<Constraint>> parsed = constraintsOf(predicate, loops);
    if (!parsed) return std::nullopt;
    constraints = std::move(*parsed);
  }
  // A conjunct that bounds some of a dimension's digits from above (`(a * 3 + b) * 4 + c < 8`, the
  // predicate of a split that overshoots) makes them one digit of that extent (TVM's predicated
  // iter mark), which then fuses with the dimension's other digits.
  std::vector<bool> consumed(constraints.size(), false);
  for (IterSum &sum : sums)
    for (size_t c = 0; c < constraints.size(); ++c) {
      const Constraint &constraint = constraints[c];
      std::optional<int64_t> upper = constraint.upper ? asConstInt(constraint.upper) : std::nullopt;
      if (consumed[c] || !upper || constraint.lower || constraint.digits.size() >= sum.splits.size()) continue;
      std::vector<IterSplit> rest = sum.splits;
      bool all = std::all_of(constraint.digits.begin(), constraint.digits.end(), [&](const IterSplit &digit) {
        auto it = std::find_if(rest.begin(), rest.end(), [&](const IterSplit &split) {
          return split.sameDigit(digit) && split.scale == digit.scale;
        });
        if (it == rest.end()) return false;
        rest.erase(it);
        return true;
      });
      std::optional<Fused> marked = all ? fuse(constraint.digits, sum.base->dtype) : std::nullopt;
      std::optional<int64_t> extent = marked ? asConstInt(marked->extent) : std::nullopt;
      if (!extent || *upper < 0 || *upper + 1 >= *extent) continue;
      IterSplit mark = constraint.digits.front();
      mark.scale = marked->scale;
      mark.extent = intImm(*upper + 1, sum.base->dtype);
      rest.push_back(mark);
      sum.splits = std::move(rest);
      consumed[c] = true;
    }
  Region region;
  for (size_t d = 0; d < ranges.size(); ++d) {
    const IterSum &sum = sums[d];
    int64_t extent = *asConstInt(ranges[d].extent);
    if (extent == 0) {
      region.push_back(std::nullopt);
      continue;
    }
    DataType type = sum.base->dtype;
    std::optional<Fused> fused = fuse(sum.splits, type);
    if (!fused || extent < std::abs(fused->scale)) return std::nullopt;
    // Candidates for the first and last value of the fused iterator: its range and the bounds
    // the predicate puts on it.
    std::vector<Expr> firsts{intImm(0, type)}, lasts{simplify(subExpr(fused->extent, intImm(1, type)))};
    for (const Constraint &constraint : constraints) {
      if (!isFusedIterator(constraint.digits, sum)) continue;
      if (constraint.lower) firsts.push_back(constraint.lower);
      if (constraint.upper) lasts.push_back(constraint.upper);
    }
    auto index = [&](const std::vector<Expr> &values, int64_t offset) {
      std::vector<Expr> indices;
      for (const Expr &value : values)
        indices.push_back(simplify(addExpr(sum.base, addExpr(mulExpr(intImm(fused->scale, type), value), intImm(offset, type)))));
      return indices;
    };
    bool ascending = fused->scale > 0;
    region.push_back(Span{extremum(NodeKind::Max, index(ascending ? firsts : lasts, 0)),
                          extremum(NodeKind::Min, index(ascending ? lasts : firsts, extent - 1))});
  }
  // A conjunct on the loops must bound a whole dimension or only loops no index uses.
  for (size_t c = 0; c < constraints.size(); ++c) {
    const Constraint &constraint = constraints[c];
    if (consumed[c]) continue;
    bool bindsDimension = std::any_of(sums.begin(), sums.end(), [&](const IterSum &sum) { return isFusedIterator(constraint.digits, sum); });
    bool touchesIndex = std::any_of(constraint.digits.begin(), constraint.digits.end(), [&](const IterSplit &split) {
      return std::any_of(allDigits.begin(), allDigits.end(), [&](const IterSplit &digit) { return digit.var == split.var; });
    });
    if (!bindsDimension && touchesIndex) return std::nullopt;
  }
  return region;
}

// The bindings of the block at `path` substituted into `region`.
std::vector<Range> unbound(const StmtPath &path, const BufferRegion &region) {
  const BlockRealize &realize = *path.back().as<BlockRealize>();
  VarMap bindings;
  for (size_t i = 0; i < realize.iterValues.size(); ++i) bindings[realize.block->iterVars[i]->var.get()] = realize.iterValues[i];
  std::vector<Range> ranges;
  for (const Range &range : region.region) ranges.push_back(Range{substitute(range.min, bindings), substitute(range.extent, bindings)});
  return ranges;
}

// TVM's CanRelaxStorageUnderThread: warp memory is relaxed over threadIdx.x only, other
// scopes over threads of a rank at least the storage's.
bool relaxesStorage(const std::string &scope, const std::string &threadTag) {
  if (storageRank(scope) == 2) return threadTag == "threadIdx.x";
  return storageRank(scope) <= threadRank(threadTag);
}

// The loops the access of the block at `path` to `buffer` is relaxed over when seen from the
// ancestor at position `depth` (TVM's LoopDomainOfSRefTreePath): the loops below it, and for a
// buffer that is not global the thread loops above it whose threads share the buffer.
LoopDomain relaxedLoops(const StmtPath &path, size_t depth, const Buffer &buffer) {
  LoopDomain loops;
  for (size_t k = 0; k < path.size(); ++k) {
    const auto *loop = path[k].as<For>();
    if (!loop) continue;
    bool sharedThread = storageRank(buffer.scope()) != 0 && loop->threadBinding && relaxesStorage(buffer.scope(), loop->threadBinding->threadTag);
    if (k > depth || sharedThread) loops[loop->loopVar.get()] = Range{loop->min, loop->extent};
  }
  return loops;
}

// A lower bound of what the block at `path` writes to `write`'s buffer (TVM's
// AnalyzeRegionLowerBound): nothing in every dimension when the strict bound is not known.
Region producedRegion(const StmtPath &path, size_t depth, const BufferRegion &write) {
  const BlockRealize &realize = *path.back().as<BlockRealize>();
  std::optional<Region> region = strictBound(unbound(path, write), relaxedLoops(path, depth, *write.buffer), realize.predicate);
  return region ? *region : Region(write.region.size(), std::nullopt);
}

// An upper bound of what the block at `path` reads of `read`'s buffer (TVM's
// AnalyzeRegionUpperBound): the strict bound, else each dimension relaxed on its own (bounds
// that are not known stay null).
Region consumedRegion(const StmtPath &path, size_t depth, const BufferRegion &read) {
  const BlockRealize &realize = *path.back().as<BlockRealize>();
  LoopDomain loops = relaxedLoops(path, depth, *read.buffer);
  std::vector<Range> ranges = unbound(path, read);
  if (std::optional<Region> strict = strictBound(ranges, loops, realize.predicate)) return *strict;
  Region region;
  arith::Analyzer relaxing;
  for (const auto &[var, range] : loops) relaxing.bind(VarRef(var), range);
  for (const Range &range : ranges) {
    if (isZero(range.extent)) {
      region.push_back(std::nullopt);
      continue;
    }
    Interval interval = relaxRange(range, loops);
    if (interval.extent) {
      region.push_back(Span{interval.min, simplify(addExpr(interval.min, intImm(*interval.extent - 1, interval.min->dtype)))});
      continue;
    }
    arith::IntBound low = relaxing.constIntBound(range.min);
    arith::IntBound high = relaxing.constIntBound(simplify(subExpr(addExpr(range.min, range.extent), intImm(1, range.min->dtype))));
    if (low.min == arith::IntBound::kNegInf || high.max == arith::IntBound::kPosInf) {
      region.push_back(Span{nullptr, nullptr});
      continue;
    }
    region.push_back(Span{intImm(low.min, range.min->dtype), intImm(high.max, range.min->dtype)});
  }
  return region;
}

// TVM's UnionLowerBound of one dimension: starting from the first producer's span, a later one
// is merged only when provably adjacent or overlapping (otherwise it is left out).
std::optional<Span> uniteLowerBounds(const std::vector<std::optional<Span>> &spans) {
  arith::Analyzer analyzer;  // as TVM's: no loop bounds
  std::optional<Span> united;
  for (const std::optional<Span> &span : spans) {
    if (!span) continue;
    if (!united) {
      united = span;
      continue;
    }
    if (analyzer.canProve(makeBinary(NodeKind::LE, span->min, addExpr(united->max, intImm(1, united->max->dtype)))) &&
        analyzer.canProve(makeBinary(NodeKind::LE, united->min, addExpr(span->max, intImm(1, span->max->dtype)))))
      united = Span{analyzer.simplify(makeBinary(NodeKind::Min, united->min, span->min)),
                    analyzer.simplify(makeBinary(NodeKind::Max, united->max, span->max))};
  }
  return united;
}

// TVM's ProducerCoversConsumer for one dimension of `size` elements: both spans clipped to the
// buffer, the produced one must provably enclose the consumed one.
bool provablyCovers(arith::Analyzer &analyzer, const std::optional<Span> &produced, const std::optional<Span> &consumed, const Expr &size) {
  if (!produced) return false;
  if (!consumed) return true;
  if (!consumed->bounded()) return false;
  auto clip = [&](const Span &span) {
    DataType type = span.min->dtype;
    return Span{analyzer.simplify(extremum(NodeKind::Max, {span.min, intImm(0, type)})),
                analyzer.simplify(extremum(NodeKind::Min, {span.max, simplify(subExpr(castExpr(type, size), intImm(1, type)))}))};
  };
  auto provablyAtMost = [&](const Expr &a, const Expr &b) {
    return structuralEqual(a, b) || analyzer.canProve(makeBinary(NodeKind::LE, a, b));
  };
  Span have = clip(*produced), want = clip(*consumed);
  return provablyAtMost(have.min, want.min) && provablyAtMost(want.max, have.max);
}

// Position in both paths of their lowest common ancestor.
size_t commonAncestorDepth(const StmtPath &a, const StmtPath &b) {
  size_t depth = 0;
  while (depth + 1 < a.size() && depth + 1 < b.size() && a[depth + 1] == b[depth + 1]) ++depth;
  return depth;
}

// Why the consumer at children[j] reads a region of `read`'s buffer that its producers (the
// earlier children writing it) do not provably cover, or an empty string. `analyzer` knows the
// loops of the scope.
std::string whyNotCovered(arith::Analyzer &analyzer, const std::vector<StmtPath> &children, size_t j, const BufferRegion &read) {
  // Per common ancestor depth, per dimension: lower bounds of what the producers there write.
  std::map<size_t, std::vector<std::vector<std::optional<Span>>>> producedUnder;
  for (size_t i = 0; i < j; ++i)
    for (const BufferRegion &write : blockAt(children[i]).writes) {
      if (write.buffer != read.buffer) continue;
      size_t depth = commonAncestorDepth(children[i], children[j]);
      Region region = producedRegion(children[i], depth, write);
      std::vector<std::vector<std::optional<Span>>> &produced = producedUnder[depth];
      produced.resize(region.size());
      for (size_t d = 0; d < region.size(); ++d) produced[d].push_back(region[d]);
    }
  // Innermost ancestor first, as TVM walks up from the consumer.
  for (auto it = producedUnder.rbegin(); it != producedUnder.rend(); ++it) {
    const auto &[depth, produced] = *it;
    Region consumed = consumedRegion(children[j], depth, read);
    for (size_t d = 0; d < consumed.size(); ++d) {
      if (provablyCovers(analyzer, uniteLowerBounds(produced[d]), consumed[d], read.buffer->shape[d])) continue;
      const For *loop = nullptr;  // the innermost loop around both, if any
      for (size_t k = 0; k <= depth; ++k)
        if (const auto *outer = children[j][k].as<For>()) loop = outer;
      return "the block '" + blockAt(children[j]).name + "' reads a part of '" + read.buffer->name +
             "' that the blocks before it " +
             (loop ? "do not provably write in the same iteration of the loop '" + loop->loopVar->name + "'"
                   : std::string("in the scope do not provably write")) +
             " (dimension " + std::to_string(d) + "; its scope is not a stage pipeline)";
    }
  }
  return "";
}

}  // namespace

std::string whyNotStagePipeline(const Block &scope) {
  std::vector<StmtPath> children = childBlockPaths(scope.body);
  arith::Analyzer analyzer;
  for (const StmtPath &path : children)
    for (const Stmt &stmt : path)
      if (const auto *loop = stmt.as<For>()) analyzer.bind(loop->loopVar, Range{loop->min, loop->extent});
  for (size_t j = 0; j < children.size(); ++j) {
    const Block &block = blockAt(children[j]);
    for (const BufferRegion &write : block.writes)
      for (size_t i = 0; i < j; ++i)
        if (accessesBuffer(blockAt(children[i]), write.buffer.get(), /*writes=*/false))
          return "the block '" + block.name + "' writes '" + write.buffer->name + "', which the block '" +
                 blockAt(children[i]).name +
                 "' before it reads (a write-after-read dependency: its scope is not a stage pipeline)";
    for (const BufferRegion &read : block.reads)
      if (std::string why = whyNotCovered(analyzer, children, j, read); !why.empty()) return why;
  }
  return "";
}

}  // namespace vtac::passes::schedule
