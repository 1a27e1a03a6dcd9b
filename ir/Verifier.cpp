// The well-formedness checker: one walk with the set of variables in scope, checking scoping,
// ranks and dtypes as it goes. A problem is reported at the node's own location, or at the
// innermost enclosing statement that has one.
#include "vtac/ir/Verifier.h"

#include <algorithm>
#include <unordered_set>

#include "vtac/ir/CommReducer.h"
#include "vtac/ir/Visitor.h"

namespace vtac::ir {
namespace {

class WellFormedChecker : public StmtExprVisitor {
public:
  std::vector<VerifierDiagnostic> check(const PrimFunc &func) {
    locations_.push_back(func.loc());
    for (const VarRef &p : func.params) define(*p, func);
    // A bound entry's body binds its buffers' data and sizes from the DLTensors itself.
    bool bound = isEntryBound(func);
    for (const auto &entry : func.bufferMap) {
      if (!bound) defineBufferVars(*entry.second, func);
      checkExtents(entry.second->shape, *entry.second, "buffer '" + entry.second->name + "'");
    }
    // A size only a compound dimension names (`n` of `(n * 32,)`) is still one of the
    // function's sizes: the caller gives it (TVM's buffer_map defines it the same way).
    if (!bound)
      for (const auto &entry : func.bufferMap) defineCompoundLayoutVars(*entry.second);
    visitStmt(func.body);
    return std::move(diagnostics_);
  }

  void visitStmt(const Stmt &s) override {
    if (!s) {
      diagnostics_.push_back({locations_.back(), "missing statement (an empty field)"});
      return;
    }
    bool nests = !s.isa<SeqStmt>();
    if (nests && ++stmtDepth_ > kMaxStatementDepth) {
      if (!reportedTooDeep_)
        report(*s, "nesting too deep (limit " + std::to_string(kMaxStatementDepth) + ")");
      reportedTooDeep_ = true;
      --stmtDepth_;
      return;
    }
    locations_.push_back(s->loc().isKnown() ? s->loc() : locations_.back());
    StmtExprVisitor::visitStmt(s);
    locations_.pop_back();
    if (nests)
      --stmtDepth_;
  }

  // Expressions refine the location too, except variables (their location is where they
  // were declared, not where they are used).
  void visitExpr(const Expr &e) override {
    if (!e) {
      diagnostics_.push_back({locations_.back(), "missing expression (an empty field)"});
      return;
    }
    bool refines = e->loc().isKnown() && !e.isa<Var>();
    if (refines) locations_.push_back(e->loc());
    StmtExprVisitor::visitExpr(e);
    if (refines) locations_.pop_back();
  }

  // ---- expressions -----------------------------------------------------------------------
  void visitVar(const Var &op) override {
    if (!inScope_.count(&op) && reportedVars_.insert(&op).second)
      diagnostics_.push_back({locations_.back(), "variable '" + op.name + "' is used outside the scope that defines it"});
  }

  void visitBinary(const BinaryExpr &op) override {
    StmtExprVisitor::visitBinary(op);
    const char *name = nodeKindName(op.kind());
    if (dtypeOf(op.a) != dtypeOf(op.b)) {
      report(op, std::string("operands of ") + name + " have different dtypes (" + dtypeOf(op.a).str() +
                     " and " + dtypeOf(op.b).str() + ")");
    } else if (BinaryExpr::isLogical(op.kind()) && !dtypeOf(op.a).isBool()) {
      report(op, std::string("operands of ") + name + " must be bool, not " + dtypeOf(op.a).str());
    }
  }

  void visitNot(const Not &op) override {
    StmtExprVisitor::visitNot(op);
    requireBool(op.a, op, "operand of Not");
  }

  void visitSelect(const Select &op) override {
    StmtExprVisitor::visitSelect(op);
    requireBool(op.condition, op, "condition of Select");
    if (dtypeOf(op.trueValue) != dtypeOf(op.falseValue)) report(op, "branches of Select have different dtypes");
  }

  void visitCall(const Call &op) override {
    StmtExprVisitor::visitCall(op);
    if (op.op == "tir.if_then_else") {
      if (op.args.size() != 3) {
        report(op, "T.if_then_else takes 3 arguments, not " + std::to_string(op.args.size()));
        return;
      }
      requireBool(op.args[0], op, "condition of T.if_then_else");
      if (dtypeOf(op.args[1]) != dtypeOf(op.args[2])) report(op, "branches of T.if_then_else have different dtypes");
    }
  }

  void visitLet(const Let &op) override {
    visitExpr(op.value);
    if (dtypeOf(op.value) != op.var->dtype) report(op, "let value dtype differs from variable '" + op.var->name + "'");
    define(*op.var, op);
    visitExpr(op.body);
    inScope_.erase(op.var.get());
  }

