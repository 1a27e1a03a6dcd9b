// Statement helpers: loop kind names, sequence building, allocation scopes, re-location.
#include "vtac/ir/Stmt.h"

namespace vtac::ir {

const char *forKindName(ForKind kind) {
  switch (kind) {
  case ForKind::Serial: return "serial";
  case ForKind::Parallel: return "parallel";
  case ForKind::Vectorized: return "vectorized";
  case ForKind::Unrolled: return "unroll";
  case ForKind::ThreadBinding: return "thread_binding";
  }
  return "serial";
}

static void flattenInto(std::vector<Stmt> &out, const Stmt &stmt) {
  if (!stmt) return;
  if (const auto *inner = stmt.as<SeqStmt>()) {
    for (const Stmt &s : inner->stmts) flattenInto(out, s);
    return;
  }
  out.push_back(stmt);
}

Stmt seq(std::vector<Stmt> stmts, SourceLoc loc) {
  std::vector<Stmt> flat;
  flat.reserve(stmts.size());
  for (const Stmt &s : stmts) flattenInto(flat, s);
  if (flat.size() == 1) return flat.front();
  return make<SeqStmt>(std::move(flat), loc);
}

const std::string &Allocate::scope() const {
  static const std::string global = "global";
  return bufferVar->pointer ? bufferVar->pointer->scope : global;
}

template <class T> static Stmt copyAt(const StmtNode &node, const SourceLoc &loc) {
  T *copy = copyNode(static_cast<const T &>(node));
  copy->setLoc(loc);
  return Stmt(copy);
}

Stmt withLoc(const Stmt &stmt, const SourceLoc &loc) {
  switch (stmt->kind()) {
  case NodeKind::BufferStore: return copyAt<BufferStore>(*stmt, loc);
  case NodeKind::LetStmt: return copyAt<LetStmt>(*stmt, loc);
  case NodeKind::AttrStmt: return copyAt<AttrStmt>(*stmt, loc);
  case NodeKind::AssertStmt: return copyAt<AssertStmt>(*stmt, loc);
  case NodeKind::For: return copyAt<For>(*stmt, loc);
  case NodeKind::While: return copyAt<While>(*stmt, loc);
  case NodeKind::IfThenElse: return copyAt<IfThenElse>(*stmt, loc);
  case NodeKind::SeqStmt: return copyAt<SeqStmt>(*stmt, loc);
  case NodeKind::Evaluate: return copyAt<Evaluate>(*stmt, loc);
  case NodeKind::Allocate: return copyAt<Allocate>(*stmt, loc);
  case NodeKind::DeclBuffer: return copyAt<DeclBuffer>(*stmt, loc);
  case NodeKind::Block: return copyAt<Block>(*stmt, loc);
  case NodeKind::BlockRealize: return copyAt<BlockRealize>(*stmt, loc);
  default: assert(false && "withLoc: not a statement kind"); return stmt;
  }
}

}  // namespace vtac::ir
