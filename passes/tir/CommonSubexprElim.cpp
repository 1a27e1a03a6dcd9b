#include "tir/CommonSubexprElim.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <llvm/Support/raw_ostream.h>

#include "vtac/ir/Mutator.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Visitor.h"
#include "vtac/passes/PassSupport.h"

namespace vtac::passes {
namespace {

struct ExprHash {
  size_t operator()(const ir::Expr &e) const { return ir::structuralHash(e); }
};
struct ExprEqual {
  bool operator()(const ir::Expr &a, const ir::Expr &b) const { return a == b || ir::structuralEqual(a, b); }
};
// How many times each computation is performed (structurally equal ones together).
using ComputationTable = std::unordered_map<ir::Expr, size_t, ExprHash, ExprEqual>;

bool isLeaf(const ir::Expr &e) {
  return e.isa<ir::IntImm>() || e.isa<ir::FloatImm>() || e.isa<ir::StringImm>() || e.isa<ir::Var>();
}

// Loads and calls may not be duplicated or moved, nor may anything containing one.
bool containsLoadOrCall(const ir::Expr &e) {
  bool found = false;
  ir::preOrderVisit(e, [&](const ir::Node &n) { found |= n.isa<ir::BufferLoad>() || n.isa<ir::Call>(); });
  return found;
}

bool isEligible(const ir::Expr &e) {
  return !isLeaf(e) && !e.isa<ir::Ramp>() && !e.isa<ir::Broadcast>() && !containsLoadOrCall(e);
}

// Number of expression nodes (TVM's CalculateExprComplexity).
size_t complexity(const ir::Expr &e) {
  size_t n = 0;
  ir::preOrderVisit(e, [&](const ir::Node &node) { n += node.isa<ir::ExprNode>(); });
  return n;
}

// TVM's legacy text of an expression (`((i*16) + j)`), which breaks ties between computations
// of equal size.
void printLegacy(const ir::Expr &e, llvm::raw_ostream &os) {
  if (const auto *imm = e.as<ir::IntImm>()) {
    if (e->dtype != ir::DataType::int32()) os << "(" << e->dtype.str() << ")";
    os << imm->value;
    return;
  }
  if (const auto *v = e.as<ir::Var>()) {
    os << v->name;
    return;
  }
  if (const auto *bin = e.as<ir::BinaryExpr>()) {
    const char *fn = nullptr, *infix = nullptr;
    switch (bin->kind()) {
    case ir::NodeKind::Add: infix = " + "; break;
    case ir::NodeKind::Sub: infix = " - "; break;
    case ir::NodeKind::Mul: infix = "*"; break;
    case ir::NodeKind::Div: infix = " / "; break;
    case ir::NodeKind::Mod: infix = " % "; break;
    case ir::NodeKind::EQ: infix = " == "; break;
    case ir::NodeKind::NE: infix = " != "; break;
    case ir::NodeKind::LT: infix = " < "; break;
    case ir::NodeKind::LE: infix = " <= "; break;
    case ir::NodeKind::GT: infix = " > "; break;
    case ir::NodeKind::GE: infix = " >= "; break;
    case ir::NodeKind::And: infix = " && "; break;
    case ir::NodeKind::Or: infix = " || "; break;
    case ir::NodeKind::FloorDiv: fn = "floordiv"; break;
    case ir::NodeKind::FloorMod: fn = "floormod"; break;
    case ir::NodeKind::Min: fn = "min"; break;
    default: fn = "max"; break;
    }
    os << (fn ? fn : "") << "(";
    printLegacy(bin->a, os);
    os << (fn ? ", " : infix);
    printLegacy(bin->b, os);
    os << ")";
    return;
  }
  if (const auto *n = e.as<ir::Not>()) {
    os << "!";
    printLegacy(n->a, os);
    return;
  }
  if (const auto *c = e.as<ir::Cast>()) {
    os << e->dtype.str() << "(";
    printLegacy(c->value, os);
    os << ")";
    return;
  }
  if (const auto *s = e.as<ir::Select>()) {
    os << "select(";
    printLegacy(s->condition, os);
    os << ", ";
    printLegacy(s->trueValue, os);
    os << ", ";
    printLegacy(s->falseValue, os);
    os << ")";
    return;
  }
  if (const auto *f = e.as<ir::FloatImm>()) {
    os << f->value << "f";
    return;
  }
  os << ir::nodeKindName(e->kind());
}

std::string legacyText(const ir::Expr &e) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printLegacy(e, os);
  return os.str();
}

void unite(ComputationTable &into, const ComputationTable &other) {
  for (const auto &[e, n] : other) into[e] += n;
}

ComputationTable intersect(const ComputationTable &a, const ComputationTable &b) {
  ComputationTable result;
  for (const auto &[e, n] : a)
    if (auto it = b.find(e); it != b.end()) result[e] = n + it->second;
  return result;
}

// What a loop or an `if` surely computes: what at least two of its three parts compute, counted
// over all three.
ComputationTable computedByTwoOfThree(const ComputationTable &a, const ComputationTable &b, const ComputationTable &c) {
  ComputationTable result = intersect(b, c);
  unite(result, intersect(a, b));
  unite(result, intersect(a, c));
  for (auto &[e, n] : result) {
    n = 0;
    for (const ComputationTable *t : {&a, &b, &c})
      if (auto it = t->find(e); it != t->end()) n += it->second;
  }
  return result;
}

// The computations of expressions and statements (TVM's ComputationsDoneBy). Statement tables
// are cached by node; the cache holds the nodes, so an address is never reused while cached.
class ComputationCounter : public ir::StmtExprVisitor {
public:
  ComputationTable ofExpr(const ir::Expr &e) {
    ComputationTable table;
    collectExpr(e, table);
    return table;
  }