  void visitBufferLoad(const BufferLoad &op) override {
    checkAccess(op.buffer, op.indices, op);
    StmtExprVisitor::visitBufferLoad(op);
  }

  // ---- statements ------------------------------------------------------------------------
  void visitBufferStore(const BufferStore &op) override {
    checkAccess(op.buffer, op.indices, op);
    StmtExprVisitor::visitBufferStore(op);
    int lanes = op.indices.empty() ? 1 : dtypeOf(op.indices.back()).lanes();
    DataType expected = op.buffer->dtype.withLanes(op.buffer->dtype.lanes() * lanes);
    if (dtypeOf(op.value) != expected) {
      report(op, "stored value has dtype " + dtypeOf(op.value).str() + " but buffer '" + op.buffer->name +
                     "' holds " + expected.str());
    }
  }

  void visitLetStmt(const LetStmt &op) override {
    visitExpr(op.value);
    if (dtypeOf(op.value) != op.var->dtype) {
      report(op, "value of '" + op.var->name + "' has dtype " + dtypeOf(op.value).str() + ", the variable " +
                     op.var->dtype.str());
    }
    define(*op.var, op);
    visitStmt(op.body);
    inScope_.erase(op.var.get());
  }

  void visitAttrStmt(const AttrStmt &op) override {
    // An iteration variable attached by T.attr (thread or coprocessor scope) is in scope for
    // the body; nested attributes on the same variable do not redefine it.
    const Var *scoped = nullptr;
    if (const auto *iv = op.node.as<IterVar>()) {
      visitRange(iv->dom);
      if (!inScope_.count(iv->var.get())) {
        scoped = iv->var.get();
        inScope_.insert(scoped);
      }
    } else if (const auto *reducer = op.node.as<CommReducer>()) {
      checkReducer(*reducer, op);
    } else if (const auto *e = op.node.as<ExprNode>(); e && !e->isa<Var>()) {
      // A variable as the node only names what the attribute is about: TensorIR's pragma
      // attributes name the loop variable of the loop they enclose (TVM's LowerOpaqueBlock).
      visitExpr(Expr(e));
    }
    StmtExprVisitor::visitAttrStmt(op);
    if (scoped) inScope_.erase(scoped);
  }

  void visitAssertStmt(const AssertStmt &op) override {
    requireBool(op.condition, op, "assert condition");
    StmtExprVisitor::visitAssertStmt(op);
  }

  void visitFor(const For &op) override {
    visitExpr(op.min);
    visitExpr(op.extent);
    DataType t = op.loopVar->dtype;
    if (dtypeOf(op.min) != t || dtypeOf(op.extent) != t) {
      report(op, "bounds of loop '" + op.loopVar->name + "' (" + dtypeOf(op.min).str() + ", " +
                     dtypeOf(op.extent).str() + ") differ from its variable's dtype " + t.str());
    }
    if ((op.forKind == ForKind::ThreadBinding) != bool(op.threadBinding))
      report(op, "loop '" + op.loopVar->name + "': a thread binding goes with kind thread_binding only");
    define(*op.loopVar, op);
    visitStmt(op.body);
    inScope_.erase(op.loopVar.get());
  }

  void visitWhile(const While &op) override {
    requireBool(op.condition, op, "while condition");
    StmtExprVisitor::visitWhile(op);
  }

  void visitIfThenElse(const IfThenElse &op) override {
    requireBool(op.condition, op, "if condition");
    StmtExprVisitor::visitIfThenElse(op);
  }

  // A reducer is closed: its results see only its parameters (the enclosing scope is set
  // aside while they are visited); one lhs, rhs, result and constant identity per value, of
  // one dtype.
  void checkReducer(const CommReducer &reducer, const AttrStmt &at) {
    size_t count = reducer.result.size();
    if (reducer.lhs.size() != count || reducer.rhs.size() != count || reducer.identity.size() != count) {
      return report(at, "reducer has " + std::to_string(reducer.lhs.size()) + " lhs, " +
                            std::to_string(reducer.rhs.size()) + " rhs, " + std::to_string(count) + " results and " +
                            std::to_string(reducer.identity.size()) + " identity elements; they must agree");
    }
    std::unordered_set<const Var *> enclosing = std::move(inScope_);
    inScope_.clear();
    for (const std::vector<VarRef> *parameters : {&reducer.lhs, &reducer.rhs})
      for (const VarRef &var : *parameters) define(*var, at);
    visitExprs(reducer.result);
    inScope_ = std::move(enclosing);
    for (size_t i = 0; i < count; ++i) {
      DataType dtype = dtypeOf(reducer.identity[i]);
      if (!reducer.identity[i].isa<IntImm>() && !reducer.identity[i].isa<FloatImm>())
        report(at, "identity element " + std::to_string(i) + " of the reducer is not a constant");
      if (reducer.lhs[i]->dtype != dtype || reducer.rhs[i]->dtype != dtype || dtypeOf(reducer.result[i]) != dtype)
        report(at, "value " + std::to_string(i) + " of the reducer mixes dtypes (identity " + dtype.str() + ")");
    }
  }

