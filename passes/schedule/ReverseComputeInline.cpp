// reverse_compute_inline(block): the consumer block's computation moves into its only producer,
// which then writes the consumer's buffer directly; the consumer block (with the loops that hold
// only it) and the intermediate buffer disappear. The consumer must be a single store without
// init or predicate whose loads of the intermediate B all read B[v0, v1, ...] at the same
// distinct data-parallel iterators, one per iterator of the block, each ranging over B's whole
// dimension; the producer must be the only one, a single store `B[u0, u1, ...] = expr` at
// distinct data-parallel iterators, and B must be allocated by a block and read by the consumer
// only. The producer keeps its name, loops and iterators; its regions are re-inferred. (TVM also
// inlines consumers that load B at an affine function of their iterators; vtac does not yet.)
#include "BlockUtils.h"
#include "BufferUtils.h"
#include "Primitive.h"

#include "vtac/ir/Arith.h"
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
  ProducerRewriter(const std::string &producer, Stmt body, const Buffer *intermediate)
      : producer_(producer), body_(std::move(body)), intermediate_(intermediate) {}
  Expr visitExpr(const Expr &e) override { return e; }
  Stmt visitBlock(const Block &op) override {
    Stmt visited = StmtExprMutator::visitBlock(op);
    auto *copy = copyNode(*visited.as<Block>());
    if (op.name == producer_) copy->body = body_;
    auto &allocs = copy->allocBuffers;
    allocs.erase(std::remove_if(allocs.begin(), allocs.end(), [&](const BufferRef &b) { return b.get() == intermediate_; }),
                 allocs.end());
    return Stmt(copy);
  }

private:
  const std::string &producer_;
  Stmt body_;
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
    for (size_t d = 0; d < load->indices.size(); ++d)
      if (!structuralEqual(load->indices[d], loads[0]->indices[d])) return std::nullopt;
  return loads[0]->indices;
}

}  // namespace

llvm::Expected<std::vector<RV>> applyReverseComputeInline(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> rv = args.block("block");
  if (!rv) return rv.takeError();
  SourceLoc at = args.at("block");
  auto fail = [&](const std::string &why) {
    return diagnosticError(at, "reverse_compute_inline: the block '" + rv->name + "' " + why);
  };
  llvm::Expected<StmtPath> path = sch.findBlock(*rv, at);
  if (!path) return path.takeError();
  const BlockRealize &realize = *path->back().as<BlockRealize>();
  const Block &consumer = *realize.block;
  const BufferStore *consumerStore = singleStoreBody(consumer);
  if (!consumerStore || realize.predicate) return fail("is not a single `C[...] = f(B[v...])` store without init or predicate");
  llvm::Expected<std::vector<BlockRV>> producers = dependentBlocks(sch, *rv, at, /*producers=*/true);
  if (!producers) return producers.takeError();
  if (producers->size() != 1)
    return fail("has " + std::to_string(producers->size()) + " producers in its scope; it needs exactly one");
  const BlockRV &producerRV = producers->front();
  llvm::Expected<StmtPath> producerPath = sch.findBlock(producerRV, at);
  if (!producerPath) return producerPath.takeError();
  const Block &producer = *producerPath->back().as<BlockRealize>()->block;
  const BufferStore *producerStore = singleStoreBody(producer);
  if (!producerStore) return fail("has the producer '" + producer.name + "', which is not a single `B[v...] = expr` store without init");
  const BufferRef &intermediate = producerStore->buffer;
  if (!indexedByDistinctDataParIters(producer, producerStore->indices))
    return fail("has the producer '" + producer.name + "', which does not store '" + intermediate->name +
                "' at distinct data-parallel iterators");
  llvm::Expected<PrimFuncRef> func = sch.function(rv->func, at);
  if (!func) return func.takeError();
  if (std::string why = whyBufferIsNotRemovable(**func, intermediate.get()); !why.empty())
    return fail("has the producer '" + producer.name + "', which " + why);
  llvm::Expected<std::vector<BlockRV>> readers = dependentBlocks(sch, producerRV, at, /*producers=*/false);
  if (!readers) return readers.takeError();
  if (readers->size() != 1)
    return fail("is not the only consumer of '" + intermediate->name + "' (its producer '" + producer.name + "' has " +
                std::to_string(readers->size()) + " consumers)");

  // Each consumer iterator is one index of the intermediate, over that whole dimension.
  std::optional<std::vector<Expr>> indices = commonLoadIndices(consumerStore->value, intermediate.get());
  bool bijective = indices && indices->size() == consumer.iterVars.size() &&
                   indexedByDistinctDataParIters(consumer, *indices);
  VarMap toProducer;
  for (size_t d = 0; bijective && d < indices->size(); ++d) {
    const Var *var = (*indices)[d].as<Var>();
    for (const IterVarRef &iv : consumer.iterVars)
      if (iv->var.get() == var)
        bijective = isZero(iv->dom.min) && structuralEqual(iv->dom.extent, intermediate->shape[d]);
    toProducer[var] = producerStore->indices[d];
  }
  if (!bijective)
    return fail("does not load '" + intermediate->name +
                "' once per element, at its distinct data-parallel iterators over the whole buffer");

  Expr value = LoadReplacer(intermediate.get(), producerStore->value).visitExpr(substitute(consumerStore->value, toProducer));
  std::vector<Expr> storeIndices;
  for (const Expr &index : consumerStore->indices) storeIndices.push_back(simplify(substitute(index, toProducer)));
  Stmt inlined = make<BufferStore>(consumerStore->buffer, value, storeIndices, consumerStore->loc());

  std::string producerName = producer.name;
  Ref<Buffer> keptIntermediate = intermediate;
  if (llvm::Error error = removeLeafBlock(sch, rv->func, *path, at)) return error;
  const PrimFunc &current = *cast<PrimFunc>(sch.module().lookup(rv->func));
  Stmt body = ProducerRewriter(producerName, inlined, keptIntermediate.get()).visitStmt(current.body);
  sch.setBody(rv->func, reinferRegions(body, {producerName}, functionBuffers(current)));
  return std::vector<RV>{};
}

}  // namespace vtac::passes::schedule
