#include "tir/StorageRewrite.h"

#include <algorithm>
#include <list>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/StorageScope.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {
namespace {

using ir::StorageScope;

// TVM's IsSpecialTaggedMemory: tagged memories whose allocations all merge into one (VTA's SRAMs).
bool isSpecialTagged(const StorageScope &scope) {
  return !scope.tag.empty() && scope.tag != ".dyn" && scope.tag != ".workspace" && scope.tag != ".vtcm";
}

uint64_t elementBits(ir::DataType t) { return uint64_t(t.bits()) * t.lanes(); }

// Elements of an allocation when all extents are literals, else 0.
uint64_t constantElements(const ir::Allocate &op) {
  uint64_t n = 1;
  for (const ir::Expr &e : op.extents) {
    auto v = ir::asConstInt(e);
    if (!v || *v < 0) return 0;
    n *= uint64_t(*v);
  }
  return n;
}

bool isThreadScopeAttr(const ir::AttrStmt &op) {
  return op.key == "thread_extent" || op.key == "virtual_thread" || llvm::StringRef(op.key).starts_with("pragma_");
}

// ---- linear access pattern ------------------------------------------------------------------

// One point of the linearised program: a statement that touches allocations, or the entry
// (pairOffset > 0, to its exit) or exit (pairOffset < 0) of a loop, `if`, let or thread scope.
// Touches are recorded on the statement at the allocation's own nesting level.
struct StmtEntry {
  const ir::Node *stmt = nullptr;
  int64_t pairOffset = 0;
  std::vector<const ir::Var *> touched;
};

struct AllocInfo {
  size_t level;
  const ir::Allocate *alloc;
};

class AccessLinearizer : public ir::StmtExprVisitor {
public:
  std::vector<StmtEntry> seq;
  std::unordered_map<const ir::Var *, AllocInfo> allocs;
  std::unordered_set<const ir::Buffer *> accessedBuffers;

  // Constant allocations (T.allocate_const) hold their data from the start: never planned.
  void visitAllocate(const ir::Allocate &op) override {
    if (!op.constantData) allocs[op.bufferVar.get()] = {scopes_.size(), &op};
    ir::StmtExprVisitor::visitAllocate(op);
  }
  void visitBufferStore(const ir::BufferStore &op) override {
    scopes_.emplace_back();
    ir::StmtExprVisitor::visitBufferStore(op);
    accessedBuffers.insert(op.buffer.get());
    touch(op.buffer->data.get());
    leaveStatement(op);
  }
  void visitBufferLoad(const ir::BufferLoad &op) override {
    ir::StmtExprVisitor::visitBufferLoad(op);
    accessedBuffers.insert(op.buffer.get());
    touch(op.buffer->data.get());
  }
  void visitEvaluate(const ir::Evaluate &op) override {
    scopes_.emplace_back();
    ir::StmtExprVisitor::visitEvaluate(op);
    leaveStatement(op);
  }
  // A bare use of the allocation's variable (a call argument, an access pointer).
  void visitVar(const ir::Var &op) override { touch(&op); }