  // T.allocate_const: the data has the allocation's dtype and one element per allocated one.
  void checkConstantData(const Allocate &op) {
    const ConstantData &data = *op.constantData;
    if (data.dtype() != op.dtype)
      report(op, "constant data of '" + op.bufferVar->name + "' is " + data.dtype().str() + ", not " + op.dtype.str());
    uint64_t elements = 1;
    for (const Expr &e : op.extents) {
      const auto *extent = e.as<IntImm>();
      if (!extent) return report(op, std::string("constant allocation '") + op.bufferVar->name + "' needs constant extents");
      elements *= uint64_t(extent->value);
    }
    if (elements != data.size())
      report(op, "constant allocation '" + op.bufferVar->name + "' has " + std::to_string(elements) +
                     " elements but " + std::to_string(data.size()) + " values");
  }

  void visitAllocate(const Allocate &op) override {
    visitExprs(op.extents);
    for (const Expr &e : op.extents)
      if (!dtypeOf(e).isIntOrUInt()) report(op, "allocation extent of '" + op.bufferVar->name + "' is not an integer");
    checkExtents(op.extents, op, "allocation '" + op.bufferVar->name + "'");
    if (op.constantData) checkConstantData(op);
    if (op.condition) {
      visitExpr(op.condition);
      requireBool(op.condition, op, "allocation condition");
    }
    define(*op.bufferVar, op);
    visitStmt(op.body);
    inScope_.erase(op.bufferVar.get());
  }

  void visitDeclBuffer(const DeclBuffer &op) override {
    checkBufferData(*op.buffer, op);
    checkExtents(op.buffer->shape, op, "buffer '" + op.buffer->name + "'");
    visitStmt(op.body);
  }

  void visitBlockRealize(const BlockRealize &op) override {
    const Block &block = *op.block;
    visitExprs(op.iterValues);
    if (op.predicate) {
      visitExpr(op.predicate);
      requireBool(op.predicate, op, "block predicate (T.where)");
    }
    if (op.iterValues.size() != block.iterVars.size()) {
      report(op, "block '" + block.name + "' binds " + std::to_string(op.iterValues.size()) + " values to " +
                     std::to_string(block.iterVars.size()) + " iteration variables");
    } else {
      for (size_t i = 0; i < op.iterValues.size(); ++i) {
        const Var &v = *block.iterVars[i]->var;
        // An integer binding may be wider or narrower than its variable: fusing an int32 loop
        // with an int64 one binds the int32 variable from the int64 fused loop, as in TVM.
        DataType bound = dtypeOf(op.iterValues[i]);
        if (bound != v.dtype && !(bound.isIntOrUInt() && v.dtype.isIntOrUInt())) {
          report(op, "binding of '" + v.name + "' in block '" + block.name + "' has dtype " +
                         dtypeOf(op.iterValues[i]).str() + ", the variable " + v.dtype.str());
        }
      }
    }
    visitStmt(op.block);
  }

  void visitBlock(const Block &op) override {
    std::vector<const Var *> blockScope;
    auto defineHere = [&](const Var &v, const Node &at) {
      if (define(v, at)) blockScope.push_back(&v);
    };
    for (const IterVarRef &iv : op.iterVars) {
      visitRange(iv->dom);
      defineHere(*iv->var, op);
    }
    for (const BufferRef &b : op.allocBuffers) {
      visitExprs(b->shape);
      checkExtents(b->shape, *b, "buffer '" + b->name + "'");
      defineHere(*b->data, op);
    }
    for (const MatchBufferRegion &m : op.matchBuffers) {
      checkRegion(m.source, op);
      for (const Var *v : newBufferVars(*m.buffer)) defineHere(*v, op);
    }
    for (const BufferRegion &r : op.reads) checkRegion(r, op);
    for (const BufferRegion &r : op.writes) checkRegion(r, op);
    if (op.init) visitStmt(op.init);
    visitStmt(op.body);
    for (const Var *v : blockScope) inScope_.erase(v);
  }

private:
  size_t stmtDepth_ = 0;
  bool reportedTooDeep_ = false;

  void report(const Node &at, std::string message) {
    diagnostics_.push_back({at.loc().isKnown() ? at.loc() : locations_.back(), std::move(message)});
  }

