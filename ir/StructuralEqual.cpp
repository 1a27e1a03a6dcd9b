// Structural equality (alpha-equivalence over variables and buffers) and a hash consistent
// with it. Both walk the fields of every node in the same order; variables and buffers are
// identified by where they first occur in that walk.
#include "vtac/ir/StructuralEqual.h"

#include "vtac/ir/CommReducer.h"
#include "vtac/ir/Relax.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <llvm/Support/raw_ostream.h>

namespace vtac::ir {
namespace {

class StructuralComparer {
public:
  // Only a caller that asks where the first difference lies pays for describing it: the
  // simplifier compares expressions by the thousand and most comparisons fail.
  StructuralComparer(bool mapFreeVars, bool explain) : mapFreeVars_(mapFreeVars), explain_(explain) {}

  bool expr(const Expr &a, const Expr &b);
  bool stmt(const Stmt &a, const Stmt &b);
  bool func(const PrimFunc &a, const PrimFunc &b);
  bool attrs(const AttrMap &a, const AttrMap &b);
  const std::string &difference() const { return difference_; }
  const StructuralDifference &where() const { return where_; }

private:
  bool stmtFields(const Stmt &a, const Stmt &b);
  bool sequences(const Stmt &a, const Stmt &b);
  void explainSequences(const std::vector<Stmt> &a, const std::vector<Stmt> &b);
  template <typename Compare> bool attempt(Compare compare);
  bool fail(const Node *a, const Node *b, llvm::StringRef what);
  bool bind(const Node *a, const Node *b);
  bool defineVar(const VarRef &a, const VarRef &b);
  bool useVar(const Var &a, const Var &b);
  bool defineBuffer(const BufferRef &a, const BufferRef &b);
  bool buffer(const BufferRef &a, const BufferRef &b);
  bool bufferFields(const Buffer &a, const Buffer &b);
  bool iterVar(const IterVarRef &a, const IterVarRef &b, bool defines);
  bool exprs(const std::vector<Expr> &a, const std::vector<Expr> &b);
  bool optionalExpr(const Expr &a, const Expr &b);
  bool optionalStmt(const Stmt &a, const Stmt &b);
  bool range(const Range &a, const Range &b);
  bool region(const BufferRegion &a, const BufferRegion &b);
  bool regions(const std::vector<BufferRegion> &a, const std::vector<BufferRegion> &b);
  bool attrValue(const AttrValue &a, const AttrValue &b, llvm::StringRef key);
  bool node(const NodeRef &a, const NodeRef &b);
  bool reducer(const CommReducer &a, const CommReducer &b);
  bool block(const Block &a, const Block &b);

  bool mapFreeVars_;
  bool explain_;
  std::unordered_map<const Node *, const Node *> lhsToRhs_, rhsToLhs_;
  std::string difference_;
  StructuralDifference where_;
  // The function, statements and expressions being compared, outermost first, for reporting
  // where a difference lies (kept only when explaining).
  std::vector<const Node *> pathA_, pathB_;

  // Extends the paths for the lifetime of the step, each by its node unless that is null or
  // already the innermost (a statement compared as a sequence of one).
  class PathStep {
  public:
    PathStep(StructuralComparer &comparer, const Node *a, const Node *b)
        : comparer_(comparer), a_(extends(comparer.pathA_, a)), b_(extends(comparer.pathB_, b)) {
      if (a_) comparer_.pathA_.push_back(a_);
      if (b_) comparer_.pathB_.push_back(b_);
    }
    ~PathStep() {
      if (a_) comparer_.pathA_.pop_back();
      if (b_) comparer_.pathB_.pop_back();
    }

  private:
    const Node *extends(const std::vector<const Node *> &path, const Node *node) const {
      return comparer_.explain_ && node && (path.empty() || path.back() != node) ? node : nullptr;
    }

