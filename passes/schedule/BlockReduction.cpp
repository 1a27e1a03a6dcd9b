// A reduction block's reduction (BlockReduction.h): the structure of T.init and the body, then
// a match of the stored values against TVM's registered reducers.
#include "BlockReduction.h"

#include "BlockAnalysis.h"
#include "BlockTree.h"

#include <map>

#include "vtac/ir/Arith.h"
#include "vtac/ir/ExtremeValue.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

using Values = std::vector<Expr>;

Expr intOrFloat(int64_t value, DataType dtype) {
  return dtype.isFloat() ? floatImm(double(value), dtype) : intImm(value, dtype);
}

// One of TVM's reducers: how it combines lhs values x with rhs values y, and its identities.
struct ReducerPattern {
  size_t values;
  bool commutative;  // each value's combination is symmetric in its x and y
  Values (*combine)(const Values &x, const Values &y);
  Values (*identities)(const std::vector<DataType> &dtypes);
};

Expr select(Expr condition, Expr a, Expr b) { return make<Select>(std::move(condition), std::move(a), std::move(b)); }

// The (index, value) reducers: the pair whose value wins `wins` (>= keeps the lhs on ties); with
// `strict`, TVM's topi spelling, a strict comparison and on ties the smaller index.
template <NodeKind wins, bool strict>
Values argReduce(const Values &x, const Values &y) {
  Expr valueWins = makeBinary(wins, x[1], y[1]);
  Expr indexCondition =
      strict ? makeBinary(NodeKind::Or, valueWins,
                      makeBinary(NodeKind::And, makeBinary(NodeKind::EQ, x[1], y[1]), makeBinary(NodeKind::LT, x[0], y[0])))
             : valueWins;
  return {select(indexCondition, x[0], y[0]), select(valueWins, x[1], y[1])};
}
template <bool largestValueFirst>
Values argIdentities(const std::vector<DataType> &dtypes) {
  return {intImm(-1, dtypes[0]), extremeValue(dtypes[1], !largestValueFirst)};
}

// TVM's ReducerRegistry, in its order.
const std::vector<ReducerPattern> &reducerPatterns() {
  static const std::vector<ReducerPattern> patterns{
      {1, true, [](const Values &x, const Values &y) { return Values{makeBinary(NodeKind::Add, x[0], y[0])}; },
       [](const std::vector<DataType> &d) { return Values{intOrFloat(0, d[0])}; }},
      {1, true, [](const Values &x, const Values &y) { return Values{makeBinary(NodeKind::Mul, x[0], y[0])}; },
       [](const std::vector<DataType> &d) { return Values{intOrFloat(1, d[0])}; }},
      {1, true, [](const Values &x, const Values &y) { return Values{makeBinary(NodeKind::Min, x[0], y[0])}; },
       [](const std::vector<DataType> &d) { return Values{extremeValue(d[0], true)}; }},
      {1, true, [](const Values &x, const Values &y) { return Values{makeBinary(NodeKind::Max, x[0], y[0])}; },
       [](const std::vector<DataType> &d) { return Values{extremeValue(d[0], false)}; }},
      {2, true,
       [](const Values &x, const Values &y) {
         return Values{makeBinary(NodeKind::Add, x[0], y[0]), makeBinary(NodeKind::Add, x[1], y[1])};
       },
       [](const std::vector<DataType> &d) { return Values{intOrFloat(0, d[0]), intOrFloat(0, d[1])}; }},
      {2, false, argReduce<NodeKind::GE, false>, argIdentities<true>},
      {2, false, argReduce<NodeKind::GT, true>, argIdentities<true>},
      {2, false, argReduce<NodeKind::LE, false>, argIdentities<false>},
      {2, false, argReduce<NodeKind::LT, true>, argIdentities<false>},
  };
  return patterns;
}

