#include "host/VectorizeOuterLoops.h"

#include <map>
#include <set>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/SideEffect.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/PassSupport.h"
#include "vtac/passes/Vta.h"

namespace vtac::passes {
namespace {

// `index` as `var + base` (coefficient one), or nullopt.
std::optional<ir::Expr> unitStrideBase(const ir::Expr &index, const ir::VarRef &var) {
  auto linear = ir::detectLinearEquation(index, {var});
  if (!linear || linear->coeffs[0] != 1) return std::nullopt;
  return linear->base;
}

// Whether the iterations of a loop over `var` with `body` can run as vector lanes (the
// conditions in the header). Reads the body once; `valid()` is the answer.
class LaneIndependence : public ir::StmtExprVisitor {
public:
  LaneIndependence(const ir::For &loop) : var_(loop.loopVar) {
    visitStmt(loop.body);
    if (!containsLoop_) valid_ = false;
    for (const auto &[data, bases] : accesses_) {
      if (!stored_.count(data)) continue;
      for (const std::optional<ir::Expr> &base : bases)
        if (!base || usesInnerVar(*base) || !ir::structuralEqual(*base, *bases[0])) valid_ = false;
    }
  }

  bool valid() const { return valid_; }
  // The element type of the stores (the widest when they differ).
  int storedBytes() const { return storedBytes_; }

  void visitStmt(const ir::Stmt &stmt) override {
    if (!valid_) return;
    switch (stmt->kind()) {
    case ir::NodeKind::SeqStmt:
    case ir::NodeKind::BufferStore:
      break;
    case ir::NodeKind::DeclBuffer: {
      const ir::Buffer &buffer = *stmt.as<ir::DeclBuffer>()->buffer;
      for (const auto &parts : {buffer.shape, buffer.strides})
        for (const ir::Expr &e : parts) requireInvariant(e);
      if (buffer.elemOffset) requireInvariant(buffer.elemOffset);
      break;
    }
    case ir::NodeKind::For: {
      auto *loop = stmt.as<ir::For>();
      containsLoop_ = true;
      valid_ &= loop->forKind == ir::ForKind::Serial && loop->annotations.empty();
      requireInvariant(loop->min);
      requireInvariant(loop->extent);
      inner_.insert(loop->loopVar.get());
      break;
    }
    case ir::NodeKind::LetStmt: {
      auto *let = stmt.as<ir::LetStmt>();
      requireInvariant(let->value);
      inner_.insert(let->var.get());
      break;
    }
    case ir::NodeKind::IfThenElse:
      requireInvariant(stmt.as<ir::IfThenElse>()->condition);
      break;
    default:
      valid_ = false;  // allocations, attributes, evaluated calls, asserts, while loops
      return;
    }
    if (auto *store = stmt.as<ir::BufferStore>()) {
      stored_.insert(store->buffer->data.get());
      storedBytes_ = std::max(storedBytes_, store->buffer->dtype.bytes());
      valid_ &= store->value->dtype.isScalar();
      record(*store->buffer, store->indices);
    }
    ir::StmtExprVisitor::visitStmt(stmt);
  }

  void visitExpr(const ir::Expr &expr) override {
    if (!valid_) return;
    if (expr.isa<ir::Call>()) valid_ &= ir::sideEffect(expr) != ir::SideEffect::Opaque && !usesLaneVar(expr);
    if (auto *load = expr.as<ir::BufferLoad>()) record(*load->buffer, load->indices);
    ir::StmtExprVisitor::visitExpr(expr);
  }

private:
  bool usesLaneVar(const ir::Expr &e) const { return ir::usesVar(e, var_.get()); }
  void requireInvariant(const ir::Expr &e) { valid_ &= !usesLaneVar(e); }
  bool usesInnerVar(const ir::Expr &e) const {
    bool found = false;
    ir::preOrderVisit(e, [&](const ir::Node &node) { found |= inner_.count(node.as<ir::Var>()) != 0; });
    return found;
  }

  void record(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices) {
    if (indices.size() != 1 || !indices[0]->dtype.isScalar() || !buffer.strides.empty()) {
      valid_ = false;
      return;
    }
    std::optional<ir::Expr> base = unitStrideBase(indices[0], var_);
    // A load that depends on j other than contiguously would be a gather.
    if (!base && usesLaneVar(indices[0])) valid_ = false;
    accesses_[buffer.data.get()].push_back(base);
  }

