// Statement helpers: loop kind names, sequence building, allocation scopes.
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

}  // namespace vtac::ir