// Matches `e` against `pattern`, whose free variables are holes that bind to subexpressions
// (consistently: a hole seen twice binds to equal expressions). Patterns are built of binary
// operators, selects and holes only.
bool matchPattern(const Expr &pattern, const Expr &e, std::map<const Var *, Expr> &bound) {
  if (const auto *hole = pattern.as<Var>()) {
    auto [it, fresh] = bound.emplace(hole, e);
    return fresh || structuralEqual(it->second, e);
  }
  if (pattern->kind() != e->kind()) return false;
  if (const auto *binaryPattern = pattern.as<BinaryExpr>()) {
    const auto &target = *e.as<BinaryExpr>();
    return matchPattern(binaryPattern->a, target.a, bound) && matchPattern(binaryPattern->b, target.b, bound);
  }
  const auto &selectPattern = *pattern.as<Select>();
  const auto &target = *e.as<Select>();
  return matchPattern(selectPattern.condition, target.condition, bound) &&
         matchPattern(selectPattern.trueValue, target.trueValue, bound) &&
         matchPattern(selectPattern.falseValue, target.falseValue, bound);
}

std::string listed(const Values &values) {
  std::string text;
  for (const Expr &value : values) text += (text.empty() ? "" : ", ") + printExpr(value);
  return values.size() == 1 ? text : "(" + text + ")";
}

}  // namespace

