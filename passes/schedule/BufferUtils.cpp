// Buffer replacement and lookup shared by cache_read, cache_write, set_scope, compute_at.
#include "BufferUtils.h"

#include <algorithm>

#include "BlockTree.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/StorageScope.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

BufferRef withScope(const BufferRef &buffer, const std::string &scope, std::string name) {
  auto *copy = copyNode(*buffer);
  const PointerType &old = *buffer->data->pointer;
  copy->data = make<Var>(buffer->data->name, PointerType{old.element, scope});
  if (!name.empty()) copy->name = std::move(name);
  return BufferRef(copy);
}

namespace {

class BufferReplacer : public StmtExprMutator {
public:
  explicit BufferReplacer(const std::map<const Buffer *, BufferRef> &replacements) : replacements_(replacements) {}

  Expr visitBufferLoad(const BufferLoad &op) override {
    Expr visited = StmtExprMutator::visitBufferLoad(op);
    const auto *load = visited.as<BufferLoad>();
    auto it = replacements_.find(load->buffer.get());
    if (it == replacements_.end()) return visited;
    return make<BufferLoad>(it->second, load->indices, load->loc());
  }
  Stmt visitBufferStore(const BufferStore &op) override {
    Stmt visited = StmtExprMutator::visitBufferStore(op);
    const auto *store = visited.as<BufferStore>();
    auto it = replacements_.find(store->buffer.get());
    if (it == replacements_.end()) return visited;
    auto *copy = copyNode(*store);
    copy->buffer = it->second;
    return Stmt(copy);
  }
  Stmt visitBlock(const Block &op) override {
    Stmt visited = StmtExprMutator::visitBlock(op);
    auto *copy = copyNode(*visited.as<Block>());
    bool changed = false;
    auto swap = [&](BufferRef &buffer) {
      auto it = replacements_.find(buffer.get());
      if (it == replacements_.end()) return;
      buffer = it->second;
      changed = true;
    };
    for (BufferRegion &region : copy->reads) swap(region.buffer);
    for (BufferRegion &region : copy->writes) swap(region.buffer);
    for (BufferRef &buffer : copy->allocBuffers) swap(buffer);
    for (MatchBufferRegion &match : copy->matchBuffers) {
      swap(match.buffer);
      swap(match.source.buffer);
    }
    if (!changed) {
      delete copy;
      return visited;
    }
    return Stmt(copy);
  }

private:
  const std::map<const Buffer *, BufferRef> &replacements_;
};

}  // namespace

Stmt replaceBuffers(const Stmt &stmt, const std::map<const Buffer *, BufferRef> &replacements) {
  return BufferReplacer(replacements).visitStmt(stmt);
}

llvm::Expected<BufferRef> accessedBuffer(const Block &block, int64_t index, bool isWrite, SourceLoc at) {
  const std::vector<BufferRegion> &regions = isWrite ? block.writes : block.reads;
  if (index < 0 || index >= int64_t(regions.size()))
    return diagnosticError(at, "the block '" + block.name + "' has " + std::to_string(regions.size()) +
                                   (isWrite ? " written" : " read") + " buffers; index " + std::to_string(index) +
                                   " is out of range");
  return regions[size_t(index)].buffer;
}

std::vector<StmtPath> blocksAccessing(const Stmt &root, const Buffer *buffer, bool writers) {
  std::vector<StmtPath> found;
  // A child block's regions cover the blocks nested in it: those are not looked at.
  for (StmtPath &path : childBlockPaths(root))
    if (accessesBuffer(*path.back().as<BlockRealize>()->block, buffer, writers)) found.push_back(std::move(path));
  return found;
}

std::vector<Range> wholeRegion(const Buffer &buffer) {
  std::vector<Range> region;
  for (const Expr &extent : buffer.shape) region.push_back(Range{intImm(0, extent->dtype), extent});
  return region;
}

bool allocatedByBlock(const Stmt &root, const Buffer *buffer) {
  bool allocated = false;
  preOrderVisit(root, [&](const Node &node) {
    if (const auto *block = node.as<Block>())
      for (const BufferRef &alloc : block->allocBuffers) allocated |= alloc.get() == buffer;
  });
  return allocated;
}

bool accessesBuffer(const Block &block, const Buffer *buffer, bool writes) {
  const auto &regions = writes ? block.writes : block.reads;
  return std::any_of(regions.begin(), regions.end(), [&](const BufferRegion &region) { return region.buffer.get() == buffer; });
}

std::string whyNotStorageScope(const std::string &primitive, const std::string &scope) {
  if (isStorageScope(scope)) return "";
  return primitive + ": '" + scope + "' is not a storage scope (" + std::string(kStorageScopes) + ")";
}

}  // namespace vtac::passes::schedule