    StructuralComparer &comparer_;
    const Node *a_, *b_;
  };
};

// A node as a step of the path to a difference: a variable is one node for all its uses,
// located where it is defined, so the path stops at the expression that uses it.
const Node *pathStep(const Node *node) {
  return node && node->kind() == NodeKind::Var ? nullptr : node;
}

std::vector<NodeRef> pathRefs(const std::vector<const Node *> &path) {
  return std::vector<NodeRef>(path.begin(), path.end());
}

// A statement as the sequence it stands for: a SeqStmt's statements, else itself alone.
std::vector<Stmt> statementsOf(const Stmt &stmt) {
  if (const auto *seq = stmt.as<SeqStmt>()) return seq->stmts;
  return {stmt};
}

std::string describe(const Node *n) {
  if (!n) return "<null>";
  std::string text = nodeKindName(n->kind());
  if (n->loc().isKnown()) {
    text += " at " + sourceFileName(n->loc().file) + ":" + std::to_string(n->loc().line) + ":" +
            std::to_string(n->loc().column);
  }
  return text;
}

bool StructuralComparer::fail(const Node *a, const Node *b, llvm::StringRef what) {
  if (explain_ && difference_.empty()) {
    difference_ = what.str() + ": " + describe(a) + " vs " + describe(b);
    where_ = {what.str(), {NodeRef(a), pathRefs(pathA_)}, {NodeRef(b), pathRefs(pathB_)}};
  }
  return false;
}

bool StructuralComparer::bind(const Node *a, const Node *b) {
  auto fwd = lhsToRhs_.find(a);
  auto bwd = rhsToLhs_.find(b);
  if (fwd != lhsToRhs_.end() || bwd != rhsToLhs_.end()) {
    if (fwd != lhsToRhs_.end() && fwd->second == b) return true;
    return fail(a, b, "variable or buffer bound to two different counterparts");
  }
  lhsToRhs_.emplace(a, b);
  rhsToLhs_.emplace(b, a);
  return true;
}

bool StructuralComparer::defineVar(const VarRef &a, const VarRef &b) {
  if (!a || !b) return a == b || fail(a.get(), b.get(), "missing variable");
  if (a->dtype != b->dtype || a->pointer != b->pointer) return fail(a.get(), b.get(), "variable types differ");
  return bind(a.get(), b.get());
}

bool StructuralComparer::useVar(const Var &a, const Var &b) {
  auto fwd = lhsToRhs_.find(&a);
  if (fwd != lhsToRhs_.end()) return fwd->second == &b || fail(&a, &b, "different variables");
  if (rhsToLhs_.count(&b)) return fail(&a, &b, "different variables");
  if (&a == &b) return true;
  if (!mapFreeVars_) return fail(&a, &b, "different free variables");
  return defineVar(VarRef(&a), VarRef(&b));
}

bool StructuralComparer::bufferFields(const Buffer &a, const Buffer &b) {
  if (a.dtype != b.dtype || a.dataAlignment != b.dataAlignment || a.offsetFactor != b.offsetFactor ||
      a.scope() != b.scope() || a.axisSeparators != b.axisSeparators || a.autoBroadcast != b.autoBroadcast)
    return fail(&a, &b, "buffer attributes differ");
  return useVar(*a.data, *b.data) && exprs(a.shape, b.shape) && exprs(a.strides, b.strides) &&
         optionalExpr(a.elemOffset, b.elemOffset);
}

bool StructuralComparer::defineBuffer(const BufferRef &a, const BufferRef &b) {
  // The data variable and new shape/stride variables are defined together with the buffer.
  if (!lhsToRhs_.count(a->data.get()) && !defineVar(a->data, b->data)) return false;
  auto defineNewVars = [&](const std::vector<Expr> &xs, const std::vector<Expr> &ys) {
    if (xs.size() != ys.size()) return true;  // reported by bufferFields
    for (size_t i = 0; i < xs.size(); ++i) {
      const auto *x = xs[i].as<Var>();
      const auto *y = ys[i].as<Var>();
      if (x && y && !lhsToRhs_.count(x) && !rhsToLhs_.count(y) && x != y &&
          !defineVar(VarRef(x), VarRef(y)))
        return false;
    }
    return true;
  };
  if (!defineNewVars(a->shape, b->shape) || !defineNewVars(a->strides, b->strides)) return false;
  if (a->elemOffset && b->elemOffset && !defineNewVars({a->elemOffset}, {b->elemOffset})) return false;
  return bufferFields(*a, *b) && bind(a.get(), b.get());
}

bool StructuralComparer::buffer(const BufferRef &a, const BufferRef &b) {
  auto fwd = lhsToRhs_.find(a.get());
  if (fwd != lhsToRhs_.end()) return fwd->second == b.get() || fail(a.get(), b.get(), "different buffers");
  if (rhsToLhs_.count(b.get())) return fail(a.get(), b.get(), "different buffers");
  if (a == b) return true;
  // A buffer used without a declaration (a view over another allocation): compare its fields.
  return bufferFields(*a, *b) && bind(a.get(), b.get());
}

bool StructuralComparer::iterVar(const IterVarRef &a, const IterVarRef &b, bool defines) {
  if (!a || !b) return a == b || fail(a.get(), b.get(), "missing iteration variable");
  if (a->iterType != b->iterType || a->threadTag != b->threadTag)
    return fail(a.get(), b.get(), "iteration variable kinds differ");
  if (a->dom.defined() != b->dom.defined()) return fail(a.get(), b.get(), "iteration domains differ");
  if (a->dom.defined() && !range(a->dom, b->dom)) return false;
  return defines ? defineVar(a->var, b->var) : useVar(*a->var, *b->var);
}

bool StructuralComparer::exprs(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  if (a.size() != b.size()) return fail(nullptr, nullptr, "different numbers of expressions");
  for (size_t i = 0; i < a.size(); ++i)
    if (!expr(a[i], b[i])) return false;
  return true;
}

bool StructuralComparer::optionalExpr(const Expr &a, const Expr &b) {
  if (!a || !b) {
    PathStep step(*this, pathStep(a.get()), pathStep(b.get()));
    return a == b || fail(a.get(), b.get(), "optional expression present on one side");
  }
  return expr(a, b);
}

bool StructuralComparer::optionalStmt(const Stmt &a, const Stmt &b) {
  if (!a || !b) {
    PathStep step(*this, a.get(), b.get());
    return a == b || fail(a.get(), b.get(), "optional statement present on one side");
  }
  return stmt(a, b);
}

bool StructuralComparer::range(const Range &a, const Range &b) {
  return optionalExpr(a.min, b.min) && optionalExpr(a.extent, b.extent);
}

bool StructuralComparer::region(const BufferRegion &a, const BufferRegion &b) {
  if (!buffer(a.buffer, b.buffer)) return false;
  if (a.region.size() != b.region.size()) return fail(a.buffer.get(), b.buffer.get(), "region ranks differ");
  for (size_t i = 0; i < a.region.size(); ++i)
    if (!range(a.region[i], b.region[i])) return false;
  return true;
}

bool StructuralComparer::regions(const std::vector<BufferRegion> &a, const std::vector<BufferRegion> &b) {
  if (a.size() != b.size()) return fail(nullptr, nullptr, "different numbers of buffer regions");
  for (size_t i = 0; i < a.size(); ++i)
    if (!region(a[i], b[i])) return false;
  return true;
}

bool StructuralComparer::attrValue(const AttrValue &a, const AttrValue &b, llvm::StringRef key) {
  if (a.storage().index() != b.storage().index())
    return fail(nullptr, nullptr, "kinds of attribute '" + key.str() + "' differ");
  if (a.isExpr()) return expr(a.asExpr(), b.asExpr());
  if (a.isMap()) return attrs(a.asMap(), b.asMap());
  if (a.isArray()) {
    const auto &x = a.asArray(), &y = b.asArray();
    if (x.size() != y.size()) return fail(nullptr, nullptr, "arrays of attribute '" + key.str() + "' differ in length");
    for (size_t i = 0; i < x.size(); ++i)
      if (!attrValue(x[i], y[i], key)) return false;
    return true;
  }
  bool same = a.isNone() || (a.isBool() && a.asBool() == b.asBool()) || (a.isInt() && a.asInt() == b.asInt()) ||
              (a.isFloat() && a.asFloat() == b.asFloat()) || (a.isString() && a.asString() == b.asString());
  return same || fail(nullptr, nullptr, "values of attribute '" + key.str() + "' differ");
}

bool StructuralComparer::attrs(const AttrMap &a, const AttrMap &b) {
  if (a.size() != b.size()) {
    for (const auto &[key, value] : a)
      if (!b.contains(key)) return fail(nullptr, nullptr, "attribute '" + key + "' on the left side only");
    for (const auto &[key, value] : b)
      if (!a.contains(key)) return fail(nullptr, nullptr, "attribute '" + key + "' on the right side only");
    return fail(nullptr, nullptr, "attribute maps differ in size");
  }
  for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y) {
    if (x->first != y->first) return fail(nullptr, nullptr, "attribute keys differ (" + x->first + " vs " + y->first + ")");
    if (!attrValue(x->second, y->second, x->first)) return false;
  }
  return true;
}

bool StructuralComparer::node(const NodeRef &a, const NodeRef &b) {
  if (!a || !b) return a == b || fail(a.get(), b.get(), "attribute node present on one side");
  if (a->kind() != b->kind()) return fail(a.get(), b.get(), "node kinds differ");
  if (const auto *x = a.as<IterVar>()) return iterVar(IterVarRef(x), IterVarRef(b.as<IterVar>()), false);
  if (const auto *x = a.as<Buffer>()) return buffer(BufferRef(x), BufferRef(b.as<Buffer>()));
  if (const auto *x = a.as<ExprNode>()) return expr(Expr(x), Expr(b.as<ExprNode>()));
  if (const auto *x = a.as<CommReducer>()) return reducer(*x, *b.as<CommReducer>());
  return a == b || fail(a.get(), b.get(), "different attribute nodes");
}

// The parameters are defined by the reducer, lhs then rhs, as the hash meets them.
bool StructuralComparer::reducer(const CommReducer &a, const CommReducer &b) {
  if (a.lhs.size() != b.lhs.size() || a.rhs.size() != b.rhs.size())
    return fail(&a, &b, "reducers combine different numbers of values");
  for (size_t i = 0; i < a.lhs.size(); ++i)
    if (!defineVar(a.lhs[i], b.lhs[i])) return false;
  for (size_t i = 0; i < a.rhs.size(); ++i)
    if (!defineVar(a.rhs[i], b.rhs[i])) return false;
  return exprs(a.result, b.result) && exprs(a.identity, b.identity);
}

bool StructuralComparer::expr(const Expr &ea, const Expr &eb) {
  const ExprNode &a = *ea, &b = *eb;
  PathStep step(*this, pathStep(&a), pathStep(&b));
  if (a.kind() != b.kind()) return fail(&a, &b, "expression kinds differ");
  if (a.dtype != b.dtype) return fail(&a, &b, "dtypes differ (" + a.dtype.str() + " vs " + b.dtype.str() + ")");
  switch (a.kind()) {
  case NodeKind::IntImm:
    return static_cast<const IntImm &>(a).value == static_cast<const IntImm &>(b).value || fail(&a, &b, "integer values differ");
  case NodeKind::FloatImm: {
    double x = static_cast<const FloatImm &>(a).value, y = static_cast<const FloatImm &>(b).value;
    // 0.0 and -0.0 compare equal but are different values (1 / x); any NaN is the same NaN.
    return (x == y && std::signbit(x) == std::signbit(y)) || (x != x && y != y) ||
           fail(&a, &b, "float values differ");
  }
  case NodeKind::StringImm:
    return static_cast<const StringImm &>(a).value == static_cast<const StringImm &>(b).value || fail(&a, &b, "strings differ");
  case NodeKind::Var: return useVar(static_cast<const Var &>(a), static_cast<const Var &>(b));
  case NodeKind::Cast: return expr(static_cast<const Cast &>(a).value, static_cast<const Cast &>(b).value);
  case NodeKind::Not: return expr(static_cast<const Not &>(a).a, static_cast<const Not &>(b).a);
  case NodeKind::Select: {
    const auto &x = static_cast<const Select &>(a), &y = static_cast<const Select &>(b);
    return expr(x.condition, y.condition) && expr(x.trueValue, y.trueValue) && expr(x.falseValue, y.falseValue);
  }
  case NodeKind::BufferLoad: {
    const auto &x = static_cast<const BufferLoad &>(a), &y = static_cast<const BufferLoad &>(b);
    return buffer(x.buffer, y.buffer) && exprs(x.indices, y.indices);
  }
  case NodeKind::Call: {
    const auto &x = static_cast<const Call &>(a), &y = static_cast<const Call &>(b);
    if (x.op != y.op) return fail(&a, &b, "call ops differ (" + x.op + " vs " + y.op + ")");
    return exprs(x.args, y.args);
  }
  case NodeKind::Let: {
    const auto &x = static_cast<const Let &>(a), &y = static_cast<const Let &>(b);
    return expr(x.value, y.value) && defineVar(x.var, y.var) && expr(x.body, y.body);
  }
  case NodeKind::Ramp: {
    const auto &x = static_cast<const Ramp &>(a), &y = static_cast<const Ramp &>(b);
    return x.lanes == y.lanes && expr(x.base, y.base) && expr(x.stride, y.stride);
  }
  case NodeKind::Broadcast: {
    const auto &x = static_cast<const Broadcast &>(a), &y = static_cast<const Broadcast &>(b);
    return x.lanes == y.lanes && expr(x.value, y.value);
  }
  default: {
    const auto &x = static_cast<const BinaryExpr &>(a), &y = static_cast<const BinaryExpr &>(b);
    return expr(x.a, y.a) && expr(x.b, y.b);
  }
  }
}

bool StructuralComparer::block(const Block &a, const Block &b) {
  if (a.iterVars.size() != b.iterVars.size()) return fail(&a, &b, "block iteration variable counts differ");
  for (size_t i = 0; i < a.iterVars.size(); ++i)
    if (!iterVar(a.iterVars[i], b.iterVars[i], true)) return false;
  if (a.allocBuffers.size() != b.allocBuffers.size())
    return fail(&a, &b, "blocks allocate different numbers of buffers (" + std::to_string(a.allocBuffers.size()) +
                            " vs " + std::to_string(b.allocBuffers.size()) + ")");
  for (size_t i = 0; i < a.allocBuffers.size(); ++i)
    if (!defineBuffer(a.allocBuffers[i], b.allocBuffers[i])) return false;
  if (a.matchBuffers.size() != b.matchBuffers.size()) return fail(&a, &b, "block match_buffers differ");
  for (size_t i = 0; i < a.matchBuffers.size(); ++i) {
    if (!region(a.matchBuffers[i].source, b.matchBuffers[i].source) ||
        !defineBuffer(a.matchBuffers[i].buffer, b.matchBuffers[i].buffer))
      return false;
  }
  return regions(a.reads, b.reads) && regions(a.writes, b.writes) && attrs(a.annotations, b.annotations) &&
         optionalStmt(a.init, b.init) && stmt(a.body, b.body);
}

bool StructuralComparer::stmt(const Stmt &sa, const Stmt &sb) {
  PathStep step(*this, sa.get(), sb.get());
  return stmtFields(sa, sb);
}

// Runs a comparison that may fail without it being the difference reported: on failure the
// variables and buffers it matched, and the difference it found, are forgotten.
template <typename Compare> bool StructuralComparer::attempt(Compare compare) {
  auto lhsToRhs = lhsToRhs_, rhsToLhs = rhsToLhs_;
  if (compare()) return true;
  lhsToRhs_ = std::move(lhsToRhs);
  rhsToLhs_ = std::move(rhsToLhs);
  difference_.clear();
  where_ = {};
  return false;
}

// A SeqStmt against a statement of another kind (a sequence of one) is a difference too, but
// explained as one between sequences: a statement added to a body of one statement.
bool StructuralComparer::sequences(const Stmt &sa, const Stmt &sb) {
  const auto *x = sa.as<SeqStmt>(), *y = sb.as<SeqStmt>();
  if (x && y && x->stmts.size() == y->stmts.size()) {
    for (size_t i = 0; i < x->stmts.size(); ++i)
      if (!stmt(x->stmts[i], y->stmts[i])) return false;
    return true;
  }
  if (explain_) explainSequences(statementsOf(sa), statementsOf(sb));
  return false;
}

// Two sequences of different lengths: when leaving out statements of the longer one makes the
// rest line up, the first of those is the difference (present on one side only); otherwise the
// first pair of statements that differ is.
void StructuralComparer::explainSequences(const std::vector<Stmt> &xs, const std::vector<Stmt> &ys) {
  size_t common = 0, shorter = std::min(xs.size(), ys.size());
  while (common < shorter && attempt([&] { return stmt(xs[common], ys[common]); })) ++common;
  size_t skipA = xs.size() - shorter, skipB = ys.size() - shorter;
  bool restAligns = skipA != skipB && attempt([&] {
    for (size_t i = common; i < shorter; ++i)
      if (!stmt(xs[i + skipA], ys[i + skipB])) return false;
    return true;
  });
  if (!restAligns) {
    if (common < shorter) stmt(xs[common], ys[common]);
    else fail(nullptr, nullptr, "sequences differ");
    return;
  }
  bool extraOnLeft = skipA > 0;
  const std::vector<Stmt> &longerSeq = extraOnLeft ? xs : ys, &shorterSeq = extraOnLeft ? ys : xs;
  // Where the statement would be on the other side: before the statement that lines up with
  // the one after it, or after the last statement.
  bool atEnd = common == shorterSeq.size();
  const StmtNode *neighbour = shorterSeq.empty() ? nullptr : (atEnd ? shorterSeq.back() : shorterSeq[common]).get();
  const StmtNode *extra = longerSeq[common].get();
  PathStep step(*this, extraOnLeft ? extra : neighbour, extraOnLeft ? neighbour : extra);
  fail(extraOnLeft ? extra : nullptr, extraOnLeft ? nullptr : extra,
       extraOnLeft ? "statement on the left side only" : "statement on the right side only");
  (extraOnLeft ? where_.rhs : where_.lhs).presence =
      atEnd ? StructuralDifference::Side::Presence::MissingAfter : StructuralDifference::Side::Presence::MissingBefore;
}

bool StructuralComparer::stmtFields(const Stmt &sa, const Stmt &sb) {
  const StmtNode &a = *sa, &b = *sb;
  if (a.kind() == NodeKind::SeqStmt || b.kind() == NodeKind::SeqStmt) return sequences(sa, sb);
  if (a.kind() != b.kind()) return fail(&a, &b, "statement kinds differ");
  switch (a.kind()) {
  case NodeKind::BufferStore: {
    const auto &x = static_cast<const BufferStore &>(a), &y = static_cast<const BufferStore &>(b);
    return buffer(x.buffer, y.buffer) && expr(x.value, y.value) && exprs(x.indices, y.indices);
  }
  case NodeKind::LetStmt: {
    const auto &x = static_cast<const LetStmt &>(a), &y = static_cast<const LetStmt &>(b);
    return expr(x.value, y.value) && defineVar(x.var, y.var) && stmt(x.body, y.body);
  }
  case NodeKind::AttrStmt: {
    const auto &x = static_cast<const AttrStmt &>(a), &y = static_cast<const AttrStmt &>(b);
    if (x.key != y.key) return fail(&a, &b, "attribute keys differ (" + x.key + " vs " + y.key + ")");
    return node(x.node, y.node) && expr(x.value, y.value) && stmt(x.body, y.body);
  }
  case NodeKind::AssertStmt: {
    const auto &x = static_cast<const AssertStmt &>(a), &y = static_cast<const AssertStmt &>(b);
    return expr(x.condition, y.condition) && expr(x.message, y.message) && stmt(x.body, y.body);
  }
  case NodeKind::For: {
    const auto &x = static_cast<const For &>(a), &y = static_cast<const For &>(b);
    if (x.forKind != y.forKind) return fail(&a, &b, "loop kinds differ");
    return expr(x.min, y.min) && expr(x.extent, y.extent) && defineVar(x.loopVar, y.loopVar) &&
           iterVar(x.threadBinding, y.threadBinding, true) && attrs(x.annotations, y.annotations) &&
           stmt(x.body, y.body);
  }
  case NodeKind::While: {
    const auto &x = static_cast<const While &>(a), &y = static_cast<const While &>(b);
    return expr(x.condition, y.condition) && stmt(x.body, y.body);
  }
  case NodeKind::IfThenElse: {
    const auto &x = static_cast<const IfThenElse &>(a), &y = static_cast<const IfThenElse &>(b);
    return expr(x.condition, y.condition) && stmt(x.thenCase, y.thenCase) && optionalStmt(x.elseCase, y.elseCase);
  }
  case NodeKind::Evaluate:
    return expr(static_cast<const Evaluate &>(a).value, static_cast<const Evaluate &>(b).value);
  case NodeKind::Allocate: {
    const auto &x = static_cast<const Allocate &>(a), &y = static_cast<const Allocate &>(b);
    if (x.dtype != y.dtype) return fail(&a, &b, "allocation dtypes differ");
    if (bool(x.constantData) != bool(y.constantData) ||
        (x.constantData && x.constantData->bytes() != y.constantData->bytes()))
      return fail(&a, &b, "constant allocation data differ");
    return exprs(x.extents, y.extents) && optionalExpr(x.condition, y.condition) &&
           attrs(x.annotations, y.annotations) && defineVar(x.bufferVar, y.bufferVar) && stmt(x.body, y.body);
  }
  case NodeKind::DeclBuffer: {
    const auto &x = static_cast<const DeclBuffer &>(a), &y = static_cast<const DeclBuffer &>(b);
    return defineBuffer(x.buffer, y.buffer) && stmt(x.body, y.body);
  }
  case NodeKind::Block: return block(static_cast<const Block &>(a), static_cast<const Block &>(b));
  case NodeKind::BlockRealize: {
    const auto &x = static_cast<const BlockRealize &>(a), &y = static_cast<const BlockRealize &>(b);
    return exprs(x.iterValues, y.iterValues) && optionalExpr(x.predicate, y.predicate) && block(*x.block, *y.block);
  }
  default:
    return fail(&a, &b, "unknown statement kind");
  }
}

bool StructuralComparer::func(const PrimFunc &a, const PrimFunc &b) {
  PathStep step(*this, &a, &b);
  if (a.params.size() != b.params.size()) return fail(&a, &b, "parameter counts differ");
  if (a.retType != b.retType) return fail(&a, &b, "return types differ");
  for (size_t i = 0; i < a.params.size(); ++i)
    if (!defineVar(a.params[i], b.params[i])) return false;
  if (a.bufferMap.size() != b.bufferMap.size()) return fail(&a, &b, "buffer maps differ in size");
  for (size_t i = 0; i < a.bufferMap.size(); ++i) {
    if (!useVar(*a.bufferMap[i].first, *b.bufferMap[i].first) ||
        !defineBuffer(a.bufferMap[i].second, b.bufferMap[i].second))
      return false;
  }
  return attrs(a.attrs, b.attrs) && stmt(a.body, b.body);
}

// ---- hashing -------------------------------------------------------------------------------

class StructuralHasher {
public:
  size_t value() const { return hash_; }