  void visitFor(const ir::For &op) override { scope(op, [&] { ir::StmtExprVisitor::visitFor(op); }); }
  void visitIfThenElse(const ir::IfThenElse &op) override {
    scope(op, [&] { ir::StmtExprVisitor::visitIfThenElse(op); });
  }
  void visitWhile(const ir::While &op) override { scope(op, [&] { ir::StmtExprVisitor::visitWhile(op); }); }
  void visitAssertStmt(const ir::AssertStmt &op) override {
    scope(op, [&] { ir::StmtExprVisitor::visitAssertStmt(op); });
  }
  void visitLetStmt(const ir::LetStmt &op) override { scope(op, [&] { ir::StmtExprVisitor::visitLetStmt(op); }); }
  void visitAttrStmt(const ir::AttrStmt &op) override {
    // Only the outermost thread_extent is a scope.
    if (op.key == "thread_extent" && !inThreadEnv_) {
      inThreadEnv_ = true;
      scope(op, [&] { ir::StmtExprVisitor::visitAttrStmt(op); });
      inThreadEnv_ = false;
    } else if (op.key == "virtual_thread" || op.key == "extern_scope") {
      scope(op, [&] { ir::StmtExprVisitor::visitAttrStmt(op); });
    } else {
      ir::StmtExprVisitor::visitAttrStmt(op);
    }
  }

private:
  void touch(const ir::Var *var) {
    auto it = allocs.find(var);
    if (it != allocs.end() && it->second.level < scopes_.size()) scopes_[it->second.level].touched.push_back(var);
  }
  void leaveStatement(const ir::Node &stmt) {
    StmtEntry e = std::move(scopes_.back());
    scopes_.pop_back();
    if (e.touched.empty()) return;
    e.stmt = &stmt;
    seq.push_back(std::move(e));
  }
  template <class F> void scope(const ir::Node &op, F visitChildren) {
    scopes_.emplace_back();
    StmtEntry entry;
    entry.stmt = &op;
    int64_t begin = int64_t(seq.size());
    seq.push_back(entry);
    visitChildren();
    entry.touched = std::move(scopes_.back().touched);
    scopes_.pop_back();
    int64_t end = int64_t(seq.size());
    entry.pairOffset = begin - end;
    seq.push_back(std::move(entry));
    seq[begin].pairOffset = end - begin;
  }

  std::vector<StmtEntry> scopes_;
  bool inThreadEnv_ = false;
};

// ---- in-place check -------------------------------------------------------------------------

// Whether `stmt` may write dst into src's memory: every load of src is at exactly the index the
// enclosing store of dst writes, with the stored type; dst is never read; neither variable is
// used opaquely; no load is nested in an index (TVM's InplaceOpVerifier).
class InplaceChecker : public ir::StmtExprVisitor {
public:
  bool check(const ir::Node &stmt, const ir::Var *dst, const ir::Var *src) {
    dst_ = dst;
    src_ = src;
    ok_ = true;
    if (const auto *attr = stmt.as<ir::AttrStmt>()) visitAttrStmt(*attr);
    else if (const auto *loop = stmt.as<ir::For>()) visitFor(*loop);
    else if (const auto *branch = stmt.as<ir::IfThenElse>()) visitIfThenElse(*branch);
    else if (const auto *loop = stmt.as<ir::While>()) visitWhile(*loop);
    else if (const auto *store = stmt.as<ir::BufferStore>()) visitBufferStore(*store);
    else return false;
    return ok_;
  }

  void visitStmt(const ir::Stmt &s) override {
    if (ok_) ir::StmtExprVisitor::visitStmt(s);
  }
  void visitExpr(const ir::Expr &e) override {
    if (ok_) ir::StmtExprVisitor::visitExpr(e);
  }
  void visitVar(const ir::Var &op) override {
    if (&op == dst_ || &op == src_) ok_ = false;
  }
  void visitBufferStore(const ir::BufferStore &op) override {
    ++loadNesting_;
    for (const ir::Expr &i : op.indices) visitExpr(i);
    --loadNesting_;
    const ir::BufferStore *saved = store_;
    store_ = op.buffer->data.get() == dst_ ? &op : nullptr;
    visitExpr(op.value);
    store_ = saved;
  }
  void visitAttrStmt(const ir::AttrStmt &op) override {
    if (op.key == "extern_scope" || op.key == "volatile_scope") {
      ok_ = false;
      return;
    }
    ir::StmtExprVisitor::visitAttrStmt(op);
  }
  void visitBufferLoad(const ir::BufferLoad &op) override {
    const ir::Var *buffer = op.buffer->data.get();
    if (buffer == dst_ || loadNesting_ != 0) {
      ok_ = false;
      return;
    }
    if (buffer == src_) {
      if (!store_ || store_->value->dtype != op.dtype || store_->indices.size() != op.indices.size()) {
        ok_ = false;
        return;
      }
      for (size_t i = 0; i < op.indices.size(); ++i) {
        if (!ir::structuralEqual(store_->indices[i], op.indices[i])) {
          ok_ = false;
          return;
        }
      }
    }
    ++loadNesting_;
    ir::StmtExprVisitor::visitBufferLoad(op);
    --loadNesting_;
  }

private:
  const ir::Var *dst_ = nullptr, *src_ = nullptr;
  bool ok_ = true;
  int loadNesting_ = 0;
  const ir::BufferStore *store_ = nullptr;
};

// ---- planning and rewriting -----------------------------------------------------------------

struct StorageEntry {
  const ir::Node *attachScope = nullptr;  // null: the function body
  uint64_t constNbits = 0;                // 0: symbolic size
  StorageScope scope;
  std::vector<const ir::Allocate *> allocs;
  std::vector<StorageEntry *> mergedChildren;
  std::vector<ir::Stmt> allocNest;  // Allocate / DeclBuffer shells (bodies are placeholders)
  ir::VarRef allocVar;
  ir::DataType elemType;
  uint64_t bitsOffset = 0;
};

class StoragePlanner : public ir::StmtExprMutator {
public:
  explicit StoragePlanner(const PassContext &context) : context_(context) {}

