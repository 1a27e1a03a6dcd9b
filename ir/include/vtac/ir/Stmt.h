// Statements of the IR: TVM's TIR statements, both the TensorIR level (Block, BlockRealize with
// iteration variables, regions, init and per-block allocations — what schedules transform) and
// the lowered level (plain loops, Allocate, AttrStmt, calls — what VTA lowering and the
// backends consume).
#pragma once

#include <string>
#include <vector>

#include "vtac/ir/AttrValue.h"
#include "vtac/ir/Expr.h"

namespace vtac::ir {

class StmtNode : public Node {
public:
  static bool classof(NodeKind k) { return kindInRange(k, kFirstStmtKind, kLastStmtKind); }

protected:
  StmtNode(NodeKind kind, SourceLoc loc) : Node(kind, loc) {}
};
using Stmt = Ref<StmtNode>;

// Optional conditions are null when they always hold, so `T.where(True)` and no T.where, or
// an allocation condition of True and none, are the same tree.
inline Expr nullIfTrue(Expr condition) {
  const auto *imm = condition.as<IntImm>();
  return imm && imm->value != 0 ? Expr() : condition;
}

// buffer[indices] = value
class BufferStore : public StmtNode {
public:
  BufferRef buffer;
  Expr value;
  std::vector<Expr> indices;
  BufferStore(BufferRef buffer, Expr value, std::vector<Expr> indices, SourceLoc loc = {})
      : StmtNode(NodeKind::BufferStore, loc), buffer(std::move(buffer)), value(std::move(value)),
        indices(std::move(indices)) {}
  static bool classof(NodeKind k) { return k == NodeKind::BufferStore; }
};

// `var: T.int32 = value` followed by body (var is in scope in body).
class LetStmt : public StmtNode {
public:
  VarRef var;
  Expr value;
  Stmt body;
  LetStmt(VarRef var, Expr value, Stmt body, SourceLoc loc = {})
      : StmtNode(NodeKind::LetStmt, loc), var(std::move(var)), value(std::move(value)),
        body(std::move(body)) {}
  static bool classof(NodeKind k) { return k == NodeKind::LetStmt; }
};

// T.attr(node, key, value) scoping body. `node` is any node: an IterVar (coproc_scope), a Var,
// a Buffer, a StringImm or another expression.
class AttrStmt : public StmtNode {
public:
  NodeRef node;
  std::string key;
  Expr value;
  Stmt body;
  AttrStmt(NodeRef node, std::string key, Expr value, Stmt body, SourceLoc loc = {})
      : StmtNode(NodeKind::AttrStmt, loc), node(std::move(node)), key(std::move(key)),
        value(std::move(value)), body(std::move(body)) {}
  static bool classof(NodeKind k) { return k == NodeKind::AttrStmt; }
};

// assert condition, message; then body.
class AssertStmt : public StmtNode {
public:
  Expr condition, message;
  Stmt body;
  AssertStmt(Expr condition, Expr message, Stmt body, SourceLoc loc = {})
      : StmtNode(NodeKind::AssertStmt, loc), condition(std::move(condition)),
        message(std::move(message)), body(std::move(body)) {}
  static bool classof(NodeKind k) { return k == NodeKind::AssertStmt; }
};

enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled, ThreadBinding };
const char *forKindName(ForKind kind);  // "serial", "parallel", "vectorized", "unroll", "thread_binding"

// for loopVar in [min, min + extent): body
class For : public StmtNode {
public:
  VarRef loopVar;
  Expr min, extent;
  ForKind forKind;
  IterVarRef threadBinding;  // set only for ForKind::ThreadBinding (its threadTag is the thread)
  AttrMap annotations;
  Stmt body;
  For(VarRef loopVar, Expr min, Expr extent, ForKind forKind, Stmt body,
      IterVarRef threadBinding = nullptr, AttrMap annotations = {}, SourceLoc loc = {})
      : StmtNode(NodeKind::For, loc), loopVar(std::move(loopVar)), min(std::move(min)),
        extent(std::move(extent)), forKind(forKind), threadBinding(std::move(threadBinding)),
        annotations(std::move(annotations)), body(std::move(body)) {}
  static bool classof(NodeKind k) { return k == NodeKind::For; }
};

class While : public StmtNode {
public:
  Expr condition;
  Stmt body;
  While(Expr condition, Stmt body, SourceLoc loc = {})
      : StmtNode(NodeKind::While, loc), condition(std::move(condition)), body(std::move(body)) {}
  static bool classof(NodeKind k) { return k == NodeKind::While; }
};

class IfThenElse : public StmtNode {
public:
  Expr condition;
  Stmt thenCase;
  Stmt elseCase;  // may be null
  IfThenElse(Expr condition, Stmt thenCase, Stmt elseCase = nullptr, SourceLoc loc = {})
      : StmtNode(NodeKind::IfThenElse, loc), condition(std::move(condition)),
        thenCase(std::move(thenCase)), elseCase(std::move(elseCase)) {}
  static bool classof(NodeKind k) { return k == NodeKind::IfThenElse; }
};