  void expr(const Expr &e);
  void stmt(const Stmt &s);
  void func(const PrimFunc &f);

private:
  void mix(size_t v) { hash_ ^= v + 0x9e3779b97f4a7c15ULL + (hash_ << 6) + (hash_ >> 2); }
  void mixString(llvm::StringRef s) { mix(std::hash<std::string_view>()(std::string_view(s.data(), s.size()))); }
  void mixType(DataType t) { mix((size_t(t.code()) << 24) | (size_t(t.bits()) << 16) | size_t(t.lanes())); }
  // Variables and buffers hash by the order in which the walk first meets them.
  void object(const Node *n) {
    auto [it, inserted] = order_.try_emplace(n, order_.size());
    mix(it->second);
  }
  void var(const Var &v) {
    object(&v);
    mixType(v.dtype);
  }
  void buffer(const Buffer &b) {
    bool first = !order_.count(&b);
    object(&b);
    if (!first) return;
    mixType(b.dtype);
    var(*b.data);
    exprs(b.shape);
    exprs(b.strides);
    if (b.elemOffset) expr(b.elemOffset);
  }
  void exprs(const std::vector<Expr> &es) {
    mix(es.size());
    for (const Expr &e : es) expr(e);
  }
  void range(const Range &r) {
    if (r.min) expr(r.min);
    if (r.extent) expr(r.extent);
  }
  void region(const BufferRegion &r) {
    buffer(*r.buffer);
    for (const Range &x : r.region) range(x);
  }
  void iterVar(const IterVar &iv) {
    mix(size_t(iv.iterType));
    mixString(iv.threadTag);
    range(iv.dom);
    var(*iv.var);
  }
  void reducer(const CommReducer &r) {
    mix(r.lhs.size());
    for (const VarRef &v : r.lhs) var(*v);
    for (const VarRef &v : r.rhs) var(*v);
    exprs(r.result);
    exprs(r.identity);
  }
  void attrs(const AttrMap &m) {
    mix(m.size());
    for (const auto &[key, value] : m) {
      mixString(key);
      mix(value.storage().index());
      if (value.isExpr()) expr(value.asExpr());
      else if (value.isInt()) mix(size_t(value.asInt()));
      else if (value.isString()) mixString(value.asString());
      else if (value.isBool()) mix(value.asBool());
    }
  }