  llvm::Expected<ir::Stmt> run(const ir::Stmt &body) {
    AccessLinearizer finder;
    finder.visitStmt(body);
    accessedBuffers_ = std::move(finder.accessedBuffers);
    analyzeLiveness(finder.seq);
    planMemory(finder.seq, finder.allocs);
    if (llvm::Error error = prepareNewAllocations()) return error;
    ir::Stmt result = visitStmt(body);
    if (auto it = attachMap_.find(nullptr); it != attachMap_.end()) result = attach(it->second, result);
    return result;
  }

  ir::Stmt visitAllocate(const ir::Allocate &op) override {
    return op.constantData ? ir::StmtExprMutator::visitAllocate(op) : visitStmt(op.body);
  }

  ir::Stmt visitDeclBuffer(const ir::DeclBuffer &op) override {
    if (hoistedDecls_.count(op.buffer.get()) || !accessedBuffers_.count(op.buffer.get())) return visitStmt(op.body);
    ir::Stmt body = visitStmt(op.body);
    ir::BufferRef buffer = remapBuffer(op.buffer);
    if (body == op.body && buffer == op.buffer) return ir::Stmt(&op);
    return ir::Stmt(new ir::DeclBuffer(buffer, body, op.loc()));
  }

  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    ir::Stmt visited = ir::StmtExprMutator::visitBufferStore(op);
    const auto *store = visited.as<ir::BufferStore>();
    auto it = allocMap_.find(store->buffer->data.get());
    if (it == allocMap_.end()) return visited;
    return ir::Stmt(new ir::BufferStore(remapBuffer(store->buffer), store->value,
                                        remapIndices(store->buffer->dtype, store->indices, *it->second), op.loc()));
  }

  ir::Expr visitBufferLoad(const ir::BufferLoad &op) override {
    ir::Expr visited = ir::StmtExprMutator::visitBufferLoad(op);
    const auto *load = visited.as<ir::BufferLoad>();
    auto it = allocMap_.find(load->buffer->data.get());
    if (it == allocMap_.end()) return visited;
    return ir::Expr(new ir::BufferLoad(remapBuffer(load->buffer),
                                       remapIndices(load->buffer->dtype, load->indices, *it->second), op.loc()));
  }

  ir::Expr visitVar(const ir::Var &op) override {
    auto it = allocMap_.find(&op);
    return it == allocMap_.end() ? ir::Expr(&op) : ir::Expr(it->second->allocVar);
  }

  ir::Expr visitCall(const ir::Call &op) override {
    if (op.op != "tir.tvm_access_ptr" || op.args.size() != 5) return ir::StmtExprMutator::visitCall(op);
    auto it = allocMap_.find(op.args[1].as<ir::Var>());
    if (it == allocMap_.end()) return ir::StmtExprMutator::visitCall(op);
    const StorageEntry &entry = *it->second;
    ir::Expr offset = visitExpr(op.args[2]), extent = visitExpr(op.args[3]);
    uint64_t bits = elementBits(op.args[0]->dtype);
    if (entry.bitsOffset != 0) offset = ir::addExpr(ir::intImm(int64_t(entry.bitsOffset / bits), offset->dtype), offset);
    return ir::Expr(new ir::Call(op.dtype, op.op, {op.args[0], entry.allocVar, offset, extent, op.args[4]}, op.loc()));
  }