  ir::VarRef var_;
  bool valid_ = true;
  bool containsLoop_ = false;
  int storedBytes_ = 0;
  std::set<const ir::Var *> inner_;    // variables defined inside the body
  std::set<const ir::Var *> stored_;   // data variables of the stores
  // By data variable: each access's index as var + base, none for another form.
  std::map<const ir::Var *, std::vector<std::optional<ir::Expr>>> accesses_;
};

// The arithmetic the emitters widen lane by lane as they do scalars.
bool isLaneWise(ir::NodeKind kind) {
  return kind == ir::NodeKind::Add || kind == ir::NodeKind::Sub || kind == ir::NodeKind::Mul ||
         kind == ir::NodeKind::Min || kind == ir::NodeKind::Max;
}

// The body of the loop over `var` with each store computing `lanes` iterations starting at
// `first`. Only called on bodies LaneIndependence accepts; a value it cannot widen (a call
// mentioning j, a select) leaves `failed` set.
class LaneWidener : public ir::StmtExprMutator {
public:
  LaneWidener(ir::VarRef var, ir::Expr first, int lanes) : var_(std::move(var)), first_(std::move(first)), lanes_(lanes) {}

  bool failed = false;

  ir::Stmt visitBufferStore(const ir::BufferStore &op) override {
    return ir::make<ir::BufferStore>(op.buffer, widen(op.value), std::vector<ir::Expr>{widenIndex(op.indices[0])}, op.loc());
  }

private:
  ir::Expr widenIndex(const ir::Expr &index) {
    return ir::make<ir::Ramp>(ir::simplify(ir::substitute(index, {{var_.get(), first_}})), ir::intImm(1, index->dtype),
                              lanes_, index->loc());
  }

  ir::Expr widen(const ir::Expr &e) {
    if (!ir::usesVar(e, var_.get())) return ir::make<ir::Broadcast>(e, lanes_, e->loc());
    if (e.get() == var_.get()) return ir::make<ir::Ramp>(first_, ir::intImm(1, e->dtype), lanes_, e->loc());
    if (auto *load = e.as<ir::BufferLoad>())
      return ir::make<ir::BufferLoad>(load->buffer, std::vector<ir::Expr>{widenIndex(load->indices[0])}, e->loc());
    if (auto *cast = e.as<ir::Cast>())
      return ir::make<ir::Cast>(cast->dtype.withLanes(lanes_), widen(cast->value), e->loc());
    auto *binary = e.as<ir::BinaryExpr>();
    if (binary && isLaneWise(e->kind()))
      return ir::make<ir::BinaryExpr>(e->kind(), widen(binary->a), widen(binary->b), e->loc());
    failed = true;
    return e;
  }

  ir::VarRef var_;
  ir::Expr first_;
  int lanes_;
};

// The most elements of `elementBytes` in 128, 64, 32 or 16 bytes that divides `extent`, or 0.
int chooseLanes(int elementBytes, int64_t extent) {
  for (int bytes : {128, 64, 32, 16}) {
    int lanes = bytes / elementBytes;
    if (lanes >= 2 && extent % lanes == 0) return lanes;
  }
  return 0;
}

class OuterLoopVectorizer : public ir::StmtExprMutator {
public:
  ir::Stmt visitFor(const ir::For &op) override {
    ir::Stmt visited = StmtExprMutator::visitFor(op);
    const auto *loop = visited.as<ir::For>();
    auto extent = ir::asConstInt(loop->extent);
    if (loop->forKind != ir::ForKind::Serial || !loop->annotations.empty() || !extent || !ir::asConstInt(loop->min) ||
        !loop->loopVar->dtype.isInt())
      return visited;
    LaneIndependence independence(*loop);
    int lanes = independence.valid() ? chooseLanes(independence.storedBytes(), *extent) : 0;
    if (lanes == 0) return visited;
    // One vector of all the iterations needs no loop.
    ir::VarRef outer = ir::makeVar(loop->loopVar->name + "_0", loop->loopVar->dtype, loop->loopVar->loc());
    ir::Expr first = *extent == lanes ? loop->min : ir::simplify(loop->min + outer * lanes);
    LaneWidener widener(loop->loopVar, first, lanes);
    ir::Stmt body = widener.visitStmt(loop->body);
    if (widener.failed) return visited;
    if (*extent == lanes) return body;
    return ir::make<ir::For>(outer, ir::intImm(0, loop->extent->dtype), ir::intImm(*extent / lanes, loop->extent->dtype),
                             ir::ForKind::Serial, body, nullptr, ir::AttrMap{}, loop->loc());
  }
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> vectorizeOuterLoops(const ir::PrimFuncRef &func, PassContext &) {
  // A VTA function's buffers are VTA buffers, which the code generators do not promise apart.
  if (!promisesNoAlias(*func) || usesVta(func->body)) return func;
  return withBody(func, OuterLoopVectorizer().visitStmt(func->body));
}

}  // namespace vtac::passes
