// reverse_compute_inline(block): the consumer block's computation moves into its only producer,
// which then writes the consumer's buffer directly; the consumer block (with the loops that hold
// only it) and the intermediate buffer disappear. The consumer must be a single store without
// init or predicate whose loads of the intermediate B are all the same, B[f(v)], with f an affine
// map of its iterators that is one-to-one into B (TVM's DetectIterMap: `B[v0, v1]`,
// `B[v0 * 16 + v1, v2]`, `B[f // 128, f % 128]` with f a fused index, and splits of an iterator
// over dimensions that are not adjacent, `B[i // 16, j // 16, i % 16, j % 16]`); the producer
// must be the only one, a single store `B[p(u)] = expr` (or one under `if cond:` without else),
// whose iterators cover the consumer's (TVM's CheckConsumerCovered); both blocks must be complete,
// B the only buffer of the scope the consumer reads, allocated by the scope block (the producer is
// no output block) and read by the consumer only. The checks run in TVM's order.
// The consumer's iterators become f's inverse at p(u) (TVM's InverseAffineIterMap), substituted
// unsimplified as TVM does. When the consumer reads only part of B, the producer gets the
// predicate that its iteration is in that part (TVM's BuildInlinedConsumerPredicate), which
// replaces a predicate the producer had, as in TVM; a producer's `if` stays around the inlined
// store unless that predicate is needed and differs from its condition, which then joins the
// predicate. A producer with an init (complete by its signature: it does not list the
// intermediate among its reads) stores the consumer's value in init and update alike, its update
// reading the consumer's output where it read the intermediate, when the consumer copies the
// element unchanged (whyNotInlinableReduction). The producer keeps its name, loops and
// iterators; its regions are re-inferred.
#include <numeric>

#include "AffineInverse.h"
#include "BlockAnalysis.h"
#include "BlockTree.h"
#include "RegionRelax.h"
#include "BufferUtils.h"
#include "StagePipeline.h"

#include "vtac/passes/schedule/Primitives.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/arith/Analyzer.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// The consumer's loads of the intermediate, replaced by the producer's value.
class LoadReplacer : public StmtExprMutator {
public:
  LoadReplacer(const Buffer *intermediate, Expr value) : intermediate_(intermediate), value_(std::move(value)) {}
  Expr visitBufferLoad(const BufferLoad &op) override {
    if (op.buffer.get() == intermediate_) return value_;
    return StmtExprMutator::visitBufferLoad(op);
  }

private:
  const Buffer *intermediate_;
  Expr value_;
};

// The producer's body replaced by the inlined store; the intermediate's allocation dropped.
class ProducerRewriter : public StmtExprMutator {
public:
  ProducerRewriter(const std::string &producer, Stmt body, Stmt init, Expr predicate, const Buffer *intermediate)
      : producer_(producer), body_(std::move(body)), init_(std::move(init)), predicate_(std::move(predicate)),
        intermediate_(intermediate) {}
  Expr visitExpr(const Expr &e) override { return e; }
  Stmt visitBlockRealize(const BlockRealize &op) override {
    Stmt visited = StmtExprMutator::visitBlockRealize(op);
    if (op.block->name != producer_ || !predicate_) return visited;
    auto *copy = copyNode(*visited.as<BlockRealize>());
    copy->predicate = predicate_;
    return Stmt(copy);
  }
  Stmt visitBlock(const Block &op) override {
    Stmt visited = StmtExprMutator::visitBlock(op);
    auto *copy = copyNode(*visited.as<Block>());
    if (op.name == producer_) {
      copy->body = body_;
      copy->init = init_;
    }
    auto &allocs = copy->allocBuffers;
    allocs.erase(std::remove_if(allocs.begin(), allocs.end(), [&](const BufferRef &b) { return b.get() == intermediate_; }),
                 allocs.end());
    return Stmt(copy);
  }

private:
  const std::string &producer_;
  Stmt body_;
  Stmt init_;  // the producer's init, inlined like its body (null when it has none)
  Expr predicate_;  // null: the producer's own is kept; otherwise it replaces the producer's
  const Buffer *intermediate_;
};