  size_t hash_ = 0;
  std::unordered_map<const Node *, size_t> order_;
};

void StructuralHasher::expr(const Expr &e) {
  mix(size_t(e->kind()));
  mixType(e->dtype);
  switch (e->kind()) {
  case NodeKind::IntImm: mix(size_t(static_cast<const IntImm &>(*e).value)); return;
  case NodeKind::FloatImm: mix(std::hash<double>()(static_cast<const FloatImm &>(*e).value)); return;
  case NodeKind::StringImm: mixString(static_cast<const StringImm &>(*e).value); return;
  case NodeKind::Var: var(static_cast<const Var &>(*e)); return;
  case NodeKind::Cast: expr(static_cast<const Cast &>(*e).value); return;
  case NodeKind::Not: expr(static_cast<const Not &>(*e).a); return;
  case NodeKind::Select: {
    const auto &s = static_cast<const Select &>(*e);
    expr(s.condition);
    expr(s.trueValue);
    expr(s.falseValue);
    return;
  }
  case NodeKind::BufferLoad: {
    const auto &l = static_cast<const BufferLoad &>(*e);
    buffer(*l.buffer);
    exprs(l.indices);
    return;
  }
  case NodeKind::Call: {
    const auto &c = static_cast<const Call &>(*e);
    mixString(c.op);
    exprs(c.args);
    return;
  }
  case NodeKind::Let: {
    const auto &l = static_cast<const Let &>(*e);
    expr(l.value);
    var(*l.var);
    expr(l.body);
    return;
  }
  case NodeKind::Ramp: {
    const auto &r = static_cast<const Ramp &>(*e);
    mix(r.lanes);
    expr(r.base);
    expr(r.stride);
    return;
  }
  case NodeKind::Broadcast: {
    const auto &b = static_cast<const Broadcast &>(*e);
    mix(b.lanes);
    expr(b.value);
    return;
  }
  default: {
    const auto &b = static_cast<const BinaryExpr &>(*e);
    expr(b.a);
    expr(b.b);
    return;
  }
  }
}

void StructuralHasher::stmt(const Stmt &s) {
  mix(size_t(s->kind()));
  switch (s->kind()) {
  case NodeKind::BufferStore: {
    const auto &x = static_cast<const BufferStore &>(*s);
    buffer(*x.buffer);
    expr(x.value);
    exprs(x.indices);
    return;
  }
  case NodeKind::LetStmt: {
    const auto &x = static_cast<const LetStmt &>(*s);
    expr(x.value);
    var(*x.var);
    stmt(x.body);
    return;
  }
  case NodeKind::AttrStmt: {
    const auto &x = static_cast<const AttrStmt &>(*s);
    mixString(x.key);
    if (const auto *iv = x.node.as<IterVar>()) iterVar(*iv);
    else if (const auto *b = x.node.as<Buffer>()) buffer(*b);
    else if (const auto *r = x.node.as<CommReducer>()) reducer(*r);
    else if (const auto *e = x.node.as<ExprNode>()) expr(Expr(e));
    expr(x.value);
    stmt(x.body);
    return;
  }
  case NodeKind::AssertStmt: {
    const auto &x = static_cast<const AssertStmt &>(*s);
    expr(x.condition);
    expr(x.message);
    stmt(x.body);
    return;
  }
  case NodeKind::For: {
    const auto &x = static_cast<const For &>(*s);
    mix(size_t(x.forKind));
    expr(x.min);
    expr(x.extent);
    var(*x.loopVar);
    if (x.threadBinding) iterVar(*x.threadBinding);
    attrs(x.annotations);
    stmt(x.body);
    return;
  }
  case NodeKind::While: {
    const auto &x = static_cast<const While &>(*s);
    expr(x.condition);
    stmt(x.body);
    return;
  }
  case NodeKind::IfThenElse: {
    const auto &x = static_cast<const IfThenElse &>(*s);
    expr(x.condition);
    stmt(x.thenCase);
    mix(bool(x.elseCase));
    if (x.elseCase) stmt(x.elseCase);
    return;
  }
  case NodeKind::SeqStmt: {
    const auto &x = static_cast<const SeqStmt &>(*s);
    mix(x.stmts.size());
    for (const Stmt &c : x.stmts) stmt(c);
    return;
  }
  case NodeKind::Evaluate: expr(static_cast<const Evaluate &>(*s).value); return;
  case NodeKind::Allocate: {
    const auto &x = static_cast<const Allocate &>(*s);
    mixType(x.dtype);
    exprs(x.extents);
    if (x.condition) expr(x.condition);
    attrs(x.annotations);
    if (x.constantData) mixString(llvm::StringRef(reinterpret_cast<const char *>(x.constantData->bytes().data()), x.constantData->bytes().size()));
    var(*x.bufferVar);
    stmt(x.body);
    return;
  }
  case NodeKind::DeclBuffer: {
    const auto &x = static_cast<const DeclBuffer &>(*s);
    buffer(*x.buffer);
    stmt(x.body);
    return;
  }
  case NodeKind::Block: {
    const auto &x = static_cast<const Block &>(*s);
    for (const IterVarRef &iv : x.iterVars) iterVar(*iv);
    for (const BufferRef &b : x.allocBuffers) buffer(*b);
    for (const MatchBufferRegion &m : x.matchBuffers) {
      region(m.source);
      buffer(*m.buffer);
    }
    for (const BufferRegion &r : x.reads) region(r);
    for (const BufferRegion &r : x.writes) region(r);
    attrs(x.annotations);
    if (x.init) stmt(x.init);
    stmt(x.body);
    return;
  }
  case NodeKind::BlockRealize: {
    const auto &x = static_cast<const BlockRealize &>(*s);
    exprs(x.iterValues);
    if (x.predicate) expr(x.predicate);
    stmt(x.block);
    return;
  }
  default: return;
  }
}

void StructuralHasher::func(const PrimFunc &f) {
  mix(f.params.size());
  mixType(f.retType);
  for (const VarRef &p : f.params) var(*p);
  for (const auto &[param, buf] : f.bufferMap) {
    var(*param);
    buffer(*buf);
  }
  attrs(f.attrs);
  stmt(f.body);
}

}  // namespace

