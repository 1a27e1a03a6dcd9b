#include "BlockAnalysis.h"

#include <algorithm>

#include "BlockTree.h"
#include "BufferUtils.h"
#include "LoopUtils.h"

#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

llvm::Expected<std::vector<BlockRV>> dependentBlocks(const Schedule &sch, const BlockRV &rv, SourceLoc at,
                                                     bool producers) {
  llvm::Expected<StmtPath> path = sch.findBlock(rv, at);
  if (!path) return path.takeError();
  StmtPath scope = scopeOf(*path);
  if (scope.empty()) return std::vector<BlockRV>{};
  const Block &self = *path->back().as<BlockRealize>()->block;
  std::vector<BlockRV> result;
  bool before = true;
  for (const StmtPath &child : childBlockPaths(scope.back().as<Block>()->body)) {
    const Block &other = *child.back().as<BlockRealize>()->block;
    if (&other == &self) {
      before = false;
      continue;
    }
    if (before != producers) continue;
    const Block &writer = producers ? other : self, &accessor = producers ? self : other;
    bool depends = std::any_of(writer.writes.begin(), writer.writes.end(), [&](const BufferRegion &write) {
      return accessesBuffer(accessor, write.buffer.get(), false) || accessesBuffer(accessor, write.buffer.get(), true);
    });
    if (depends) result.push_back(BlockRV{rv.func, other.name});
  }
  return result;
}

bool sameExprs(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Expr &x, const Expr &y) { return structuralEqual(x, y); });
}

const BufferStore *singleStoreBody(const Block &block, bool underGuard) {
  if (block.writes.size() != 1 || !block.allocBuffers.empty()) return nullptr;
  const auto *guard = underGuard ? block.body.as<IfThenElse>() : nullptr;
  if (guard) return guard->elseCase ? nullptr : guard->thenCase.as<BufferStore>();
  return block.body.as<BufferStore>();
}

bool indexedByDistinctDataParIters(const Block &block, const std::vector<Expr> &indices) {
  std::set<const Var *> seen;
  for (const Expr &index : indices) {
    const auto *var = index.as<Var>();
    bool isDataPar = std::any_of(block.iterVars.begin(), block.iterVars.end(), [&](const IterVarRef &iv) {
      return iv->var.get() == var && iv->iterType == IterType::DataPar;
    });
    if (!var || !isDataPar || !seen.insert(var).second) return false;
  }
  return true;
}

std::string whyBufferIsAccessedOpaquely(const PrimFunc &func, const Buffer *buffer) {
  bool opaque = false;
  std::string matcher;
  preOrderVisit(func.body, [&](const Node &node) {
    const auto *var = node.as<Var>();
    opaque |= var && var == buffer->data.get();
    // A view of the buffer would outlive the inlined buffer (TVM's CheckMatchBufferRegion).
    if (const auto *block = node.as<Block>())
      for (const MatchBufferRegion &match : block->matchBuffers)
        if (match.source.buffer.get() == buffer && matcher.empty()) matcher = block->name;
  });
  if (opaque) return "writes '" + buffer->name + "', whose data pointer is used directly";
  if (!matcher.empty()) return "writes '" + buffer->name + "', a region of which the block '" + matcher + "' matches";
  return "";
}

std::string whyOutputBlock(const Block &block, const Block &scope) {
  for (const BufferRegion &write : block.writes)
    if (std::find(scope.allocBuffers.begin(), scope.allocBuffers.end(), write.buffer) == scope.allocBuffers.end())
      return "is an output block (it writes '" + write.buffer->name + "', which its scope block '" + scope.name +
             "' does not allocate)";
  return "";
}