// The indices of every load of `buffer` in expr, when they are all the same; nullopt otherwise.
std::optional<std::vector<Expr>> commonLoadIndices(const Expr &expr, const Buffer *buffer) {
  std::vector<const BufferLoad *> loads;
  preOrderVisit(expr, [&](const Node &node) {
    if (const auto *load = node.as<BufferLoad>(); load && load->buffer.get() == buffer) loads.push_back(load);
  });
  if (loads.empty()) return std::nullopt;
  for (const BufferLoad *load : loads)
    if (!sameExprs(load->indices, loads[0]->indices)) return std::nullopt;
  return loads[0]->indices;
}

// Why a producer with an init (a reduction complete by its signature, as TVM's IsCompleteBlock
// reads it) cannot take the consumer: its init must store the intermediate where its body does,
// and where its update reads the intermediate, which becomes the consumer's output, the consumer
// must copy the element unchanged (TVM's RecursionResolver rewrites any consumer that way, so
// that `C = f(C + x)` would apply f at every step). Empty when it can.
std::string whyNotInlinableReduction(const Block &producer, const BufferStore &update, const BufferStore &consumer,
                                     const Buffer *intermediate) {
  if (!producer.init) return "";
  const auto *init = producer.init.as<BufferStore>();
  if (!init || init->buffer.get() != intermediate || !sameExprs(init->indices, update.indices))
    return "has an init that is not a store of '" + intermediate->name + "' where its body stores";
  bool readsIntermediate = false;
  preOrderVisit(update.value, [&](const Node &node) {
    const auto *load = node.as<BufferLoad>();
    readsIntermediate |= load && load->buffer.get() == intermediate;
  });
  if (!readsIntermediate) return "";
  std::optional<std::vector<Expr>> updated = commonLoadIndices(update.value, intermediate);
  if (!updated || !sameExprs(*updated, update.indices))
    return "reads '" + intermediate->name + "' elsewhere than where it stores";
  const auto *copied = consumer.value.as<BufferLoad>();
  if (!copied || copied->buffer.get() != intermediate)
    return "accumulates in '" + intermediate->name + "', so only a consumer that copies it unchanged can be inlined";
  return "";
}

// The dimensions [first, last] of a load that share consumer iterators, and those iterators.
struct LoadGroup {
  size_t first, last;
  std::vector<VarRef> iterators;
};

// Splits the load's dimensions into groups of consecutive dimensions that share iterators
// (TVM's IterMark fused across dimensions); nullopt when a group would not be consecutive or a
// dimension uses no iterator. Dimensions of extent 1 (`unitDims`, index 0) are in no group.
std::optional<std::vector<LoadGroup>> groupLoadDimensions(const std::vector<Expr> &indices,
                                                          const std::vector<VarRef> &iterators,
                                                          const std::vector<bool> &unitDims) {
  std::vector<LoadGroup> groups;
  std::map<const Var *, size_t> groupOf;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (unitDims[d]) continue;
    std::vector<VarRef> used;
    std::optional<size_t> joined;
    for (const VarRef &var : iterators) {
      bool uses = false;
      preOrderVisit(indices[d], [&](const Node &node) { uses |= node.as<Var>() == var.get(); });
      if (!uses) continue;
      used.push_back(var);
      if (auto it = groupOf.find(var.get()); it != groupOf.end()) {
        if (joined && *joined != it->second) return std::nullopt;
        joined = it->second;
      }
    }
    if (used.empty()) return std::nullopt;
    if (joined && *joined != groups.size() - 1) return std::nullopt;
    if (!joined) groups.push_back({d, d, {}});
    LoadGroup &group = groups.back();
    group.last = d;
    for (const VarRef &var : used)
      if (groupOf.emplace(var.get(), groups.size() - 1).second) group.iterators.push_back(var);
  }
  return groups;
}

// Loads whose dimensions do not group, such as splits of iterators over dimensions that are not
// adjacent (`B[i // 16, j // 16, i % 16, j % 16]`): the shared affine inverse (AffineInverse.h)
// at the stored indices, dimensions of extent 1 left out. nullopt when it has none.
std::optional<VarMap> invertUngroupedLoad(const std::vector<Expr> &loaded, const std::vector<VarRef> &iterators,
                                          const std::map<const Var *, int64_t> &extents,
                                          const std::vector<bool> &unitDims, const std::vector<Expr> &stored,
                                          VarMap inverse) {
  std::vector<Expr> outputs;
  for (size_t d = 0; d < loaded.size(); ++d) outputs.push_back(unitDims[d] ? intImm(0, loaded[d]->dtype) : loaded[d]);
  std::vector<AffineInput> inputs;
  for (const VarRef &var : iterators) inputs.push_back({var, extents.at(var.get())});
  llvm::Expected<AffineMapInverse> found = inverseAffineMap(outputs, inputs, stored);
  if (!found) {
    llvm::consumeError(found.takeError());
    return std::nullopt;
  }
  for (const auto &[var, value] : found->inverse) inverse[var] = value;
  return inverse;
}

