// Translates a PrimFunc's IR into the node tree of Nodes.h.
//
// Variables are resolved to slots here (scoped: a binding is visible in its body only), calls
// are resolved against the extern registry, buffer shapes and strides are folded into the
// access nodes, and integer +, -, * by constants become one affine node. A construct the
// interpreter cannot execute is reported with its source location; compilation goes on with
// a placeholder so that the first error is the one returned.
#pragma once

#include <llvm/ADT/DenseMap.h>

#include "Nodes.h"
#include "vtac/backend/ExternRegistry.h"
#include "vtac/ir/IR.h"
#include "vtac/ir/Substitute.h"

namespace vtac::backend::interp {

enum class VarKind : uint8_t { Int, Float, Storage, RawHandle };

struct VarInfo {
  int slot = -1;
  VarKind kind = VarKind::Int;
  ir::DataType dtype;
};

class FunctionCompiler {
public:
  explicit FunctionCompiler(const ExternRegistry &registry) : registry_(registry) {}

  int newSlot() { return numSlots_++; }
  int numSlots() const { return numSlots_; }
  bool usesDeviceMemory() const { return usesDeviceMemory_; }

  // Binds `var` until the returned guard is destroyed (then the previous binding returns).
  class ScopedBinding {
  public:
    ScopedBinding(FunctionCompiler &compiler, const ir::Var *var, VarInfo info);
    ScopedBinding(ScopedBinding &&other) noexcept;
    ~ScopedBinding();

  private:
    FunctionCompiler *compiler_;
    const ir::Var *var_;
    std::optional<VarInfo> previous_;
  };
  ScopedBinding bind(const ir::Var *var, VarInfo info) { return ScopedBinding(*this, var, info); }
  // A binding for the whole function (parameters and their symbolic sizes).
  void bindForever(const ir::Var *var, VarInfo info) { vars_[var] = info; }
  const VarInfo *lookup(const ir::Var *var) const;
  static VarKind kindOf(ir::DataType dtype);

  IntPtr compileInt(const ir::Expr &expr);
  FloatPtr compileFloat(const ir::Expr &expr);
  HandlePtr compileHandle(const ir::Expr &expr);
  StmtPtr compileStmt(const ir::Stmt &stmt);

  // The first error found, or success.
  llvm::Error takeError();

private:
  friend class ScopedBinding;

  // Expressions (ExprCompiler.cpp).
  ir::SourceLoc locOf(const ir::Node &node) const;
  void fail(const ir::Node &node, const llvm::Twine &message);
  IntPtr compileIntBinary(const ir::BinaryExpr &op);
  IntPtr compileComparison(const ir::BinaryExpr &op);
  // The terms of an integer +, -, * (by constants) tree: constant, variables, other terms.
  struct AffineTerms {
    uint64_t constant = 0;
    std::vector<std::pair<int, uint64_t>> slots;
    std::vector<std::pair<IntPtr, uint64_t>> exprs;
  };
  AffineTerms collectAffine(const ir::BinaryExpr &root);
  IntPtr compileAffine(const ir::BinaryExpr &op);
  IntPtr compileIntCast(const ir::Cast &op);
  IntPtr compileIntCall(const ir::Call &call);
  FloatPtr compileFloatCall(const ir::Call &call);
  HandlePtr compileHandleCall(const ir::Call &call);
  // T.tvm_access_ptr of an allocation's data variable.
  HandlePtr compileAccessPtr(const ir::Call &call);
  // Registry calls (call_extern and registered intrinsics); null when the op is not one.
  std::optional<ExternCall> compileExternCall(const ir::Call &call);
  ArgumentExpr compileArgument(const ir::Expr &expr);
  // True when `call` has `count` arguments; otherwise records the error.
  bool checkArity(const ir::Call &call, size_t count);
  // cond ? a : b of any kind; `lazy` evaluates only the chosen side (T.if_then_else).
  template <class Node, class CompileSide>
  std::unique_ptr<Node> compileSelect(const ir::Expr &condition, const ir::Expr &a, const ir::Expr &b, bool lazy,
                                      CompileSide compileSide) {
    auto node = std::make_unique<Node>();
    node->lazy = lazy;
    node->condition = compileInt(condition);
    node->onTrue = (this->*compileSide)(a);
    node->onFalse = (this->*compileSide)(b);
    return node;
  }
  SlotAssign compileAssign(int slot, const ir::Expr &value);
  Operand compileOperand(const ir::Expr &expr);
  BufferAccess compileAccess(const ir::Buffer &buffer, const std::vector<ir::Expr> &indices,
                             const ir::Node &at);
  bool checkScalar(const ir::ExprNode &expr);

  // Statements (StmtCompiler.cpp).
  StmtPtr compileStore(const ir::BufferStore &store);
  // buffer[i] = buffer[i] <op> value as one read-modify-write node; null if not that shape.
  StmtPtr compileAccumulate(const ir::BufferStore &store);
  StmtPtr compileLet(const ir::LetStmt &let);
  StmtPtr compileAttr(const ir::AttrStmt &attr);
  StmtPtr compileUopScope(const ir::AttrStmt &attr);
  StmtPtr compileFor(const ir::For &loop);
  StmtPtr compileAllocate(const ir::Allocate &allocate);
  StmtPtr compileBlock(const ir::Block &block, const ir::BlockRealize *realize);
  // `view = T.match_buffer(source[region], ...)` in a block: the view's data, elem_offset,
  // strides and shape variables are bound to the source's (TVM's MatchBufferLower), and its
  // accesses become accesses of the source (see views_). False after recording an error.
  bool bindMatchBuffer(const ir::MatchBufferRegion &match, const ir::Block &block, BlockExec &node,
                       std::vector<ScopedBinding> &guards, ir::VarMap &bound);
  Allocation compileAllocation(int slot, const std::string &name, ir::DataType dtype,
                               const std::vector<ir::Expr> &extents, const ir::Node &at);

  const ExternRegistry &registry_;
  llvm::DenseMap<const ir::Var *, VarInfo> vars_;
  // The match_buffer views in scope, each with its region of a real (non-view) buffer.
  llvm::DenseMap<const ir::Buffer *, ir::BufferRegion> views_;
  int numSlots_ = 0;
  bool usesDeviceMemory_ = false;
  ir::SourceLoc stmtLoc_;  // location of the statement being compiled (fallback for exprs)
  llvm::Error error_ = llvm::Error::success();
  bool failed_ = false;
};

}  // namespace vtac::backend::interp
