// Kind-switch dispatch over expressions and statements (TVM's ExprFunctor/StmtFunctor).
//
// ExprFunctor<R, Args...>::visitExpr(e, args...) calls the visitXxx method for e's kind; all
// binary operators go to visitBinary (switch on op.kind() there). A node reached by reference
// can be re-wrapped into a handle with `Ref<T>(&node)` (the count is intrusive), which is how a
// mutator returns an unchanged node. Methods a subclass does not override end in
// visitExprDefault/visitStmtDefault, which assert.
#pragma once

#include <cassert>

#include "vtac/ir/Stmt.h"

namespace vtac::ir {

template <class R, class... Args> class ExprFunctor {
public:
  virtual ~ExprFunctor() = default;

  virtual R visitExpr(const Expr &expr, Args... args) {
    const ExprNode &e = *expr;
    switch (e.kind()) {
    case NodeKind::IntImm: return visitIntImm(static_cast<const IntImm &>(e), args...);
    case NodeKind::FloatImm: return visitFloatImm(static_cast<const FloatImm &>(e), args...);
    case NodeKind::StringImm: return visitStringImm(static_cast<const StringImm &>(e), args...);
    case NodeKind::Var: return visitVar(static_cast<const Var &>(e), args...);
    case NodeKind::Cast: return visitCast(static_cast<const Cast &>(e), args...);
    case NodeKind::Not: return visitNot(static_cast<const Not &>(e), args...);
    case NodeKind::Select: return visitSelect(static_cast<const Select &>(e), args...);
    case NodeKind::BufferLoad: return visitBufferLoad(static_cast<const BufferLoad &>(e), args...);
    case NodeKind::Call: return visitCall(static_cast<const Call &>(e), args...);
    case NodeKind::Let: return visitLet(static_cast<const Let &>(e), args...);
    case NodeKind::Ramp: return visitRamp(static_cast<const Ramp &>(e), args...);
    case NodeKind::Broadcast: return visitBroadcast(static_cast<const Broadcast &>(e), args...);
    default:
      assert(BinaryExpr::classof(e.kind()) && "expression kind without a visit method");
      return visitBinary(static_cast<const BinaryExpr &>(e), args...);
    }
  }

  virtual R visitIntImm(const IntImm &op, Args... args) { return visitExprDefault(op, args...); }
  virtual R visitFloatImm(const FloatImm &op, Args... args) { return visitExprDefault(op, args...); }
  virtual R visitStringImm(const StringImm &op, Args... args) { return visitExprDefault(op, args...); }
  virtual R visitVar(const Var &op, Args... args) { return visitExprDefault(op, args...); }
  virtual R visitCast(const Cast &op, Args... args) { return visitExprDefault(op, args...); }
  virtual R visitBinary(const BinaryExpr &op, Args... args) { return visitExprDefault(op, args...); }
  virtual R visitNot(const Not &op, Args... args) { return visitExprDefault(op, args...); }
  virtual R visitSelect(const Select &op, Args... args) { return visitExprDefault(op, args...); }
  virtual R visitBufferLoad(const BufferLoad &op, Args... args) { return visitExprDefault(op, args...); }
  virtual R visitCall(const Call &op, Args... args) { return visitExprDefault(op, args...); }
  virtual R visitLet(const Let &op, Args... args) { return visitExprDefault(op, args...); }
  virtual R visitRamp(const Ramp &op, Args... args) { return visitExprDefault(op, args...); }
  virtual R visitBroadcast(const Broadcast &op, Args... args) { return visitExprDefault(op, args...); }

  virtual R visitExprDefault(const ExprNode &op, Args...) {
    assert(false && "ExprFunctor: no visit method for this expression kind");
    return R();
  }
};

template <class R, class... Args> class StmtFunctor {
public:
  virtual ~StmtFunctor() = default;

  virtual R visitStmt(const Stmt &stmt, Args... args) {
    const StmtNode &s = *stmt;
    switch (s.kind()) {
    case NodeKind::BufferStore: return visitBufferStore(static_cast<const BufferStore &>(s), args...);
    case NodeKind::LetStmt: return visitLetStmt(static_cast<const LetStmt &>(s), args...);
    case NodeKind::AttrStmt: return visitAttrStmt(static_cast<const AttrStmt &>(s), args...);
    case NodeKind::AssertStmt: return visitAssertStmt(static_cast<const AssertStmt &>(s), args...);
    case NodeKind::For: return visitFor(static_cast<const For &>(s), args...);
    case NodeKind::While: return visitWhile(static_cast<const While &>(s), args...);
    case NodeKind::IfThenElse: return visitIfThenElse(static_cast<const IfThenElse &>(s), args...);
    case NodeKind::SeqStmt: return visitSeqStmt(static_cast<const SeqStmt &>(s), args...);
    case NodeKind::Evaluate: return visitEvaluate(static_cast<const Evaluate &>(s), args...);
    case NodeKind::Allocate: return visitAllocate(static_cast<const Allocate &>(s), args...);
    case NodeKind::DeclBuffer: return visitDeclBuffer(static_cast<const DeclBuffer &>(s), args...);
    case NodeKind::Block: return visitBlock(static_cast<const Block &>(s), args...);
    case NodeKind::BlockRealize: return visitBlockRealize(static_cast<const BlockRealize &>(s), args...);
    default:
      assert(false && "statement kind without a visit method");
      return visitStmtDefault(s, args...);
    }
  }

  virtual R visitBufferStore(const BufferStore &op, Args... args) { return visitStmtDefault(op, args...); }
  virtual R visitLetStmt(const LetStmt &op, Args... args) { return visitStmtDefault(op, args...); }
  virtual R visitAttrStmt(const AttrStmt &op, Args... args) { return visitStmtDefault(op, args...); }
  virtual R visitAssertStmt(const AssertStmt &op, Args... args) { return visitStmtDefault(op, args...); }
  virtual R visitFor(const For &op, Args... args) { return visitStmtDefault(op, args...); }
  virtual R visitWhile(const While &op, Args... args) { return visitStmtDefault(op, args...); }
  virtual R visitIfThenElse(const IfThenElse &op, Args... args) { return visitStmtDefault(op, args...); }
  virtual R visitSeqStmt(const SeqStmt &op, Args... args) { return visitStmtDefault(op, args...); }
  virtual R visitEvaluate(const Evaluate &op, Args... args) { return visitStmtDefault(op, args...); }
  virtual R visitAllocate(const Allocate &op, Args... args) { return visitStmtDefault(op, args...); }
  virtual R visitDeclBuffer(const DeclBuffer &op, Args... args) { return visitStmtDefault(op, args...); }
  virtual R visitBlock(const Block &op, Args... args) { return visitStmtDefault(op, args...); }
  virtual R visitBlockRealize(const BlockRealize &op, Args... args) { return visitStmtDefault(op, args...); }

  virtual R visitStmtDefault(const StmtNode &op, Args...) {
    assert(false && "StmtFunctor: no visit method for this statement kind");
    return R();
  }
};

}  // namespace vtac::ir