// The dimension a consumer iterator of symbolic extent is loaded at as a whole index, when that
// dimension's size is its extent (`B[v0, v1]` with v1 in [0, n) and B of shape (.., n)): the
// only affine form of such an iterator this inverts.
std::optional<size_t> wholeIndexOf(const IterVar &iv, const std::vector<Expr> &indices, const Buffer &intermediate) {
  for (size_t d = 0; d < indices.size(); ++d)
    if (indices[d].get() == iv.var.get() && structuralEqual(intermediate.shape[d], iv.dom.extent)) return d;
  return std::nullopt;
}

// TVM's DetectIterMap and InverseAffineIterMap for loads that map the consumer's iteration
// space one-to-one into the intermediate: the consumer's iterators as functions of `stored`, the
// indices the producer stores at. Unit iterators are their min, or the stored index of a
// dimension they make up alone; dimensions of extent 1 are left out. Each group of dimensions, read
// row-major as one linear index, must be a mixed-radix number of its iterators
// (sum of v_k * c_k, c_last = 1, c_k = c_(k+1) * extent_(k+1), c_0 * extent_0 at most the
// group's size: a leading part of it); then v_k = L // c_k % extent_k, where L is the group's linear index of `stored`
// (innermost dimension first, as TVM writes it) and the division by 1 and the outermost modulo
// are left out; loads whose dimensions do not group go to invertUngroupedLoad. An iterator of
// symbolic extent must be a whole index (wholeIndexOf). nullopt when the load is not of that form.
std::optional<VarMap> invertAffineLoad(const Block &consumer, const std::vector<Expr> &indices, const Buffer &intermediate,
                                       const std::vector<Expr> &stored) {
  if (indices.size() != intermediate.shape.size() || stored.size() != indices.size()) return std::nullopt;
  VarMap inverse, unitIterators;
  std::vector<VarRef> iterators;
  std::map<const Var *, int64_t> extents;
  arith::Analyzer analyzer;
  std::vector<bool> wholeDims(indices.size());  // a symbolic iterator loaded as a whole index
  for (const IterVarRef &iv : consumer.iterVars) {
    std::optional<int64_t> min = asConstInt(iv->dom.min), extent = asConstInt(iv->dom.extent);
    if (iv->iterType != IterType::DataPar) return std::nullopt;
    if (min == 0 && !extent) {
      std::optional<size_t> d = wholeIndexOf(*iv, indices, intermediate);
      if (!d) return std::nullopt;
      wholeDims[*d] = true;
      inverse[iv->var.get()] = stored[*d];
      continue;
    }
    if (!min || !extent) return std::nullopt;
    if (*extent == 1) {
      unitIterators[iv->var.get()] = iv->dom.min;
      inverse[iv->var.get()] = iv->dom.min;
      // A unit iterator that is a whole index is the producer's index there (TVM keeps trivial
      // iterators in the map it inverts).
      for (size_t d = 0; d < indices.size() && d < stored.size(); ++d)
        if (indices[d].get() == iv->var.get()) inverse[iv->var.get()] = stored[d];
      continue;
    }
    if (*min != 0) return std::nullopt;
    iterators.push_back(iv->var);
    extents[iv->var.get()] = *extent;
    analyzer.bind(iv->var, iv->dom);
  }
  std::vector<Expr> loaded;
  std::vector<bool> unitDims;  // in bounds, so loaded at 0, as the producer stores them
  for (size_t d = 0; d < indices.size(); ++d) {
    loaded.push_back(substitute(indices[d], unitIterators));
    if (wholeDims[d]) {
      unitDims.push_back(true);  // in no group: its iterator is already inverted
      continue;
    }
    arith::IntBound bound = analyzer.constIntBound(loaded[d]);
    std::optional<int64_t> dim = asConstInt(intermediate.shape[d]);
    if (!dim || bound.min < 0 || bound.max >= *dim) return std::nullopt;
    unitDims.push_back(*dim == 1);
  }
  std::optional<std::vector<LoadGroup>> groups = groupLoadDimensions(loaded, iterators, unitDims);
  bool anyWhole = std::find(wholeDims.begin(), wholeDims.end(), true) != wholeDims.end();
  if (!groups && anyWhole) return std::nullopt;
  if (!groups) return invertUngroupedLoad(loaded, iterators, extents, unitDims, stored, inverse);
  size_t grouped = 0;
  for (const LoadGroup &group : *groups) grouped += group.iterators.size();
  if (grouped != iterators.size()) return std::nullopt;  // an iterator no index uses repeats the load

  for (const LoadGroup &group : *groups) {
    Expr linear, storedLinear;
    int64_t stride = 1;
    for (size_t d = group.last + 1; d-- > group.first;) {
      std::optional<int64_t> dim = asConstInt(intermediate.shape[d]);
      Expr term = stride == 1 ? loaded[d] : loaded[d] * stride;
      Expr storedTerm = stride == 1 ? stored[d] : stored[d] * stride;
      linear = linear ? term + linear : term;
      storedLinear = storedLinear ? storedLinear + storedTerm : storedTerm;
      stride *= *dim;
    }
    std::optional<LinearEquation> equation = detectLinearEquation(analyzer.simplify(linear), group.iterators);
    if (!equation || !isZero(equation->base)) return std::nullopt;
    std::vector<size_t> order(group.iterators.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return equation->coeffs[a] > equation->coeffs[b]; });
    int64_t expected = 1;
    for (size_t k = order.size(); k-- > 0;) {
      const VarRef &var = group.iterators[order[k]];
      if (equation->coeffs[order[k]] != expected) return std::nullopt;
      Expr value = expected == 1 ? storedLinear : floorDivExpr(storedLinear, intImm(expected, storedLinear->dtype));
      if (k > 0) value = floorModExpr(value, intImm(extents[var.get()], value->dtype));
      inverse[var.get()] = value;
      expected *= extents[var.get()];
    }
    if (expected > stride) return std::nullopt;  // fewer: the consumer reads a leading part (a predicate)
  }
  return inverse;
}