  ir::Stmt visitAttrStmt(const ir::AttrStmt &op) override {
    ir::Stmt visited = ir::StmtExprMutator::visitAttrStmt(op);
    auto it = isThreadScopeAttr(op) ? attachMap_.find(&op) : attachMap_.end();
    if (it == attachMap_.end()) return visited;
    const auto *attr = visited.as<ir::AttrStmt>();
    return ir::Stmt(new ir::AttrStmt(attr->node, attr->key, attr->value, attach(it->second, attr->body), op.loc()));
  }

  ir::Stmt visitFor(const ir::For &op) override {
    ir::Stmt visited = ir::StmtExprMutator::visitFor(op);
    auto it = attachMap_.find(&op);
    if (it == attachMap_.end()) return visited;
    ir::For *copy = ir::copyNode(*visited.as<ir::For>());
    copy->body = attach(it->second, copy->body);
    return ir::Stmt(copy);
  }

private:
  struct Events {
    std::vector<const ir::Var *> gen, kill;
  };

  // An allocation is born at the first entry touching it (a scope's entry point for touches
  // inside it) and dies at the last.
  void analyzeLiveness(const std::vector<StmtEntry> &seq) {
    std::unordered_set<const ir::Var *> seen;
    for (size_t i = seq.size(); i-- > 0;)
      for (const ir::Var *v : seq[i].touched)
        if (seen.insert(v).second) events_[seq[i].stmt].kill.push_back(v);
    seen.clear();
    for (size_t i = 0; i < seq.size(); ++i) {
      if (seq[i].pairOffset < 0) continue;
      const StmtEntry &s = seq[i + seq[i].pairOffset];
      for (const ir::Var *v : s.touched)
        if (seen.insert(v).second) events_[s.stmt].gen.push_back(v);
    }
  }

  // Thread scopes nest (two virtual-thread axes, a parallel loop inside one): an allocation
  // attaches to the innermost, where inject-virtual-thread can replicate it per thread, and
  // storage freed inside a scope is forgotten when it closes.
  void enterThreadScope(const ir::Node *op) { threadScopes_.push_back(op); }
  void leaveThreadScope(const ir::Node *op) {
    auto inScope = [&](StorageEntry *e) { return e->attachScope == op; };
    for (auto it = constFree_.begin(); it != constFree_.end();) it = inScope(it->second) ? constFree_.erase(it) : std::next(it);
    symbolicFree_.remove_if(inScope);
    threadScopes_.pop_back();
  }
  const ir::Node *threadScope() const { return threadScopes_.empty() ? nullptr : threadScopes_.back(); }

  void planMemory(const std::vector<StmtEntry> &seq, const std::unordered_map<const ir::Var *, AllocInfo> &allocs) {
    std::unordered_set<const ir::Var *> inplaced;
    for (const StmtEntry &s : seq) {
      auto events = events_.find(s.stmt);
      if (events != events_.end() && s.pairOffset >= 0) {
        bool tryInplace = events->second.gen.size() <= 2;
        for (const ir::Var *var : events->second.gen) {
          const ir::Allocate *alloc = allocs.at(var).alloc;
          StorageScope scope = StorageScope::parse(alloc->scope());
          StorageEntry *dst = nullptr;
          if (tryInplace) {
            for (const ir::Var *src : events->second.kill) {
              auto srcEntry = allocMap_.find(src);
              if (dst || inplaced.count(src) || srcEntry == allocMap_.end()) continue;
              StorageEntry *e = srcEntry->second;
              if (e->scope == scope && e->attachScope == threadScope() && e->elemType == alloc->dtype.elementType() &&
                  InplaceChecker().check(*s.stmt, var, src) &&
                  e->constNbits == constantElements(*alloc) * elementBits(alloc->dtype)) {
                dst = e;
                inplaced.insert(src);
              }
            }
          }
          if (!dst) dst = findAllocation(*alloc, scope);
          dst->allocs.push_back(alloc);
          allocMap_[var] = dst;
        }
      }
      // A parallel loop is a scope only outside every other (as in TVM).
      const auto *attr = s.stmt->as<ir::AttrStmt>();
      const auto *loop = s.stmt->as<ir::For>();
      bool parallel = loop && loop->forKind == ir::ForKind::Parallel;
      if ((attr && isThreadScopeAttr(*attr)) || (parallel && (!threadScope() || threadScope() == s.stmt))) {
        if (s.pairOffset > 0) enterThreadScope(s.stmt);
        else if (threadScope() == s.stmt) leaveThreadScope(s.stmt);
      }
      if (events != events_.end() && s.pairOffset <= 0)
        for (const ir::Var *var : events->second.kill)
          if (!inplaced.count(var)) release(var);
    }
  }

