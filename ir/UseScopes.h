// Internal to vtac_ir (used by the printer): where each variable and buffer of a function is
// used. For every Var/Buffer it records the innermost statement that encloses all its uses and
// how often it occurs; the printer declares a variable or buffer that nothing defines
// (`vta = T.int32()`, `A_1 = T.Buffer(...)`) right before the first statement of that innermost
// enclosing scope that is being printed, as TVM's printer does.
#pragma once

#include <unordered_map>
#include <vector>

#include "vtac/ir/Function.h"

namespace vtac::ir::detail {

class UseScopes {
public:
  // The root scope is `func` itself.
  void analyze(const PrimFunc &func);
  // The root scope is the null node (a stand-alone statement).
  void analyze(const Stmt &stmt);

  // The innermost scope containing every use of obj, or -1 when obj is never used.
  int commonScope(const Node *obj) const;
  const Node *scopeNode(int scope) const { return scopes_[scope].node; }
  int parentScope(int scope) const { return scopes_[scope].parent; }
  int occurrences(const Node *obj) const;

private:
  struct Scope {
    const Node *node;
    int parent;
    int depth;
  };
  struct Use {
    int scope;
    int count;
  };

  void enter(const Node *node);
  void leave() { current_ = scopes_[current_].parent; }
  void use(const Node *obj);
  int lowestCommonAncestor(int a, int b) const;

  void visitStmt(const Stmt &stmt);
  void visitExpr(const Expr &expr);
  void visitExprs(const std::vector<Expr> &exprs);
  void visitRange(const Range &range);
  void visitBuffer(const BufferRef &buffer);
  void visitRegion(const BufferRegion &region);
  void visitIterVar(const IterVarRef &iv);
  void visitAttrs(const AttrMap &attrs);
  void visitAttrValue(const AttrValue &value);

  std::vector<Scope> scopes_;
  std::unordered_map<const Node *, Use> uses_;
  int current_ = -1;
};

}  // namespace vtac::ir::detail