// TVM's CheckConsumerCovered: the first consumer iterator whose range, computed from the
// producer's iterator domains, provably misses part of its domain; empty when none does.
// A symbolic domain is compared only when the consumer iterator is a producer iterator: TVM
// rejects what it can prove uncovered, and what it cannot bound it cannot prove.
std::string firstUncoveredIterator(const Block &consumer, const Block &producer, const VarMap &toProducer) {
  arith::Analyzer analyzer;
  std::map<const Var *, const IterVar *> producerIterators;
  for (const IterVarRef &iv : producer.iterVars) {
    analyzer.bind(iv->var, iv->dom);
    producerIterators[iv->var.get()] = iv.get();
  }
  for (const IterVarRef &iv : consumer.iterVars) {
    const Expr &value = toProducer.at(iv->var.get());
    std::optional<int64_t> min = asConstInt(iv->dom.min), extent = asConstInt(iv->dom.extent);
    if (min && extent) {
      arith::IntBound bound = analyzer.constIntBound(value);
      if (bound.min > *min || bound.max < *min + *extent - 1) return iv->var->name;
    } else if (auto it = producerIterators.find(value.as<Var>()); it != producerIterators.end()) {
      const Range &covered = it->second->dom;
      if (analyzer.canProve(makeBinary(NodeKind::GT, covered.min, iv->dom.min)) ||
          analyzer.canProve(makeBinary(NodeKind::LT, addExpr(covered.min, covered.extent),
                                       addExpr(iv->dom.min, iv->dom.extent))))
        return iv->var->name;
    }
  }
  return "";
}