llvm::Expected<BlockReduction> matchBlockReduction(const Block &block, SourceLoc at, const std::string &what) {
  auto fail = [&](const std::string &why) { return diagnosticError(at, what + why); };
  std::vector<const BufferStore *> inits;
  for (const Stmt &stmt : statementsOf(block.init)) {
    const auto *store = stmt.as<BufferStore>();
    if (!store) return fail("its T.init must hold buffer stores only");
    for (const BufferStore *other : inits)
      if (other->buffer == store->buffer) return fail("its T.init writes '" + store->buffer->name + "' twice");
    inits.push_back(store);
  }
  const size_t n = inits.size();

  // The body: a store, or n lets and then n stores of the let variables.
  std::vector<const LetStmt *> lets;
  Stmt stores = block.body;
  while (const auto *let = stores.as<LetStmt>()) {
    lets.push_back(let);
    stores = let->body;
  }
  if (lets.size() != n && !(lets.empty() && n == 1))
    return fail("its body binds " + std::to_string(lets.size()) + " value(s) with lets before its stores, but its T.init writes " +
                std::to_string(n) + " buffer(s)");
  // Each value is combined on its own: one that reads an earlier let would leave that variable
  // unbound in the blocks rfactor builds (TVM takes the let values as they stand).
  for (size_t i = 0; i < lets.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (usesVar(lets[i]->value, lets[j]->var.get()))
        return fail("the value of its let '" + lets[i]->var->name + "' uses the let variable '" + lets[j]->var->name +
                    "' bound before it");
  std::vector<Stmt> storeStmts = statementsOf(stores);
  for (const Stmt &stmt : storeStmts)
    if (!stmt->isa<BufferStore>()) return fail("its body must end in buffer stores only (after its lets)");
  if (storeStmts.size() != n)
    return fail("its body stores " + std::to_string(storeStmts.size()) + " value(s), but its T.init writes " +
                std::to_string(n) + " buffer(s)");
  BlockReduction result;
  result.updates.resize(n);
  Values combined(n);
  for (const Stmt &stmt : storeStmts) {
    const auto *store = stmt.as<BufferStore>();
    size_t i = 0;
    if (!lets.empty()) {
      while (i < n && store->value.get() != lets[i]->var.get()) ++i;
      if (i == n)
        return fail("its store to '" + store->buffer->name + "' stores " + printExpr(store->value) +
                    ", not one of the variables its lets bind");
      if (result.updates[i]) return fail("it stores the let variable '" + lets[i]->var->name + "' twice");
    }
    for (const BufferStore *other : result.updates)
      if (other && other->buffer == store->buffer) return fail("its body writes '" + store->buffer->name + "' twice");
    result.updates[i] = store;
    combined[i] = lets.empty() ? store->value : lets[i]->value;
  }

  // One shape, one element, the same buffers in T.init and the body.
  const BufferStore &first = *result.updates[0];
  for (const BufferStore *update : result.updates)
    if (!sameExprs(update->buffer->shape, first.buffer->shape))
      return fail("the buffers it reduces into, '" + first.buffer->name + "' and '" + update->buffer->name +
                  "', have different shapes");
  std::vector<const BufferStore *> allStores = result.updates;
  allStores.insert(allStores.end(), inits.begin(), inits.end());
  auto differentElements = [&](const BufferStore &store) {
    return fail(n == 1 ? "T.init and the update write different elements"
                       : "it writes '" + store.buffer->name + "' at other indices than '" + first.buffer->name + "'");
  };
  for (const BufferStore *store : allStores)
    if (!sameExprs(store->indices, first.indices)) return differentElements(*store);
  Values initValues(n);
  for (const BufferStore *init : inits) {
    auto update = std::find_if(result.updates.begin(), result.updates.end(),
                               [&](const BufferStore *u) { return u->buffer == init->buffer; });
    if (update == result.updates.end())
      return n == 1 ? differentElements(*init)
                    : fail("its T.init writes '" + init->buffer->name + "', which its body does not reduce into");
    initValues[update - result.updates.begin()] = simplify(init->value);
  }

  // The reducer: the first of TVM's whose combination of the written elements (lhs, on either
  // side for a commutative one) with some rhs gives the stored values.
  Values written;
  std::vector<DataType> dtypes;
  for (const BufferStore *update : result.updates) {
    written.push_back(bufferLoad(update->buffer, update->indices));
    dtypes.push_back(update->value->dtype);
  }
  std::optional<Values> wrongIdentities;
  for (const ReducerPattern &pattern : reducerPatterns()) {
    if (pattern.values != n) continue;
    std::vector<VarRef> x, y;
    for (size_t i = 0; i < n; ++i) {
      x.push_back(makeVar("x" + std::to_string(i), dtypes[i]));
      y.push_back(makeVar("y" + std::to_string(i), dtypes[i]));
    }
    Values results = pattern.combine(Values(x.begin(), x.end()), Values(y.begin(), y.end()));
    std::map<const Var *, Expr> bound;
    bool matched = true;
    for (size_t i = 0; i < n && matched; ++i) matched = matchPattern(results[i], combined[i], bound);
    if (!matched) continue;
    Values lhs, rhs;
    for (size_t i = 0; i < n; ++i) {
      lhs.push_back(bound.at(x[i].get()));
      rhs.push_back(bound.at(y[i].get()));
    }
    if (pattern.commutative)
      for (size_t i = 0; i < n; ++i)
        if (!structuralEqual(lhs[i], written[i]) && structuralEqual(rhs[i], written[i])) std::swap(lhs[i], rhs[i]);
    if (!sameExprs(lhs, written)) continue;
    Values identities = pattern.identities(dtypes);
    if (!sameExprs(identities, initValues)) {
      wrongIdentities = identities;
      continue;
    }
    result.reducer = make<CommReducer>(x, y, results, identities);
    result.lhs = lhs;
    result.rhs = rhs;
    return result;
  }
  if (wrongIdentities)
    return fail("the T.init value" + std::string(n == 1 ? " " : "s ") + listed(initValues) +
                (n == 1 ? " is not the identity " : " are not the identities ") + listed(*wrongIdentities) +
                " of its reduction");
  return fail(n == 1 ? "the update " + listed(combined) + " is not a commutative reduction (+, *, min, max) of the written element"
                     : "the updates " + listed(combined) +
                           " are not one of TVM's reductions of two values (a sum, argmax or argmin) of the written elements");
}

Stmt storesOf(const std::vector<BufferRef> &buffers, const std::vector<Expr> &indices, const std::vector<Expr> &values) {
  std::vector<Stmt> stores;
  for (size_t i = 0; i < buffers.size(); ++i) stores.push_back(make<BufferStore>(buffers[i], values[i], indices));
  return seq(std::move(stores));
}

Stmt combinedStores(const CommReducer &reducer, const std::vector<BufferRef> &buffers, const std::vector<Expr> &indices,
                    const std::vector<Expr> &lhs, const std::vector<Expr> &rhs) {
  VarMap arguments;
  for (size_t i = 0; i < buffers.size(); ++i) {
    arguments[reducer.lhs[i].get()] = lhs[i];
    arguments[reducer.rhs[i].get()] = rhs[i];
  }
  Values values;
  for (const Expr &result : reducer.result) values.push_back(substitute(result, arguments));
  if (values.size() == 1) return make<BufferStore>(buffers[0], values[0], indices);
  Values letVars;
  for (size_t i = 0; i < buffers.size(); ++i) letVars.push_back(makeVar("v_" + buffers[i]->name, values[i]->dtype));
  Stmt body = storesOf(buffers, indices, letVars);
  for (size_t i = buffers.size(); i-- > 0;) body = make<LetStmt>(cast<Var>(letVars[i]), values[i], body);
  return body;
}

}  // namespace vtac::passes::schedule