namespace {

// How many writers of `buffer` TVM's dominance check counts under a loop: it merges the scopes
// of the loop's child blocks (the first that has writers of the buffer wins), so only blocks
// nested inside those children are counted, never the children themselves.
size_t writersUnderLoop(const Stmt &loop, const Buffer *buffer) {
  for (const StmtPath &child : childBlockPaths(loop)) {
    size_t writers = blocksAccessing(child.back().as<BlockRealize>()->block->body, buffer, true).size();
    if (writers) return writers;
  }
  return 0;
}

// TVM's compact-dataflow dominance under a loop: the first buffer the block writes that more than
// one block nested under the loop writes.
std::string whyNotDominantUnderLoop(const Stmt &loop, const Block &block) {
  for (const BufferRegion &write : block.writes)
    if (writersUnderLoop(loop, write.buffer.get()) > 1)
      return "more than one block nested under the loop writes '" + write.buffer->name + "'";
  return "";
}

// TVM's IsDominantBlock in the block's scope: the first buffer it writes that another child
// block of the scope writes too.
std::string whyNotDominant(const StmtPath &blockPath) {
  for (const BufferRegion &write : blockPath.back().as<BlockRealize>()->block->writes)
    if (blocksAccessing(scopeOf(blockPath).back(), write.buffer.get(), true).size() != 1)
      return "it is not the only writer of '" + write.buffer->name + "' in its scope";
  return "";
}

// The first buffer the block reads that it also writes, or null.
const Buffer *firstReadOutput(const Block &block) {
  for (const BufferRegion &read : block.reads)
    if (accessesBuffer(block, read.buffer.get(), true)) return read.buffer.get();
  return nullptr;
}

}  // namespace

std::string whyNotCompleteBlock(const StmtPath &blockPath) {
  const Block &block = *blockPath.back().as<BlockRealize>()->block;
  for (const IterVarRef &iv : block.iterVars)
    if (iv->iterType != IterType::DataPar) return "its iterator '" + iv->var->name + "' is not spatial";
  if (std::string why = whyNotDominant(blockPath); !why.empty()) return why;
  if (const Buffer *readOutput = firstReadOutput(block)) return "it reads '" + readOutput->name + "', which it writes";
  return "";
}

std::string whyNotCompleteOrReduction(const StmtPath &blockPath, const Stmt *loop) {
  const BlockRealize &realize = *blockPath.back().as<BlockRealize>();
  const Block &block = *realize.block;
  if (std::string why = loop ? whyNotDominantUnderLoop(*loop, block) : whyNotDominant(blockPath); !why.empty())
    return why;
  bool spatial = std::all_of(block.iterVars.begin(), block.iterVars.end(),
                             [](const IterVarRef &iv) { return iv->iterType == IterType::DataPar; });
  if (spatial) {
    const Buffer *readOutput = firstReadOutput(block);
    if (!readOutput) return "";
    // Reading its output, it can still be a reduction block (with no reduction iterators).
    if (!block.init) return "it reads '" + readOutput->name + "', which it writes, without a T.init";
  } else if (!block.init) {
    return "it has non-spatial iterators but no T.init (neither a complete nor a reduction block)";
  }
  for (size_t i = 0; i < block.iterVars.size(); ++i) {
    IterType type = block.iterVars[i]->iterType;
    if (type != IterType::DataPar && type != IterType::CommReduce)
      return "its iterator '" + block.iterVars[i]->var->name + "' is neither spatial nor a reduction";
  }
  std::string notAffine = whyNotAffineBinding(realize, loopsInScope(blockPath));
  if (!notAffine.empty()) return notAffine + " is not affine in the loops of its scope";
  std::string problem;
  for (const Stmt &part : {block.init, block.body})
    preOrderVisit(part, [&](const Node &node) {
      const auto *store = node.as<BufferStore>();
      if (!store || !problem.empty()) return;
      for (const Expr &index : store->indices)
        for (const IterVarRef &iv : block.iterVars)
          if (iv->iterType == IterType::CommReduce && usesVar(index, iv->var.get()))
            problem = "it writes '" + store->buffer->name + "' at an index that uses its reduction iterator '" +
                      iv->var->name + "'";
    });
  return problem;
}

}  // namespace vtac::passes::schedule