// TVM's BuildInlinedConsumerPredicate: the condition under which a producer iteration computes
// an element the consumer reads (each consumer iterator, as a function of the producer's, in
// its domain), simplified over the producer's iterator domains and written in terms of the
// producer's loops; null when every producer iteration does. When `body`, the producer's new
// body, is an `if` without else whose (simplified) condition is not that condition, the `if`
// goes and its condition joins the predicate (TVM keeps the `if` when they are equal).
Expr inlinedPredicate(const Block &consumer, const BlockRealize &producer, const VarMap &toProducer, Stmt &body) {
  arith::Analyzer analyzer;
  VarMap toLoops;
  for (size_t i = 0; i < producer.iterValues.size(); ++i) {
    analyzer.bind(producer.block->iterVars[i]->var, producer.block->iterVars[i]->dom);
    toLoops[producer.block->iterVars[i]->var.get()] = producer.iterValues[i];
  }
  Expr inBounds;
  for (const IterVarRef &iv : consumer.iterVars) {
    Expr value = toProducer.at(iv->var.get());
    Expr condition = makeBinary(NodeKind::And, makeBinary(NodeKind::GE, value, iv->dom.min),
                                makeBinary(NodeKind::LT, value, addExpr(iv->dom.min, iv->dom.extent)));
    inBounds = inBounds ? makeBinary(NodeKind::And, inBounds, condition) : condition;
  }
  Expr simplified = analyzer.simplify(inBounds);
  if (isOne(simplified)) return nullptr;
  const auto *guard = body.as<IfThenElse>();
  if (guard && !guard->elseCase && !structuralEqual(simplified, analyzer.simplify(guard->condition))) {
    simplified = analyzer.simplify(makeBinary(NodeKind::And, simplified, guard->condition));
    body = guard->thenCase;
  }
  return analyzer.simplify(substitute(simplified, toLoops));
}

// TVM's NotSingleReadWriteBuffer::GetSingleRead: the distinct buffers the consumer reads that a
// child block of its scope writes (it may read only one such buffer).
std::vector<const Buffer *> producedReads(const Block &consumer, const Block &scope) {
  std::vector<const Buffer *> produced;
  for (const BufferRegion &read : consumer.reads)
    if (std::find(produced.begin(), produced.end(), read.buffer.get()) == produced.end() &&
        !blocksAccessing(scope.body, read.buffer.get(), /*writers=*/true).empty())
      produced.push_back(read.buffer.get());
  return produced;
}

// The child blocks of the scope at scopePath that write `buffer`, as paths from the function.
std::vector<StmtPath> writersInScope(const StmtPath &scopePath, const Buffer *buffer) {
  std::vector<StmtPath> writers;
  for (const StmtPath &found : blocksAccessing(scopePath.back().as<Block>()->body, buffer, /*writers=*/true)) {
    StmtPath path = scopePath;
    path.insert(path.end(), found.begin(), found.end());
    writers.push_back(std::move(path));
  }
  return writers;
}

}  // namespace