  ComputationTable ofStmt(const ir::Stmt &s) {
    if (auto it = cache_.find(s.get()); it != cache_.end()) return it->second.second;
    ComputationTable table;
    if (const auto *loop = s.as<ir::For>()) {
      table = computedByTwoOfThree(ofExpr(loop->min), ofExpr(loop->extent), ofStmt(loop->body));
    } else if (const auto *branch = s.as<ir::IfThenElse>()) {
      table = computedByTwoOfThree(ofExpr(branch->condition), ofStmt(branch->thenCase),
                                   branch->elseCase ? ofStmt(branch->elseCase) : ComputationTable());
    } else if (const auto *loop = s.as<ir::While>()) {
      table = intersect(ofExpr(loop->condition), ofStmt(loop->body));
    } else {
      ComputationTable *saved = current_;
      current_ = &table;
      ir::StmtFunctor<void>::visitStmt(s);
      current_ = saved;
    }
    cache_.emplace(s.get(), std::make_pair(s, table));
    return table;
  }

  // Children of the statement being counted.
  void visitExpr(const ir::Expr &e) override { collectExpr(e, *current_); }
  void visitStmt(const ir::Stmt &s) override { unite(*current_, ofStmt(s)); }

private:
  void collectExpr(const ir::Expr &e, ComputationTable &table) {
    if (isLeaf(e)) return;
    if (isEligible(e)) {
      ++table[e];
      return;
    }
    ComputationTable *saved = current_;
    current_ = &table;
    ir::ExprFunctor<void>::visitExpr(e);
    current_ = saved;
  }

  ComputationTable *current_ = nullptr;
  std::unordered_map<const ir::StmtNode *, std::pair<ir::Stmt, ComputationTable>> cache_;
};

// The eligible expressions just below e: its children, or their children where a child is not
// eligible (TVM's DirectSubexpr).
class DirectSubexprs : public ir::StmtExprVisitor {
public:
  std::vector<ir::Expr> found;
  void visitExpr(const ir::Expr &e) override {
    if (isEligible(e)) found.push_back(e);
    else ir::ExprFunctor<void>::visitExpr(e);
  }
};

std::vector<ir::Expr> directSubexprs(const ir::Expr &e) {
  DirectSubexprs collector;
  collector.ir::ExprFunctor<void>::visitExpr(e);
  return std::move(collector.found);
}

class ExprReplacer : public ir::StmtExprMutator {
public:
  ExprReplacer(const ir::Expr &target, const ir::Expr &replacement) : target_(target), replacement_(replacement) {}
  ir::Expr visitExpr(const ir::Expr &e) override {
    if (ExprEqual()(e, target_)) return replacement_;
    return ir::StmtExprMutator::visitExpr(e);
  }

private:
  const ir::Expr &target_;
  const ir::Expr &replacement_;
};

struct Candidate {
  ir::Expr expr;
  size_t count;
  size_t size;
  std::string text;  // legacyText(expr), for the initial order only
};

class CommonSubexprEliminator : public ir::StmtExprMutator {
public:
  CommonSubexprEliminator(const ir::PrimFunc &func) {
    for (const ir::VarRef &p : func.params) context_.push_back({p, nullptr});
    ir::preOrderVisit(func.body, [&](const ir::Node &n) {
      if (const auto *v = n.as<ir::Var>()) namesInBody_.insert(v->name);
    });
  }

  ir::Stmt visitStmt(const ir::Stmt &stmt) override {
    ir::Stmt result = stmt;
    bool created = false;
    eliminate(counter_.ofStmt(stmt), [&](const ir::Expr &target, const ir::VarRef &var, bool introduce) {
      result = ExprReplacer(target, var).visitStmt(result);
      if (introduce) {
        result = ir::Stmt(new ir::LetStmt(var, target, result, stmt->loc()));
        created = true;
      }
    });
    if (created) return visitStmt(result);
    return ir::StmtFunctor<ir::Stmt>::visitStmt(result);
  }