// Statements in order. Use seq() to build one: it flattens nested sequences and returns the
// single statement itself when there is only one.
class SeqStmt : public StmtNode {
public:
  std::vector<Stmt> stmts;
  explicit SeqStmt(std::vector<Stmt> stmts, SourceLoc loc = {})
      : StmtNode(NodeKind::SeqStmt, loc), stmts(std::move(stmts)) {}
  static bool classof(NodeKind k) { return k == NodeKind::SeqStmt; }
};
Stmt seq(std::vector<Stmt> stmts, SourceLoc loc = {});

// An expression evaluated for its side effects (T.evaluate(e), or a bare call statement).
class Evaluate : public StmtNode {
public:
  Expr value;
  explicit Evaluate(Expr value, SourceLoc loc = {})
      : StmtNode(NodeKind::Evaluate, loc), value(std::move(value)) {}
  static bool classof(NodeKind k) { return k == NodeKind::Evaluate; }
};

// `bufferVar = T.allocate(extents, dtype, scope)`: memory for body. The scope is the storage
// scope of bufferVar's pointer type (see scope()).
class Allocate : public StmtNode {
public:
  VarRef bufferVar;
  DataType dtype;
  std::vector<Expr> extents;
  Expr condition;  // null: unconditional (a literal true is stored as null)
  AttrMap annotations;
  Stmt body;
  Allocate(VarRef bufferVar, DataType dtype, std::vector<Expr> extents, Expr condition, Stmt body,
           AttrMap annotations = {}, SourceLoc loc = {})
      : StmtNode(NodeKind::Allocate, loc), bufferVar(std::move(bufferVar)), dtype(dtype),
        extents(std::move(extents)), condition(nullIfTrue(std::move(condition))),
        annotations(std::move(annotations)), body(std::move(body)) {}
  const std::string &scope() const;
  static bool classof(NodeKind k) { return k == NodeKind::Allocate; }
};

// `B = T.decl_buffer(...)`: declares buffer (usually a view over an Allocate's variable) for
// body.
class DeclBuffer : public StmtNode {
public:
  BufferRef buffer;
  Stmt body;
  DeclBuffer(BufferRef buffer, Stmt body, SourceLoc loc = {})
      : StmtNode(NodeKind::DeclBuffer, loc), buffer(std::move(buffer)), body(std::move(body)) {}
  static bool classof(NodeKind k) { return k == NodeKind::DeclBuffer; }
};

// `with T.block(name):` — the unit schedules work on. iterVars are the block's axes (iterType
// DataPar for "S", CommReduce for "R", with their domains); reads/writes are the regions it
// touches; init (optional) runs before the first reduction step; allocBuffers live for the
// block; matchBuffers bind views of outer buffers.
class Block : public StmtNode {
public:
  std::string name;
  std::vector<IterVarRef> iterVars;
  std::vector<BufferRegion> reads, writes;
  Stmt init;  // may be null
  Stmt body;
  std::vector<BufferRef> allocBuffers;
  std::vector<MatchBufferRegion> matchBuffers;
  AttrMap annotations;
  Block(std::string name, std::vector<IterVarRef> iterVars, std::vector<BufferRegion> reads,
        std::vector<BufferRegion> writes, Stmt body, Stmt init = nullptr,
        std::vector<BufferRef> allocBuffers = {}, std::vector<MatchBufferRegion> matchBuffers = {},
        AttrMap annotations = {}, SourceLoc loc = {})
      : StmtNode(NodeKind::Block, loc), name(std::move(name)), iterVars(std::move(iterVars)),
        reads(std::move(reads)), writes(std::move(writes)), init(std::move(init)),
        body(std::move(body)), allocBuffers(std::move(allocBuffers)),
        matchBuffers(std::move(matchBuffers)), annotations(std::move(annotations)) {}
  static bool classof(NodeKind k) { return k == NodeKind::Block; }
};
using BlockRef = Ref<Block>;

// A block instance: iterValues[i] is bound to block->iterVars[i]; the block runs only where
// predicate (T.where) holds.
class BlockRealize : public StmtNode {
public:
  std::vector<Expr> iterValues;
  Expr predicate;  // null: always (a literal true is stored as null)
  BlockRef block;
  BlockRealize(std::vector<Expr> iterValues, Expr predicate, BlockRef block, SourceLoc loc = {})
      : StmtNode(NodeKind::BlockRealize, loc), iterValues(std::move(iterValues)),
        predicate(nullIfTrue(std::move(predicate))), block(std::move(block)) {}
  static bool classof(NodeKind k) { return k == NodeKind::BlockRealize; }
};

// A copy of `stmt` (children shared) located at `loc`: how a transformation re-locates a
// statement it moved or inserted, e.g. an intrinsic's implementation at the tensorize step.
Stmt withLoc(const Stmt &stmt, const SourceLoc &loc);

}  // namespace vtac::ir