  StorageEntry *newEntry(const ir::Allocate &op, const StorageScope &scope, uint64_t constNbits) {
    auto entry = std::make_unique<StorageEntry>();
    entry->attachScope = threadScope();
    entry->scope = scope;
    entry->elemType = op.dtype.elementType();
    entry->constNbits = constNbits;
    entries_.push_back(std::move(entry));
    return entries_.back().get();
  }

  // Never reused: untagged local (or narrower) memory, handles, arrays of at most 32 bits.
  static bool isSmallArray(const ir::Allocate &op, const StorageScope &scope, uint64_t constNbits) {
    return scope.tag.empty() && (scope.rank >= StorageScope::Warp || op.dtype.isHandle() ||
                                 (constNbits != 0 && constNbits <= 32));
  }

  // A free entry of the same scope and attach scope whose size is within 16x (larger ones
  // first), or a new one.
  StorageEntry *findAllocation(const ir::Allocate &op, const StorageScope &scope) {
    constexpr uint64_t kMatchRange = 16;
    uint64_t bits = elementBits(op.dtype);
    uint64_t constNbits = constantElements(op) * bits;
    if (isSmallArray(op, scope, constNbits) || op.extents.size() != 1) return newEntry(op, scope, constNbits);
    auto fits = [&](StorageEntry *e) { return e->attachScope == threadScope() && e->scope == scope; };
    if (constNbits != 0) {
      auto begin = constFree_.lower_bound(constNbits / kMatchRange);
      auto mid = constFree_.lower_bound(constNbits);
      auto end = constFree_.upper_bound(constNbits * kMatchRange);
      for (auto it = mid; it != end; ++it) {
        StorageEntry *e = it->second;
        if (!fits(e) || e->bitsOffset % bits != 0) continue;
        e->constNbits = std::max(constNbits, e->constNbits);
        constFree_.erase(it);
        return e;
      }
      for (auto it = mid; it != begin;) {
        --it;
        StorageEntry *e = it->second;
        if (!fits(e) || e->elemType != op.dtype.elementType()) continue;
        e->constNbits = std::max(constNbits, e->constNbits);
        constFree_.erase(it);
        return e;
      }
    } else {
      for (auto it = symbolicFree_.begin(); it != symbolicFree_.end(); ++it) {
        StorageEntry *e = *it;
        if (!fits(e) || e->elemType != op.dtype.elementType()) continue;
        symbolicFree_.erase(it);
        return e;
      }
    }
    return newEntry(op, scope, constNbits);
  }

  void release(const ir::Var *var) {
    StorageEntry *e = allocMap_.at(var);
    if (e->scope.tag.empty()) {
      if (e->scope.rank >= StorageScope::Warp || e->allocs[0]->dtype.isHandle()) return;
      if (e->constNbits > 0 && e->constNbits <= 32) return;
    }
    if (e->constNbits != 0) constFree_.insert({e->constNbits, e});
    else symbolicFree_.push_back(e);
  }

  llvm::Error checkFits(const StorageEntry &e, uint64_t totalBits) const {
    auto info = context_.memoryInfo.find(e.scope.name);
    if (info == context_.memoryInfo.end() || totalBits <= info->second.maxNumBits) return llvm::Error::success();
    return ir::diagnosticError(e.allocs[0]->loc(), "the allocations in '" + e.scope.name + "' need " +
                                                       std::to_string(totalBits / 8) + " bytes, which exceeds the " +
                                                       std::to_string(info->second.maxNumBits / 8) +
                                                       " bytes of that memory");
  }

