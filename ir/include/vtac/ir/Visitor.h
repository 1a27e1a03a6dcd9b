// StmtExprVisitor: walks every statement and expression of a tree, children in field order.
//
// Subclasses override the visitXxx methods they care about and call the base method to keep
// recursing. What is visited: all expression operands, loop bounds, let values, allocation
// extents and conditions, block iteration domains, read/write/match regions (their ranges),
// block predicates and iteration values, init and body. Not visited: buffer shapes/strides
// (override visitBufferLoad/visitBufferStore/visitBlock to see buffers).
#pragma once

#include <functional>

#include "vtac/ir/Functor.h"

namespace vtac::ir {

class StmtExprVisitor : public ExprFunctor<void>, public StmtFunctor<void> {
public:
  using ExprFunctor<void>::visitExpr;
  using StmtFunctor<void>::visitStmt;

  void visitIntImm(const IntImm &op) override {}
  void visitFloatImm(const FloatImm &op) override {}
  void visitStringImm(const StringImm &op) override {}
  void visitVar(const Var &op) override {}
  void visitCast(const Cast &op) override;
  void visitBinary(const BinaryExpr &op) override;
  void visitNot(const Not &op) override;
  void visitSelect(const Select &op) override;
  void visitBufferLoad(const BufferLoad &op) override;
  void visitCall(const Call &op) override;
  void visitLet(const Let &op) override;
  void visitRamp(const Ramp &op) override;
  void visitBroadcast(const Broadcast &op) override;

  void visitBufferStore(const BufferStore &op) override;
  void visitLetStmt(const LetStmt &op) override;
  void visitAttrStmt(const AttrStmt &op) override;
  void visitAssertStmt(const AssertStmt &op) override;
  void visitFor(const For &op) override;
  void visitWhile(const While &op) override;
  void visitIfThenElse(const IfThenElse &op) override;
  void visitSeqStmt(const SeqStmt &op) override;
  void visitEvaluate(const Evaluate &op) override;
  void visitAllocate(const Allocate &op) override;
  void visitDeclBuffer(const DeclBuffer &op) override;
  void visitBlock(const Block &op) override;
  void visitBlockRealize(const BlockRealize &op) override;

protected:
  void visitExprs(const std::vector<Expr> &exprs);
  void visitRange(const Range &range);
  void visitRegion(const BufferRegion &region);
};

// Calls fn(node) for every expression/statement node under stmt (or expr), parents before
// children.
void preOrderVisit(const Stmt &stmt, const std::function<void(const Node &)> &fn);
void preOrderVisit(const Expr &expr, const std::function<void(const Node &)> &fn);

// Whether the statement (or expression) refers to `var` anywhere, bound or not.
bool usesVar(const Stmt &stmt, const Var *var);
bool usesVar(const Expr &expr, const Var *var);

}  // namespace vtac::ir
