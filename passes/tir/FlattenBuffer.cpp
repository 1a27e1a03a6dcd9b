#include "tir/FlattenBuffer.h"

#include <unordered_map>

#include "tir/FlatIndex.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {
namespace {

// bool is stored as int8 (TVM's convention for boolean tensors).
ir::DataType storageType(ir::DataType dtype) {
  return dtype.isBool() ? ir::DataType::intTy(8, dtype.lanes()) : dtype;
}

bool equalAfterSimplify(const ir::Expr &a, const ir::Expr &b) {
  return ir::structuralEqual(ir::simplify(a), ir::simplify(b));
}

// x when `indices` take x apart row-major over the buffer's dimensions: `x // (n * n)`,
// `x % (n * n) // n`, `x % n` on a (32, n, n) buffer. Their flat index telescopes back to x
// (floormod(floormod(x, n * n), n) is floormod(x, n) since n divides n * n); TVM's
// FlattenBuffer gets x from its iter-map simplification. The identity is exact where the
// strides' products do not wrap, which holds whenever the buffer's element count fits the
// index type: the premise of flattening itself, whose flat index is computed in that type. A
// zero stride (an empty buffer) makes both the divisions and the flat access stop.
ir::Expr fusedIndex(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices) {
  size_t rank = buffer.rank();
  if (rank < 2 || indices.size() != rank || !buffer.strides.empty() || !buffer.axisSeparators.empty() ||
      (buffer.elemOffset && !ir::isZero(buffer.elemOffset)))
    return nullptr;
  std::vector<ir::Expr> strides = stridesOf(buffer);
  auto asKind = [](const ir::Expr &e, ir::NodeKind kind) -> const ir::BinaryExpr * {
    const auto *bin = e.as<ir::BinaryExpr>();
    return bin && bin->kind() == kind ? bin : nullptr;
  };
  // index j (0 < j < rank - 1) is floormod(x, strides[j - 1]) // strides[j]; the first has no
  // floormod, the last no floordiv (its stride is 1).
  ir::Expr fused;
  for (size_t j = 0; j < rank; ++j) {
    ir::Expr part = indices[j];
    if (j + 1 < rank) {
      const ir::BinaryExpr *div = asKind(part, ir::NodeKind::FloorDiv);
      if (!div || !equalAfterSimplify(div->b, strides[j])) return nullptr;
      part = div->a;
    }
    if (j > 0) {
      const ir::BinaryExpr *mod = asKind(part, ir::NodeKind::FloorMod);
      if (!mod || !equalAfterSimplify(mod->b, strides[j - 1])) return nullptr;
      part = mod->a;
    }
    if (!part->dtype.isScalar() || (fused && !ir::structuralEqual(part, fused))) return nullptr;
    fused = part;
  }
  return fused;
}

// The flat indices of an access, as groupedFlatIndices, or x for a fused x (fusedIndex).
std::vector<ir::Expr> flatIndices(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices) {
  if (ir::Expr fused = fusedIndex(buffer, indices)) return {fused};
  return groupedFlatIndices(buffer, indices);
}

class BufferFlattener : public FirstErrorMutator {
public:
  ir::Stmt visitBlock(const ir::Block &op) override {
    if (!op.matchBuffers.empty()) fail(op, "block '" + op.name + "' still matches buffers; run lower-match-buffer first");
    ir::Stmt visited = StmtExprMutator::visitBlock(op);
    const auto &block = *visited.as<ir::Block>();
    bool changed = false;
    std::vector<ir::BufferRef> allocations;
    for (const ir::BufferRef &buffer : block.allocBuffers) {
      allocations.push_back(flattened(buffer));
      changed |= allocations.back() != buffer;
    }
    std::vector<ir::BufferRegion> reads, writes;
    for (auto [from, to] : {std::pair{&block.reads, &reads}, std::pair{&block.writes, &writes}})
      for (const ir::BufferRegion &region : *from) {
        to->push_back(flattenRegion(region));
        changed |= to->back().buffer != region.buffer;
      }
    if (!changed) return visited;
    ir::Block *copy = ir::copyNode(block);
    copy->allocBuffers = std::move(allocations);
    copy->reads = std::move(reads);
    copy->writes = std::move(writes);
    return ir::Stmt(copy);
  }

  ir::Stmt visitAllocate(const ir::Allocate &op) override {
    std::vector<ir::Expr> extents = flatExtents(op);
    ir::Stmt visited = StmtExprMutator::visitAllocate(op);
    if (visited == ir::Stmt(&op) && extents == op.extents && storageType(op.dtype) == op.dtype) return visited;
    ir::Allocate *copy = ir::copyNode(*visited.as<ir::Allocate>());
    copy->extents = std::move(extents);
    copy->dtype = storageType(copy->dtype);
    return ir::Stmt(copy);
  }

  // TVM strips the declarations (not every later pass knows DeclBuffer).
  ir::Stmt visitDeclBuffer(const ir::DeclBuffer &op) override { return visitStmt(op.body); }