  llvm::Error prepareNewAllocations() {
    for (const auto &e : entries_) attachMap_[e->attachScope].push_back(e.get());
    for (auto &[scope, entries] : attachMap_) {
      // Each tagged entry merges into the first earlier entry of its scope.
      for (size_t i = 0; i < entries.size(); ++i) {
        StorageEntry *e = entries[i];
        if (!isSpecialTagged(e->scope)) continue;
        if (e->constNbits == 0)
          return ir::diagnosticError(e->allocs[0]->loc(), "an allocation in '" + e->scope.name + "' must have a constant size");
        for (size_t j = 0; j < i; ++j) {
          if (entries[j]->scope == e->scope) {
            entries[j]->mergedChildren.push_back(e);
            break;
          }
        }
      }
      for (StorageEntry *e : entries) {
        if (e->bitsOffset != 0) continue;
        llvm::Error error = e->mergedChildren.empty() ? allocateEntry(*e) : allocateMerged(*e);
        if (error) return error;
      }
    }
    return llvm::Error::success();
  }

  llvm::Error allocateEntry(StorageEntry &e) {
    const ir::Allocate &first = *e.allocs[0];
    e.allocVar = first.bufferVar;
    ir::DataType allocType = first.dtype;
    for (const ir::Allocate *op : e.allocs)
      if (op->dtype.lanes() > allocType.lanes()) allocType = op->dtype;
    bool identical = std::all_of(e.allocs.begin() + 1, e.allocs.end(), [&](const ir::Allocate *op) {
      if (op->dtype != first.dtype || op->extents.size() != first.extents.size()) return false;
      for (size_t i = 0; i < op->extents.size(); ++i)
        if (!ir::structuralEqual(op->extents[i], first.extents[i])) return false;
      return true;
    });
    ir::Stmt placeholder(new ir::Evaluate(ir::intImm(0)));
    if (identical) {
      e.allocNest.push_back(ir::Stmt(new ir::Allocate(e.allocVar, allocType, first.extents, first.condition, placeholder,
                                                      first.annotations, first.loc())));
      if (const auto *decl = first.body.as<ir::DeclBuffer>()) {
        e.allocNest.push_back(ir::Stmt(new ir::DeclBuffer(remapBuffer(decl->buffer), placeholder, decl->loc())));
        hoistedDecls_.insert(decl->buffer.get());
      }
    } else {
      // Entries reused with different shapes: the largest of them, in allocType elements.
      ir::Expr bits;
      for (const ir::Allocate *op : e.allocs) {
        if (op->extents.size() != 1)
          return ir::diagnosticError(op->loc(), "a reused allocation must be one-dimensional (run flatten-buffer first)");
        ir::Expr size = op->extents[0];
        uint64_t nbits = elementBits(op->dtype);
        if (auto v = ir::asConstInt(size); v && uint64_t(*v) > uint64_t(INT32_MAX) / nbits)
          size = ir::intImm(*v, ir::DataType::int64());
        ir::Expr sizeBits = ir::mulExpr(size, ir::intImm(int64_t(nbits), size->dtype));
        bits = bits ? ir::makeBinary(ir::NodeKind::Max, bits, sizeBits) : sizeBits;
      }
      int64_t typeBits = int64_t(elementBits(allocType));
      bool divisible = analyzer_.canProve(ir::makeBinary(
          ir::NodeKind::EQ, ir::floorModExpr(bits, ir::intImm(typeBits, bits->dtype)), ir::intImm(0, bits->dtype)));
      ir::Expr size = ir::floorDivExpr(bits, ir::intImm(typeBits, bits->dtype));
      if (!divisible) size = ir::addExpr(size, ir::intImm(1, size->dtype));
      e.allocNest.push_back(ir::Stmt(new ir::Allocate(e.allocVar, allocType, {analyzer_.simplify(size)}, nullptr,
                                                      placeholder, {}, first.loc())));
    }
    if (isSpecialTagged(e.scope)) return checkFits(e, e.constNbits);
    return llvm::Error::success();
  }