llvm::Error reverseComputeInline(Schedule &sch, const Located<BlockRV> &block) {
  const BlockRV &rv = block.value;
  SourceLoc at = block.at;
  auto fail = [&](const std::string &why) {
    return diagnosticError(at, "reverse_compute_inline: the block '" + rv.name + "' " + why);
  };
  llvm::Expected<StmtPath> path = sch.findBlock(rv, at);
  if (!path) return path.takeError();
  const BlockRealize &realize = *path->back().as<BlockRealize>();
  const Block &consumer = *realize.block;
  // TVM's ReverseComputeInlineImpl checks, in its order, so that a block failing several gets
  // its error: the consumer's init, the scope, the one buffer it reads from the scope, the
  // consumer's completeness, the single complete producer, which is no output block, then the
  // bodies' pattern and opaque accesses.
  if (consumer.init) return fail("has an init statement");
  StmtPath scopePath = scopeOf(*path);
  if (scopePath.empty()) return fail("is the root block");
  const Block &scope = *scopePath.back().as<Block>();
  if (std::string why = whyNotStagePipeline(scope); !why.empty()) return diagnosticError(at, "reverse_compute_inline: " + why);
  std::vector<const Buffer *> produced = producedReads(consumer, scope);
  if (produced.size() != 1)
    return fail("reads " + std::to_string(produced.size()) + " buffers that blocks in its scope write; it needs exactly one");
  const Buffer *intermediate = produced.front();
  if (std::string why = whyNotCompleteBlock(*path); !why.empty()) return fail("is not a complete block: " + why);
  std::vector<StmtPath> producerPaths = writersInScope(scopePath, intermediate);
  for (const StmtPath &writer : producerPaths)
    if (std::string why = whyNotCompleteBlock(writer); !why.empty())
      return fail("has the producer '" + writer.back().as<BlockRealize>()->block->name +
                  "', which is not a complete block: " + why);
  if (producerPaths.size() != 1)
    return fail("has " + std::to_string(producerPaths.size()) + " producers of '" + intermediate->name +
                "' in its scope; it needs exactly one");
  const BlockRealize &producerRealize = *producerPaths.front().back().as<BlockRealize>();
  const Block &producer = *producerRealize.block;
  // Not in TVM: the producer's other consumers would lose the buffer they read.
  llvm::Expected<std::vector<BlockRV>> readers = dependentBlocks(sch, BlockRV{rv.func, producer.name}, at, /*producers=*/false);
  if (!readers) return readers.takeError();
  if (readers->size() != 1)
    return fail("is not the only consumer of '" + intermediate->name + "' (its producer '" + producer.name + "' has " +
                std::to_string(readers->size()) + " consumers)");
  if (std::string why = whyOutputBlock(producer, scope); !why.empty())
    return fail("has the producer '" + producer.name + "', which " + why);

  const BufferStore *consumerStore = singleStoreBody(consumer);
  if (!consumerStore || realize.predicate) return fail("is not a single `C[...] = f(B[v...])` store without predicate");
  const BufferStore *producerStore = singleStoreBody(producer, /*underGuard=*/!producer.init);
  if (!producerStore)
    return fail("has the producer '" + producer.name +
                "', which is not a single `B[v...] = expr` store (or, without init, one under an `if` without else)");
  if (std::string why = whyNotInlinableReduction(producer, *producerStore, *consumerStore, intermediate); !why.empty())
    return fail("has the producer '" + producer.name + "', which " + why);
  std::optional<std::vector<Expr>> indices = commonLoadIndices(consumerStore->value, intermediate);
  std::optional<VarMap> toProducer;
  if (indices) toProducer = invertAffineLoad(consumer, *indices, *intermediate, producerStore->indices);
  if (!toProducer)
    return fail("does not load '" + intermediate->name +
                "' once per element, at one affine map of its iterators that is one-to-one into the buffer");
  if (std::string uncovered = firstUncoveredIterator(consumer, producer, *toProducer); !uncovered.empty())
    return fail("has the producer '" + producer.name + "', which does not cover its iterator '" + uncovered + "'");
  if (std::string why = whyNotRemovableLeaf(*path); !why.empty()) return diagnosticError(at, "reverse_compute_inline: " + why);
  llvm::Expected<PrimFuncRef> func = sch.function(rv.func, at);
  if (!func) return func.takeError();
  if (std::string why = whyBufferIsAccessedOpaquely(**func, intermediate); !why.empty())
    return fail("has the producer '" + producer.name + "', which " + why);

  std::vector<Expr> storeIndices;
  for (const Expr &index : consumerStore->indices) storeIndices.push_back(substitute(index, *toProducer));
  // A producer's store of a value becomes the consumer's store of it; in a reduction's update the
  // intermediate read is the consumer's output.
  Expr output = make<BufferLoad>(consumerStore->buffer, storeIndices, consumerStore->loc());
  auto inlineStore = [&](const Expr &producerValue) -> Stmt {
    Expr resolved = LoadReplacer(intermediate, output).visitExpr(producerValue);
    Expr value = LoadReplacer(intermediate, resolved).visitExpr(substitute(consumerStore->value, *toProducer));
    return make<BufferStore>(consumerStore->buffer, value, storeIndices, consumerStore->loc());
  };
  Stmt inlined = inlineStore(producerStore->value);
  Stmt inlinedInit = producer.init ? inlineStore(producer.init.as<BufferStore>()->value) : Stmt();
  if (const auto *guard = producer.body.as<IfThenElse>())
    inlined = make<IfThenElse>(guard->condition, inlined, nullptr, guard->loc());
  Expr predicate = inlinedPredicate(consumer, producerRealize, *toProducer, inlined);

  std::string producerName = producer.name;
  Ref<Buffer> keptIntermediate(intermediate);
  if (llvm::Error error = removeLeafBlock(sch, rv.func, *path, at)) return error;
  const PrimFunc &current = *cast<PrimFunc>(sch.module().lookup(rv.func));
  Stmt body = ProducerRewriter(producerName, inlined, inlinedInit, predicate, keptIntermediate.get()).visitStmt(current.body);
  sch.setBody(rv.func, reinferRegions(body, {producerName}, functionBuffers(current)));
  return llvm::Error::success();
}

}  // namespace vtac::passes::schedule