  ir::Expr visitBufferLoad(const ir::BufferLoad &op) override {
    ir::Expr visited = StmtExprMutator::visitBufferLoad(op);
    const auto &load = *visited.as<ir::BufferLoad>();
    if (flattened(load.buffer) == load.buffer) return visited;
    ir::Expr flat = ir::make<ir::BufferLoad>(flattened(load.buffer), flatIndices(*load.buffer, load.indices),
                                             load.loc());
    return op.dtype.isBool() ? ir::castExpr(op.dtype, flat) : flat;
  }

  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    ir::Stmt visited = StmtExprMutator::visitBufferStore(op);
    const auto &store = *visited.as<ir::BufferStore>();
    ir::BufferRef buffer = flattened(store.buffer);
    if (buffer == store.buffer) return visited;
    ir::Expr value = store.value->dtype.isBool() ? ir::castExpr(storageType(store.value->dtype), store.value) : store.value;
    return ir::make<ir::BufferStore>(buffer, value, flatIndices(*store.buffer, store.indices), store.loc());
  }

private:
  // The flat view of `buffer` (one per buffer, so all accesses share it): 1-d, or one
  // dimension per axis group when it has axis_separators (TVM's GetFlattenedBuffer).
  ir::BufferRef flattened(const ir::BufferRef &buffer) {
    auto it = flat_.find(buffer.get());
    if (it != flat_.end()) return it->second;
    ir::BufferRef result = buffer;
    size_t groups = buffer->axisSeparators.size() + 1;
    bool flat = buffer->rank() == groups && buffer->strides.empty() && !buffer->elemOffset && !buffer->dtype.isBool();
    if (groups > 1 && buffer->elemOffset && !ir::isZero(buffer->elemOffset))
      fail(*buffer, "buffer '" + buffer->name + "' has axis_separators and an element offset; TVM flattens only flat buffers with an offset");
    if (!flat) {
      ir::Buffer *copy = ir::copyNode(*buffer);
      copy->shape = flatShape(*buffer);
      copy->strides.clear();
      copy->elemOffset = nullptr;
      copy->dtype = storageType(buffer->dtype);
      copy->axisSeparators.clear();
      for (size_t i = 1; i < groups; ++i) copy->axisSeparators.push_back(int64_t(i));
      result = ir::BufferRef(copy);
    }
    flat_.emplace(buffer.get(), result);
    return result;
  }

  // One extent per axis group: the group's first stride times its extent when the buffer is
  // strided, else the product of the group's extents.
  static std::vector<ir::Expr> flatShape(const ir::Buffer &buffer) {
    std::vector<ir::Expr> shape;
    for (auto [begin, end] : axisGroups(buffer)) {
      // canonical forms, as TVM's: `n * n * 32` for (32, n, n), the constant last
      ir::arith::Analyzer analyzer;
      if (!buffer.strides.empty() && begin < end) {
        shape.push_back(analyzer.canonicalSimplify(buffer.strides[begin] * buffer.shape[begin]));
        continue;
      }
      ir::Expr size = ir::intImm(1, begin < end ? buffer.shape[begin]->dtype : ir::DataType::int32());
      for (size_t k = begin; k < end; ++k) size = size * buffer.shape[k];
      shape.push_back(analyzer.canonicalSimplify(size));
    }
    return shape;
  }

  // An allocation's flat extent: that of the buffer declared right inside it, when it matches.
  std::vector<ir::Expr> flatExtents(const ir::Allocate &op) {
    if (op.extents.size() == 1) return op.extents;
    if (const auto *decl = op.body.as<ir::DeclBuffer>()) {
      const ir::Buffer &buffer = *decl->buffer;
      bool matching = buffer.data == op.bufferVar && buffer.dtype == op.dtype && buffer.rank() == op.extents.size();
      for (size_t i = 0; matching && i < op.extents.size(); ++i)
        matching = ir::structuralEqual(op.extents[i], buffer.shape[i]);
      if (matching) return flatShape(buffer);
    }
    ir::Expr size = ir::intImm(1, op.extents.empty() ? ir::DataType::int32() : op.extents[0]->dtype);
    for (const ir::Expr &extent : op.extents) size = size * extent;
    return {ir::simplify(size)};
  }

  ir::BufferRegion flattenRegion(const ir::BufferRegion &region) {
    ir::BufferRef flat = flattened(region.buffer);
    if (flat == region.buffer) return region;
    std::vector<ir::Expr> first, last;
    for (const ir::Range &range : region.region) {
      first.push_back(range.min);
      last.push_back(range.min + range.extent - 1);
    }
    std::vector<ir::Expr> mins = flatIndices(*region.buffer, first);
    std::vector<ir::Expr> maxs = flatIndices(*region.buffer, last);
    std::vector<ir::Range> ranges;
    for (size_t i = 0; i < mins.size(); ++i) ranges.push_back({mins[i], ir::simplify(maxs[i] + 1 - mins[i])});
    return {flat, std::move(ranges)};
  }

  std::unordered_map<const ir::Buffer *, ir::BufferRef> flat_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> flattenBuffer(const ir::PrimFuncRef &func, PassContext &) {
  if (isFromLegacyTeSchedule(*func)) return func;
  BufferFlattener flattener;
  return mutateBody(func, flattener);
}

}  // namespace vtac::passes