  // Missing expressions are reported on their own; here they have no dtype.
  static DataType dtypeOf(const Expr &e) { return e ? e->dtype : DataType::voidTy(); }

  void requireBool(const Expr &e, const Node &at, const char *what) {
    if (e && !dtypeOf(e).isBool()) report(at, std::string(what) + " has dtype " + dtypeOf(e).str() + ", expected bool");
  }

  // Returns false (after reporting) when the variable is already in scope.
  bool define(const Var &v, const Node &at) {
    if (inScope_.insert(&v).second) return true;
    report(at, "variable '" + v.name + "' is defined again inside its own scope");
    return false;
  }

  // Variables a buffer declaration introduces: its data pointer and plain-variable sizes,
  // strides and offset that are not yet in scope (`n` in T.match_buffer(x, (n,))).
  std::vector<const Var *> newBufferVars(const Buffer &b) {
    std::vector<const Var *> vars;
    auto consider = [&](const Expr &e) {
      const auto *v = e.as<Var>();
      if (v && !inScope_.count(v) && std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
    };
    consider(b.data);
    for (const Expr &e : b.shape) consider(e);
    for (const Expr &e : b.strides) consider(e);
    if (b.elemOffset) consider(b.elemOffset);
    return vars;
  }

  void defineBufferVars(const Buffer &b, const Node &at) {
    for (const Var *v : newBufferVars(b)) define(*v, at);
  }

  void defineCompoundLayoutVars(const Buffer &b) {
    auto defineFree = [&](const Expr &e) {
      if (e) preOrderVisit(e, [&](const Node &n) {
        if (const auto *v = n.as<Var>()) inScope_.insert(v);
      });
    };
    for (const Expr &e : b.shape) defineFree(e);
    for (const Expr &e : b.strides) defineFree(e);
    defineFree(b.elemOffset);
  }

  // A constant negative extent can never describe memory (symbolic ones are checked when run).
  void checkExtents(const std::vector<Expr> &extents, const Node &at, const std::string &what) {
    for (const Expr &e : extents)
      if (const auto *imm = e.as<IntImm>(); imm && imm->value < 0)
        report(at, what + " has the negative extent " + std::to_string(imm->value));
  }

  void checkBufferData(const Buffer &buffer, const Node &at) {
    if (inScope_.count(buffer.data.get()) || !reportedBuffers_.insert(&buffer).second) return;
    report(at, "buffer '" + buffer.name + "' is used outside the scope of its data '" + buffer.data->name + "'");
  }

  void checkAccess(const BufferRef &buffer, const std::vector<Expr> &indices, const Node &at) {
    checkBufferData(*buffer, at);
    if (indices.size() != buffer->rank()) {
      report(at, "buffer '" + buffer->name + "' has rank " + std::to_string(buffer->rank()) + " but is indexed with " +
                     std::to_string(indices.size()) + " indices");
    }
    for (const Expr &i : indices)
      if (!dtypeOf(i).isIntOrUInt()) report(at, "index into buffer '" + buffer->name + "' has dtype " + dtypeOf(i).str());
  }

  void checkRegion(const BufferRegion &region, const Node &at) {
    checkBufferData(*region.buffer, at);
    if (region.region.size() != region.buffer->rank()) {
      report(at, "region of buffer '" + region.buffer->name + "' has " + std::to_string(region.region.size()) +
                     " ranges for rank " + std::to_string(region.buffer->rank()));
    }
    visitRegion(region);
  }

  std::vector<VerifierDiagnostic> diagnostics_;
  std::unordered_set<const Var *> inScope_, reportedVars_;
  std::unordered_set<const Buffer *> reportedBuffers_;
  std::vector<SourceLoc> locations_;
};

std::string formatAll(const std::vector<VerifierDiagnostic> &diagnostics) {
  std::string text;
  for (const VerifierDiagnostic &d : diagnostics) text += formatDiagnostic(d.loc, Severity::Error, d.message);
  return text;
}

}  // namespace

std::vector<VerifierDiagnostic> verifyDiagnostics(const PrimFunc &func) { return WellFormedChecker().check(func); }

llvm::Error verify(const PrimFunc &func) {
  auto diagnostics = verifyDiagnostics(func);
  if (diagnostics.empty()) return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), formatAll(diagnostics));
}

llvm::Error verify(const IRModule &module) {
  std::vector<VerifierDiagnostic> all;
  for (const auto &entry : module.functions()) {
    if (const auto *func = entry.function->as<PrimFunc>()) {
      auto diagnostics = verifyDiagnostics(*func);
      all.insert(all.end(), diagnostics.begin(), diagnostics.end());
    }
  }
  if (all.empty()) return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), formatAll(all));
}

}  // namespace vtac::ir
