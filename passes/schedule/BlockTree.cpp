#include "BlockTree.h"

#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

size_t leafSubtreeIndex(const StmtPath &blockPath) {
  size_t top = blockPath.size() - 1;
  while (top > 0) {
    const auto *loop = blockPath[top - 1].as<For>();
    if (!loop || loop->body != blockPath[top]) break;
    --top;
  }
  return top;
}

std::string whyNotRemovableLeaf(const StmtPath &blockPath) {
  size_t top = leafSubtreeIndex(blockPath);
  if (top > 0 && blockPath[top - 1]->isa<SeqStmt>()) return "";
  return "the block '" + blockPath.back().as<BlockRealize>()->block->name +
         "' is the only statement of its scope and cannot be removed";
}

llvm::Error removeLeafBlock(Schedule &sch, const std::string &func, const StmtPath &blockPath, SourceLoc at) {
  if (std::string why = whyNotRemovableLeaf(blockPath); !why.empty()) return diagnosticError(at, why);
  size_t top = leafSubtreeIndex(blockPath);
  const auto *parentSeq = blockPath[top - 1].as<SeqStmt>();
  std::vector<Stmt> rest;
  for (const Stmt &stmt : parentSeq->stmts)
    if (stmt != blockPath[top]) rest.push_back(stmt);
  StmtPath seqPath(blockPath.begin(), blockPath.begin() + top);
  sch.replace(func, seqPath, seq(std::move(rest)));
  return llvm::Error::success();
}

StmtPath scopeOf(const StmtPath &blockPath) {
  for (size_t i = blockPath.size() - 1; i-- > 0;)
    if (blockPath[i]->isa<Block>()) return StmtPath(blockPath.begin(), blockPath.begin() + i + 1);
  return {};
}

std::vector<StmtPath> childBlockPaths(const Stmt &root) {
  class Collector : public StmtExprVisitor {
  public:
    void visitExpr(const Expr &) override {}
    void visitStmt(const Stmt &s) override {
      path_.push_back(s);
      if (s->isa<BlockRealize>()) found.push_back(path_);
      else StmtExprVisitor::visitStmt(s);
      path_.pop_back();
    }
    std::vector<StmtPath> found;

  private:
    StmtPath path_;
  } collector;
  collector.visitStmt(root);
  return std::move(collector.found);
}

std::vector<Stmt> statementsOf(const Stmt &body) {
  if (const auto *sequence = body.as<SeqStmt>()) return sequence->stmts;
  return {body};
}

bool holdsBlockNamed(const Stmt &stmt, const std::set<std::string> &blocks) {
  bool found = false;
  preOrderVisit(stmt, [&](const Node &node) {
    if (const auto *block = node.as<Block>()) found |= blocks.count(block->name) > 0;
  });
  return found;
}

Stmt blockNamed(const Stmt &root, const std::string &name) {
  Stmt found;
  preOrderVisit(root, [&](const Node &node) {
    if (const auto *block = node.as<Block>(); block && block->name == name) found = Stmt(block);
  });
  return found;
}

}  // namespace vtac::passes::schedule
