// compute_inline(block): the block's value is substituted into every load of the buffer it
// writes, and the block (with the loops that hold only it) disappears, as does the buffer's
// allocation. As TVM checks, in its order: no init, one write, a stage-pipeline scope, not an
// output block (B must be allocated by the scope block), a complete block, a body
// `B[v0, v1, ...] = expr` indexed by distinct data-parallel iterators, and no opaque access to B.
// The blocks that read B get their regions re-inferred.
#include "BlockAnalysis.h"
#include "BlockTree.h"
#include "RegionRelax.h"
#include "BufferUtils.h"
#include "StagePipeline.h"

#include "vtac/passes/schedule/Primitives.h"

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

llvm::Error computeInline(Schedule &sch, const Located<BlockRV> &inlined) {
  const BlockRV &rv = inlined.value;
  SourceLoc at = inlined.at;
  llvm::Expected<StmtPath> path = sch.findBlock(rv, at);
  if (!path) return path.takeError();
  const Block &block = *path->back().as<BlockRealize>()->block;
  auto fail = [&](const std::string &why) {
    return diagnosticError(at, "compute_inline: the block '" + rv.name + "' " + why);
  };
  // TVM's ComputeInlineImpl checks, in its order, so that a block failing several gets its error.
  if (block.init) return fail("has an init statement");
  if (block.writes.size() != 1)
    return fail("writes " + std::to_string(block.writes.size()) + " buffer regions; it may write only one");
  StmtPath scopePath = scopeOf(*path);
  if (scopePath.empty()) return fail("is the root block");
  const Block &scope = *scopePath.back().as<Block>();
  if (std::string why = whyNotStagePipeline(scope); !why.empty()) return diagnosticError(at, "compute_inline: " + why);
  if (std::string why = whyOutputBlock(block, scope); !why.empty()) return fail(why);
  if (std::string why = whyNotCompleteBlock(*path); !why.empty()) return fail("is not a complete block: " + why);
  const BufferStore *store = singleStoreBody(block);
  if (!store || !indexedByDistinctDataParIters(block, store->indices))
    return fail("is not a single store `B[v...] = expr` at distinct data-parallel iterators");
  if (std::string why = whyNotRemovableLeaf(*path); !why.empty()) return diagnosticError(at, "compute_inline: " + why);
  llvm::Expected<PrimFuncRef> func = sch.function(rv.func, at);
  if (!func) return func.takeError();
  if (std::string why = whyBufferIsAccessedOpaquely(**func, store->buffer.get()); !why.empty()) return fail(why);

  Ref<BufferStore> keptStore(store);
  if (llvm::Error error = removeLeafBlock(sch, rv.func, *path, at)) return error;
  LoadInliner inliner(*keptStore);
  Stmt body = inliner.visitStmt(cast<PrimFunc>(sch.module().lookup(rv.func))->body);
  body = reinferRegions(body, inliner.touched, functionBuffers(*cast<PrimFunc>(sch.module().lookup(rv.func))));
  sch.setBody(rv.func, body);
  return llvm::Error::success();
}

}  // namespace vtac::passes::schedule
