// StmtExprMutator: rebuilds a tree bottom-up, copy-on-write (Halide's IRMutator, TVM's
// StmtExprMutator).
//
// Every visitXxx returns the node's replacement. The base methods mutate the children and
// return the very same node (same pointer) when no child changed, so untouched subtrees are
// shared, and identity (`result == input`) tells a caller that nothing changed. The same
// children are visited as by StmtExprVisitor. Buffers are kept as they are; a pass that
// replaces buffers overrides visitBufferLoad/visitBufferStore/visitBlock.
#pragma once

#include "vtac/ir/Functor.h"

namespace vtac::ir {

class StmtExprMutator : public ExprFunctor<Expr>, public StmtFunctor<Stmt> {
public:
  using ExprFunctor<Expr>::visitExpr;
  using StmtFunctor<Stmt>::visitStmt;

  Expr visitIntImm(const IntImm &op) override { return Expr(&op); }
  Expr visitFloatImm(const FloatImm &op) override { return Expr(&op); }
  Expr visitStringImm(const StringImm &op) override { return Expr(&op); }
  Expr visitVar(const Var &op) override { return Expr(&op); }
  Expr visitCast(const Cast &op) override;
  Expr visitBinary(const BinaryExpr &op) override;
  Expr visitNot(const Not &op) override;
  Expr visitSelect(const Select &op) override;
  Expr visitBufferLoad(const BufferLoad &op) override;
  Expr visitCall(const Call &op) override;
  Expr visitLet(const Let &op) override;
  Expr visitRamp(const Ramp &op) override;
  Expr visitBroadcast(const Broadcast &op) override;

  Stmt visitBufferStore(const BufferStore &op) override;
  Stmt visitLetStmt(const LetStmt &op) override;
  Stmt visitAttrStmt(const AttrStmt &op) override;
  Stmt visitAssertStmt(const AssertStmt &op) override;
  Stmt visitFor(const For &op) override;
  Stmt visitWhile(const While &op) override;
  Stmt visitIfThenElse(const IfThenElse &op) override;
  Stmt visitSeqStmt(const SeqStmt &op) override;
  Stmt visitEvaluate(const Evaluate &op) override;
  Stmt visitAllocate(const Allocate &op) override;
  Stmt visitDeclBuffer(const DeclBuffer &op) override;
  Stmt visitBlock(const Block &op) override;
  Stmt visitBlockRealize(const BlockRealize &op) override;

  // A null expression/statement (an absent optional field) maps to itself.
  Expr visitOptionalExpr(const Expr &e) { return e ? visitExpr(e) : e; }
  Stmt visitOptionalStmt(const Stmt &s) { return s ? visitStmt(s) : s; }

protected:
  // Mutates each element; returns true when any changed (then `exprs` holds the new ones).
  bool mutateExprs(std::vector<Expr> &exprs);
  bool mutateRange(Range &range);
  bool mutateRegions(std::vector<BufferRegion> &regions);
  // `op` with new bounds and body (the same node when none changed), for overrides of visitFor
  // that visit the children themselves.
  static Stmt updateFor(const For &op, Expr min, Expr extent, Stmt body);
};

}  // namespace vtac::ir
