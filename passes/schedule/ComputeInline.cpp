// compute_inline(block): the block's value is substituted into every load of the buffer it
// writes, and the block (with the loops that hold only it) disappears, as does the buffer's
// allocation. The block must be complete and simple: no init, one write, a body
// `B[v0, v1, ...] = expr` indexed by distinct data-parallel iterators, and B must be allocated
// by a block (not a function parameter). The blocks that read B get their regions re-inferred.
#include "ComputeInline.h"

#include "BlockUtils.h"
#include "BufferUtils.h"
#include "StagePipeline.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

class LoadInliner : public StmtExprMutator {
public:
  explicit LoadInliner(const BufferStore &store) : store_(store) {}
  Expr visitBufferLoad(const BufferLoad &op) override {
    Expr visited = StmtExprMutator::visitBufferLoad(op);
    const auto *load = visited.as<BufferLoad>();
    if (load->buffer != store_.buffer) return visited;
    VarMap map;
    for (size_t i = 0; i < load->indices.size(); ++i) map[store_.indices[i].as<Var>()] = load->indices[i];
    return substitute(store_.value, map);
  }
  Stmt visitBlock(const Block &op) override {
    Stmt visited = StmtExprMutator::visitBlock(op);
    auto *copy = copyNode(*visited.as<Block>());
    auto &allocs = copy->allocBuffers;
    allocs.erase(std::remove(allocs.begin(), allocs.end(), store_.buffer), allocs.end());
    bool reads = std::any_of(op.reads.begin(), op.reads.end(), [&](const BufferRegion &r) { return r.buffer == store_.buffer; });
    if (reads) touched.insert(op.name);
    return Stmt(copy);
  }
  std::set<std::string> touched;

private:
  const BufferStore &store_;
};

}  // namespace

llvm::Error computeInline(Schedule &sch, const BlockRV &rv, SourceLoc at) {
  llvm::Expected<StmtPath> path = sch.findBlock(rv, at);
  if (!path) return path.takeError();
  const BlockRealize &realize = *path->back().as<BlockRealize>();
  auto fail = [&](const std::string &why) {
    return diagnosticError(at, "compute_inline: the block '" + rv.name + "' " + why);
  };
  const BufferStore *store = singleStoreBody(*realize.block);
  if (!store) return fail("is not a single `B[v...] = expr` store without init");
  // The scope's stage pipeline before the body's pattern, in TVM's order.
  const Block &scope = *scopeOf(*path).back().as<Block>();
  if (std::string why = whyNotStagePipeline(scope); !why.empty()) return diagnosticError(at, "compute_inline: " + why);
  if (!indexedByDistinctDataParIters(*realize.block, store->indices))
    return fail("does not store at distinct data-parallel iterators (" + store->buffer->name + ")");
  llvm::Expected<PrimFuncRef> func = sch.function(rv.func, at);
  if (!func) return func.takeError();
  if (std::string why = whyBufferIsNotRemovable(**func, store->buffer.get()); !why.empty()) return fail(why);
  std::vector<StmtPath> writers = blocksAccessing(scope.body, store->buffer.get(), true);
  if (writers.size() != 1) return fail("is not the only writer of '" + store->buffer->name + "'");

  Ref<BufferStore> keptStore(store);
  if (llvm::Error error = removeLeafBlock(sch, rv.func, *path, at)) return error;
  LoadInliner inliner(*keptStore);
  Stmt body = inliner.visitStmt(cast<PrimFunc>(sch.module().lookup(rv.func))->body);
  body = reinferRegions(body, inliner.touched, functionBuffers(*cast<PrimFunc>(sch.module().lookup(rv.func))));
  sch.setBody(rv.func, body);
  return llvm::Error::success();
}

llvm::Expected<std::vector<RV>> applyComputeInline(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> rv = args.block("block");
  if (!rv) return rv.takeError();
  if (llvm::Error error = computeInline(sch, *rv, args.at("block"))) return error;
  return std::vector<RV>{};
}

}  // namespace vtac::passes::schedule
