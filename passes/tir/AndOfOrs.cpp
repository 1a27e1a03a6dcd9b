#include "tir/AndOfOrs.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "vtac/ir/Arith.h"
#include "vtac/ir/StructuralEqual.h"

namespace vtac::passes {
namespace {

using Visit = std::function<void(const ir::Expr &)>;

// The terms of `e` read as an `and` (outer) or an `or` (outer = Or) of terms, the other operator
// distributed over it: (a and b) or c gives, as an `and`, the terms a or c, b or c.
void visitTerms(ir::NodeKind outer, const ir::Expr &e, const Visit &visit) {
  ir::NodeKind inner = outer == ir::NodeKind::And ? ir::NodeKind::Or : ir::NodeKind::And;
  const auto *op = e.as<ir::BinaryExpr>();
  if (op && op->kind() == outer) {
    visitTerms(outer, op->a, visit);
    visitTerms(outer, op->b, visit);
  } else if (op && op->kind() == inner) {
    visitTerms(outer, op->a, [&](const ir::Expr &a) {
      visitTerms(outer, op->b, [&](const ir::Expr &b) { visit(ir::makeBinary(inner, a, b)); });
    });
  } else {
    visit(e);
  }
}

class AndOfOrs {
public:
  explicit AndOfOrs(const ir::Expr &e) : true_(key(ir::boolImm(true))), false_(key(ir::boolImm(false))) {
    visitTerms(ir::NodeKind::And, e, [&](const ir::Expr &group) {
      Group keys;
      visitTerms(ir::NodeKind::Or, group, [&](const ir::Expr &term) {
        size_t k = key(term);
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
      });
      bool repeated = std::any_of(groups_.begin(), groups_.end(), [&](const Group &g) {
        return g.size() == keys.size() && std::is_permutation(g.begin(), g.end(), keys.begin());
      });
      if (!repeated) groups_.push_back(std::move(keys));
    });
  }

  void simplify(ir::arith::Analyzer &analyzer) {
    for (Group &group : groups_)
      for (size_t i = 0; i < group.size(); ++i)
        for (size_t j = i + 1; j < group.size(); ++j) simplifyPair(ir::NodeKind::Or, group[i], group[j], analyzer);
    removeTrueFalse();
    for (size_t i = 0; i < groups_.size(); ++i)
      for (size_t j = i + 1; j < groups_.size(); ++j) simplifyGroups(groups_[i], groups_[j], analyzer);
    removeTrueFalse();
  }

  ir::Expr expr() const {
    ir::Expr all = ir::boolImm(true);
    for (const Group &group : groups_) {
      ir::Expr any = ir::boolImm(false);
      for (size_t k : group) any = ir::makeBinary(ir::NodeKind::Or, any, terms_[k]);
      all = ir::makeBinary(ir::NodeKind::And, all, any);
    }
    return all;
  }

private:
  using Group = std::vector<size_t>;  // keys of the terms of one `or`

  size_t key(const ir::Expr &e) {
    for (size_t k = 0; k < terms_.size(); ++k)
      if (ir::structuralEqual(terms_[k], e)) return k;
    terms_.push_back(e);
    return terms_.size() - 1;
  }

  // a OP b simplified: its two sides replace a and b, or (one expression) b, a the identity.
  void simplifyPair(ir::NodeKind op, size_t &a, size_t &b, ir::arith::Analyzer &analyzer) {
    ir::Expr joint = ir::makeBinary(op, terms_[a], terms_[b]);
    ir::Expr simplified = analyzer.rewriteSimplify(joint);
    if (ir::structuralEqual(simplified, joint)) return;
    if (const auto *bin = simplified.as<ir::BinaryExpr>(); bin && bin->kind() == op) {
      a = key(bin->a);
      b = key(bin->b);
    } else {
      a = op == ir::NodeKind::Or ? false_ : true_;
      b = key(simplified);
    }
  }

  // Two groups: one holding every term of the other is implied by it (becomes true); two of one
  // size sharing all but one term, (s or x) and (s or y), simplify x and y assuming s false.
  void simplifyGroups(Group &g1, Group &g2, ir::arith::Analyzer &analyzer) {
    if (g1.size() == 1 && g2.size() == 1) return simplifyPair(ir::NodeKind::And, g1[0], g2[0], analyzer);
    auto distinct = [](const Group &of, const Group &from) -> std::optional<size_t> {
      for (size_t i = 0; i < of.size(); ++i)
        if (std::find(from.begin(), from.end(), of[i]) == from.end()) return i;
      return std::nullopt;
    };
    std::optional<size_t> d1 = distinct(g1, g2);
    if (!d1) {
      g2 = {true_};
      return;
    }
    std::optional<size_t> d2 = distinct(g2, g1);
    if (!d2) {
      g1 = {true_};
      return;
    }
    size_t shared = std::count_if(g2.begin(), g2.end(), [&](size_t k) { return std::find(g1.begin(), g1.end(), k) != g1.end(); });
    if (g1.size() != g2.size() || shared + 1 != g1.size()) return;
    ir::Expr sharedFalse = ir::boolImm(true);
    for (size_t i = 0; i < g1.size(); ++i)
      if (i != *d1) sharedFalse = ir::makeBinary(ir::NodeKind::And, sharedFalse, analyzer.simplify(ir::notExpr(terms_[g1[i]])));
    ir::arith::Analyzer::ConstraintScope scope(analyzer, sharedFalse);
    simplifyPair(ir::NodeKind::And, g1[*d1], g2[*d2], analyzer);
  }

  void removeTrueFalse() {
    for (Group &group : groups_) {
      if (std::find(group.begin(), group.end(), true_) != group.end()) group = {true_};
      else group.erase(std::remove(group.begin(), group.end(), false_), group.end());
    }
    if (std::any_of(groups_.begin(), groups_.end(), [](const Group &g) { return g.empty(); })) {
      groups_ = {{}};
      return;
    }
    groups_.erase(std::remove_if(groups_.begin(), groups_.end(),
                                 [&](const Group &g) { return g.size() == 1 && g[0] == true_; }),
                  groups_.end());
  }

  std::vector<ir::Expr> terms_;
  std::vector<Group> groups_;
  size_t true_, false_;
};

}  // namespace

ir::Expr simplifyAsAndOfOrs(ir::arith::Analyzer &analyzer, const ir::Expr &e) {
  AndOfOrs form(e);
  form.simplify(analyzer);
  return form.expr();
}

}  // namespace vtac::passes