  ir::Expr visitExpr(const ir::Expr &expr) override {
    ir::Expr result = expr;
    eliminate(counter_.ofExpr(expr), [&](const ir::Expr &target, const ir::VarRef &var, bool introduce) {
      result = ExprReplacer(target, var).visitExpr(result);
      if (introduce) result = ir::Expr(new ir::Let(var, target, result, expr->loc()));
    });
    return ir::ExprFunctor<ir::Expr>::visitExpr(result);
  }

  ir::Stmt visitLetStmt(const ir::LetStmt &op) override {
    ir::Expr value = visitExpr(op.value);
    context_.push_back({op.var, op.value});
    ir::Stmt body = visitStmt(op.body);
    context_.pop_back();
    if (value == op.value && body == op.body) return ir::Stmt(&op);
    return ir::Stmt(new ir::LetStmt(op.var, value, body, op.loc()));
  }

  ir::Expr visitLet(const ir::Let &op) override {
    ir::Expr value = visitExpr(op.value);
    context_.push_back({op.var, op.value});
    ir::Expr body = visitExpr(op.body);
    context_.pop_back();
    if (value == op.value && body == op.body) return ir::Expr(&op);
    return ir::Expr(new ir::Let(op.var, value, body, op.loc()));
  }

  ir::Stmt visitFor(const ir::For &op) override {
    ir::Expr min = visitExpr(op.min), extent = visitExpr(op.extent);
    context_.push_back({op.loopVar, nullptr});
    ir::Stmt body = visitStmt(op.body);
    context_.pop_back();
    return updateFor(op, min, extent, body);
  }

private:
  struct ContextEntry {
    ir::VarRef var;
    ir::Expr value;  // null for loop variables and parameters
  };

  // Walks the candidates largest first and calls act(target, var, introduce) for each
  // computation to replace: by an enclosing let's variable (introduce false) or by a new one.
  template <class Act> void eliminate(const ComputationTable &table, Act act) {
    std::vector<Candidate> candidates;
    for (const auto &[e, n] : table) candidates.push_back({e, n, complexity(e), legacyText(e)});
    std::sort(candidates.begin(), candidates.end(), [](const Candidate &a, const Candidate &b) {
      if (a.size != b.size) return a.size > b.size;
      return a.text < b.text;
    });
    for (size_t i = 0; i < candidates.size(); ++i) {
      Candidate current = candidates[i];
      if (ir::VarRef bound = enclosingLetOf(current.expr)) {
        act(current.expr, bound, false);
      } else if (current.count >= 2 && allVarsInScope(current.expr)) {
        act(current.expr, freshVar(current.expr->dtype), true);
      } else {
        for (const ir::Expr &sub : directSubexprs(current.expr)) countOnceMore(candidates, sub);
      }
    }
  }

  static void countOnceMore(std::vector<Candidate> &candidates, const ir::Expr &e) {
    for (Candidate &c : candidates) {
      if (ExprEqual()(c.expr, e)) {
        ++c.count;
        return;
      }
    }
    size_t size = complexity(e);
    auto at = std::find_if(candidates.begin(), candidates.end(), [&](const Candidate &c) { return c.size < size; });
    candidates.insert(at, {e, 1, size, std::string()});
  }

  ir::VarRef enclosingLetOf(const ir::Expr &e) const {
    for (const ContextEntry &entry : context_)
      if (entry.value && ExprEqual()(entry.value, e)) return entry.var;
    return nullptr;
  }

  bool allVarsInScope(const ir::Expr &e) const {
    bool all = true;
    ir::preOrderVisit(e, [&](const ir::Node &n) {
      if (const auto *v = n.as<ir::Var>())
        all &= std::any_of(context_.begin(), context_.end(), [&](const ContextEntry &c) { return c.var.get() == v; });
    });
    return all;
  }

  ir::VarRef freshVar(ir::DataType dtype) {
    std::string name;
    do name = "cse_var_" + std::to_string(++lastNumber_);
    while (namesInBody_.count(name));
    return ir::makeVar(name, dtype);
  }

  ComputationCounter counter_;
  std::vector<ContextEntry> context_;
  std::unordered_set<std::string> namesInBody_;
  int lastNumber_ = 0;
};

}  // namespace

llvm::Expected<ir::PrimFuncRef> commonSubexprElim(const ir::PrimFuncRef &func, PassContext &) {
  return withBody(func, CommonSubexprEliminator(*func).visitStmt(func->body));
}

}  // namespace vtac::passes