  // One allocation for the entry and its merged children, each child at an aligned offset.
  llvm::Error allocateMerged(StorageEntry &e) {
    auto info = context_.memoryInfo.find(e.scope.name);
    uint64_t align = info != context_.memoryInfo.end() && info->second.maxSimdBits ? info->second.maxSimdBits : 32;
    auto alignUp = [&](uint64_t bits) { return bits % align ? bits + align - bits % align : bits; };
    uint64_t totalBits = alignUp(e.constNbits);
    e.allocVar = e.allocs[0]->bufferVar;
    for (StorageEntry *child : e.mergedChildren) {
      child->bitsOffset = totalBits;
      child->allocVar = e.allocVar;
      totalBits = alignUp(totalBits + child->constNbits);
    }
    uint64_t typeBits = elementBits(e.elemType);
    const ir::Allocate &first = *e.allocs[0];
    ir::Expr size = ir::intImm(int64_t((totalBits + typeBits - 1) / typeBits), first.extents[0]->dtype);
    e.allocNest.push_back(ir::Stmt(new ir::Allocate(e.allocVar, e.elemType, {size}, nullptr,
                                                    ir::Stmt(new ir::Evaluate(ir::intImm(0))), {}, first.loc())));
    return checkFits(e, totalBits);
  }

  static ir::Stmt wrap(const ir::Stmt &shell, ir::Stmt body) {
    if (const auto *alloc = shell.as<ir::Allocate>()) {
      ir::Allocate *copy = ir::copyNode(*alloc);
      copy->body = std::move(body);
      return ir::Stmt(copy);
    }
    ir::DeclBuffer *copy = ir::copyNode(*shell.as<ir::DeclBuffer>());
    copy->body = std::move(body);
    return ir::Stmt(copy);
  }

  static ir::Stmt attach(const std::vector<StorageEntry *> &entries, ir::Stmt body) {
    for (auto e = entries.rbegin(); e != entries.rend(); ++e)
      for (auto shell = (*e)->allocNest.rbegin(); shell != (*e)->allocNest.rend(); ++shell) body = wrap(*shell, body);
    return body;
  }

  std::vector<ir::Expr> remapIndices(ir::DataType dtype, std::vector<ir::Expr> indices, const StorageEntry &e) {
    if (e.bitsOffset == 0 || indices.empty()) return indices;
    ir::Expr &last = indices.back();
    last = ir::addExpr(ir::intImm(int64_t(e.bitsOffset / uint64_t(dtype.bits())), last->dtype), last);
    return indices;
  }

  // The buffer over its entry's allocation, named after it (as TVM does); one per buffer.
  ir::BufferRef remapBuffer(const ir::BufferRef &buffer) {
    auto entry = allocMap_.find(buffer->data.get());
    if (entry == allocMap_.end()) return buffer;
    auto [it, inserted] = bufferRemap_.try_emplace(buffer.get());
    if (inserted) {
      // Everything else (strides, axis separators, ...) stays as the buffer declares it.
      ir::Buffer *copy = ir::copyNode(*buffer);
      copy->data = entry->second->allocVar;
      copy->name = copy->data->name;
      it->second = ir::BufferRef(copy);
    }
    return it->second;
  }

  const PassContext &context_;
  ir::arith::Analyzer analyzer_;
  std::vector<const ir::Node *> threadScopes_;
  std::unordered_map<const ir::Node *, Events> events_;
  std::multimap<uint64_t, StorageEntry *> constFree_;
  std::list<StorageEntry *> symbolicFree_;
  std::map<const ir::Node *, std::vector<StorageEntry *>> attachMap_;
  std::unordered_map<const ir::Var *, StorageEntry *> allocMap_;
  std::vector<std::unique_ptr<StorageEntry>> entries_;
  std::unordered_map<const ir::Buffer *, ir::BufferRef> bufferRemap_;
  std::unordered_set<const ir::Buffer *> hoistedDecls_;
  std::unordered_set<const ir::Buffer *> accessedBuffers_;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> storageRewrite(const ir::PrimFuncRef &func, PassContext &context) {
  auto body = StoragePlanner(context).run(func->body);
  if (!body) return body.takeError();
  return withBody(func, std::move(*body));
}

}  // namespace vtac::passes