bool structuralEqual(const Expr &a, const Expr &b, bool mapFreeVars) {
  return StructuralComparer(mapFreeVars, /*explain=*/false).expr(a, b);
}

bool structuralEqual(const Stmt &a, const Stmt &b, bool mapFreeVars) {
  return StructuralComparer(mapFreeVars, /*explain=*/false).stmt(a, b);
}

bool structuralEqual(const PrimFunc &a, const PrimFunc &b) {
  return StructuralComparer(/*mapFreeVars=*/true, /*explain=*/false).func(a, b);
}

bool structuralEqual(const IRModule &a, const IRModule &b) {
  if (a.size() != b.size()) return false;
  if (!StructuralComparer(/*mapFreeVars=*/true, /*explain=*/false).attrs(a.attrs, b.attrs)) return false;
  for (const auto &entry : a.functions()) {
    FunctionRef other = b.lookup(entry.name->name);
    if (!other || other->isPrivate != entry.function->isPrivate) return false;
    if (const RelaxFunction *ra = asRelaxFunction(entry.function)) {
      const RelaxFunction *rb = asRelaxFunction(other);
      if (!rb || ra->isPure != rb->isPure || !relax::structuralEqual(*ra, *rb)) return false;
      continue;
    }
    const auto *fa = entry.function->as<PrimFunc>();
    const auto *fb = other->as<PrimFunc>();
    if (!fa || !fb || !structuralEqual(*fa, *fb)) return false;
  }
  return true;
}

size_t structuralHash(const Expr &expr) {
  StructuralHasher h;
  h.expr(expr);
  return h.value();
}

size_t structuralHash(const Stmt &stmt) {
  StructuralHasher h;
  h.stmt(stmt);
  return h.value();
}

size_t structuralHash(const PrimFunc &func) {
  StructuralHasher h;
  h.func(func);
  return h.value();
}

std::optional<StructuralDifference> findStructuralDifference(const PrimFunc &a, const PrimFunc &b) {
  StructuralComparer comparer(/*mapFreeVars=*/true, /*explain=*/true);
  if (comparer.func(a, b)) return std::nullopt;
  StructuralDifference difference = comparer.where();
  if (difference.what.empty()) difference.what = "functions differ";
  return difference;
}

std::string firstStructuralDifference(const PrimFunc &a, const PrimFunc &b) {
  StructuralComparer comparer(/*mapFreeVars=*/true, /*explain=*/true);
  if (comparer.func(a, b)) return "";
  return comparer.difference().empty() ? "functions differ" : comparer.difference();
}

}  // namespace vtac::ir
