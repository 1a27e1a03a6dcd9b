#include "relax/FuseOps.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "relax/LegalizeOps.h"
#include "vtac/ir/Arith.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Relax.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Visitor.h"

namespace vtac::passes {

namespace relax = ir::relax;
using ir::BufferRef;
using ir::Expr;
using ir::Stmt;

namespace {

// ---- Op pattern (TVM's PatternKindAnalyzer) ------------------------------------------------

bool sameIndices(const std::vector<Expr> &a, const std::vector<Expr> &b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].get() != b[i].get()) return false;
  return true;
}

// The store's indices as variables; empty when one is not a variable.
std::unordered_set<const ir::Var *> storeVars(const ir::BufferStore &store) {
  std::unordered_set<const ir::Var *> vars;
  for (const Expr &index : store.indices) {
    const auto *var = index.as<ir::Var>();
    if (!var) return {};
    vars.insert(var);
  }
  return vars;
}

std::unordered_set<const ir::Var *> varsIn(const Expr &e) {
  std::unordered_set<const ir::Var *> vars;
  ir::preOrderVisit(e, [&](const ir::Node &node) {
    if (const auto *var = node.as<ir::Var>()) vars.insert(var);
  });
  return vars;
}

// A[i, j] = B[i] (or B[0, j] over a dimension of 1): the load's indices occur among the store's, in order.
bool isBroadcast(const ir::BufferStore &store, const ir::BufferLoad &load) {
  size_t j = 0;
  for (size_t i = 0; i < load.indices.size(); ++i) {
    if (ir::isConstInt(load.buffer->shape[i], 1) && ir::isConstInt(load.indices[i], 0)) continue;
    while (j < store.indices.size() && store.indices[j].get() != load.indices[i].get()) ++j;
    if (j == store.indices.size()) return false;
  }
  return true;
}

// A[i, j] = B[j, i], A[i] = B[i - 1]: the load's indices use only the store's index variables.
bool isInjective(const ir::BufferStore &store, const ir::BufferLoad &load) {
  std::unordered_set<const ir::Var *> vars = storeVars(store);
  if (vars.empty() && !store.indices.empty()) return false;
  for (const Expr &index : load.indices)
    for (const ir::Var *var : varsIn(index))
      if (!vars.count(var)) return false;
  return true;
}

// The load misses some of the store's index variables (it is reused across them, as a matmul's operands).
bool allowsReuse(const ir::BufferStore &store, const ir::BufferLoad &load) {
  std::unordered_set<const ir::Var *> vars = storeVars(store);
  for (const Expr &index : load.indices)
    for (const ir::Var *var : varsIn(index)) vars.erase(var);
  return !vars.empty();
}

Expr withoutCasts(Expr e) {
  while (const auto *cast = e.as<ir::Cast>()) e = cast->value;
  return e;
}

// C[i, j] = C[i, j] + A[i, k] * B[k, j], casts allowed around each part.
bool isMultiplyAdd(const ir::BufferStore &store) {
  const auto *add = withoutCasts(store.value).as<ir::BinaryExpr>();
  if (!add || add->kind() != ir::NodeKind::Add) return false;
  const auto *mul = withoutCasts(add->b).as<ir::BinaryExpr>();
  const auto *accumulated = withoutCasts(add->a).as<ir::BufferLoad>();
  if (!mul || mul->kind() != ir::NodeKind::Mul || !accumulated || accumulated->buffer != store.buffer ||
      !sameIndices(accumulated->indices, store.indices))
    return false;
  const auto *lhs = withoutCasts(mul->a).as<ir::BufferLoad>();
  const auto *rhs = withoutCasts(mul->b).as<ir::BufferLoad>();
  return lhs && rhs && allowsReuse(store, *lhs) && allowsReuse(store, *rhs);
}

// Every index that uses a reduction variable is that variable (a sum over rows; not a window).
bool isPureReduction(const std::unordered_set<const ir::Var *> &reduceVars, const ir::BufferLoad &load) {
  for (const Expr &index : load.indices)
    for (const ir::Var *var : varsIn(index))
      if (reduceVars.count(var) && index.get() != var) return false;
  return true;
}

// The blocks under the root block in order; false when it holds anything but serial loops,
// sequences and blocks.
bool collectBlocks(const Stmt &stmt, std::vector<const ir::Block *> &blocks) {
  if (const auto *sequence = stmt.as<ir::SeqStmt>()) {
    for (const Stmt &child : sequence->stmts)
      if (!collectBlocks(child, blocks)) return false;
    return true;
  }
  if (const auto *loop = stmt.as<ir::For>())
    return loop->forKind == ir::ForKind::Serial && collectBlocks(loop->body, blocks);
  if (const auto *realize = stmt.as<ir::BlockRealize>()) {
    blocks.push_back(realize->block.get());
    return true;
  }
  return false;
}

// The kind after `block`, given the kind of the blocks before it.
OpPattern blockPattern(const ir::Block &block, OpPattern kind, const std::unordered_set<const ir::Buffer *> &params,
                       const std::unordered_set<const ir::Buffer *> &inputs) {
  const auto *store = block.body.as<ir::BufferStore>();
  if (!store || !block.allocBuffers.empty() || !block.matchBuffers.empty() || inputs.count(store->buffer.get()))
    return OpPattern::Opaque;
  if (block.init) {
    const auto *init = block.init.as<ir::BufferStore>();
    if (!init || init->buffer != store->buffer) return OpPattern::Opaque;
  }
  for (const ir::BufferRegion &region : block.writes)
    if (region.buffer != store->buffer) return OpPattern::Opaque;
  std::vector<const ir::BufferLoad *> loads;
  ir::preOrderVisit(block.body, [&](const ir::Node &node) {
    if (const auto *load = node.as<ir::BufferLoad>()) loads.push_back(load);
  });

  OpPattern indexPattern = OpPattern::ElemWise;
  bool hasElemWise = false;
  for (const ir::BufferLoad *load : loads) {
    if (sameIndices(store->indices, load->indices)) {
      hasElemWise = true;
    } else if (isBroadcast(*store, *load)) {
      indexPattern = std::max(indexPattern, OpPattern::Broadcast);
    } else if (isInjective(*store, *load)) {
      indexPattern = std::max(indexPattern, OpPattern::Injective);
    } else {
      indexPattern = OpPattern::Opaque;
      break;
    }
  }
  // A[i, j] = B[i, j] + C[j] is elementwise in TVM's eyes.
  if (indexPattern == OpPattern::Broadcast && hasElemWise) indexPattern = OpPattern::ElemWise;
  if (indexPattern != OpPattern::Opaque) {
    bool writesParam = params.count(store->buffer.get());
    // TVM's rule for softmax: a reduction, then an output stage.
    if (writesParam && kind == OpPattern::CommReduce) return OpPattern::OutEWiseFusable;
    return std::max(kind, indexPattern);
  }

  std::unordered_set<const ir::Var *> reduceVars;
  for (const ir::IterVarRef &iv : block.iterVars)
    if (iv->iterType == ir::IterType::CommReduce) reduceVars.insert(iv->var.get());
  if (reduceVars.empty() || !block.init) return OpPattern::Opaque;
  if (isMultiplyAdd(*store)) return std::max(kind, OpPattern::OutEWiseFusable);
  for (const ir::BufferLoad *load : loads)
    if (!isPureReduction(reduceVars, *load)) return std::max(kind, OpPattern::OutEWiseFusable);
  return std::max(kind, OpPattern::CommReduce);
}

// The root block of a prim_func as legalize-ops and the parser build it, or null.
const ir::Block *rootBlock(const ir::PrimFunc &func) {
  const auto *realize = func.body.as<ir::BlockRealize>();
  if (!realize || realize->predicate || !realize->iterValues.empty()) return nullptr;
  const ir::Block &root = *realize->block;
  if (root.name != "root" || !root.iterVars.empty() || root.init || !root.matchBuffers.empty()) return nullptr;
  return &root;
}

// Whether the function only casts its one input to a wider type (astype int8 -> int32).
bool isWideningCast(const ir::PrimFunc &func) {
  std::vector<const ir::Block *> blocks;
  const ir::Block *root = rootBlock(func);
  if (!root || !collectBlocks(root->body, blocks) || blocks.size() != 1) return false;
  const auto *store = blocks[0]->body.as<ir::BufferStore>();
  const auto *cast = store ? store->value.as<ir::Cast>() : nullptr;
  const auto *load = cast ? cast->value.as<ir::BufferLoad>() : nullptr;
  return load && cast->dtype.bits() > load->dtype.bits();
}

}  // namespace

OpPattern primFuncPattern(const ir::PrimFunc &func) {
  if (func.params.empty()) return OpPattern::Opaque;
  std::unordered_set<const ir::Buffer *> params, inputs;
  for (size_t i = 0; i < func.params.size(); ++i) {
    BufferRef buffer = func.bufferOf(func.params[i]);
    if (!buffer) return OpPattern::Opaque;
    params.insert(buffer.get());
    if (i + 1 < func.params.size()) inputs.insert(buffer.get());
  }
  const ir::Block *root = rootBlock(func);
  std::vector<const ir::Block *> blocks;
  if (!root || !collectBlocks(root->body, blocks) || blocks.empty()) return OpPattern::Opaque;
  // A body that names a parameter's handle or data pointer (T.address_of, an access pointer)
  // depends on where the buffer lives: fusing could change that.
  std::unordered_set<const ir::Var *> handles;
  for (const auto &[param, buffer] : func.bufferMap) {
    handles.insert(param.get());
    handles.insert(buffer->data.get());
  }
  bool namesHandle = false;
  ir::preOrderVisit(root->body, [&](const ir::Node &node) {
    if (const auto *var = node.as<ir::Var>()) namesHandle |= handles.count(var) > 0;
  });
  if (namesHandle) return OpPattern::Opaque;
  OpPattern kind = OpPattern::ElemWise;
  for (const ir::Block *block : blocks) kind = blockPattern(*block, kind, params, inputs);
  return kind;
}

namespace {

// ---- Grouping (TVM's FuseOps, simplified: see the header) ---------------------------------

// Who uses each variable: the bindings (an if or a local function counts as its binding), null
// for a returned value.
using Users = std::unordered_map<const relax::Var *, std::vector<const relax::Binding *>>;

void collectUses(const std::vector<relax::BindingBlock> &blocks, const relax::Binding *outer, Users &users);

void collectArgUses(const relax::Arg &arg, const relax::Binding *user, Users &users) {
  relax::forEachVarRead(arg, [&](const relax::VarPtr &var) { users[var.get()].push_back(user); });
}

void collectBindingUses(const relax::Binding &binding, const relax::Binding *user, Users &users) {
  if (binding.call) {
    for (const relax::Arg &arg : binding.call->args) collectArgUses(arg, user, users);
    if (binding.call->calleeVar) users[binding.call->calleeVar.get()].push_back(user);
  }
  collectArgUses(binding.alias, user, users);
  if (binding.tuple)
    for (const relax::Arg &arg : *binding.tuple) collectArgUses(arg, user, users);
  if (binding.ifElse) {
    collectArgUses(binding.ifElse->condition, user, users);
    for (const relax::IfBranch *branch : {&binding.ifElse->thenBranch, &binding.ifElse->elseBranch}) {
      collectUses(branch->blocks, user, users);
      collectArgUses(branch->result, user, users);
    }
  }
  if (const ir::RelaxFunction *local = ir::asRelaxFunction(binding.function)) {
    collectUses(local->blocks, user, users);
    for (const relax::Arg &result : local->results) collectArgUses(result, user, users);
  }
}

void collectUses(const std::vector<relax::BindingBlock> &blocks, const relax::Binding *outer, Users &users) {
  for (const relax::BindingBlock &block : blocks)
    for (const relax::Binding &binding : block.bindings) collectBindingUses(binding, outer ? outer : &binding, users);
}

bool staticShape(const std::vector<Expr> &shape) {
  return std::all_of(shape.begin(), shape.end(), [](const Expr &dim) { return dim.as<ir::IntImm>() != nullptr; });
}

// Whether the Relax value `sinfo` fits the callee's buffer exactly: same element type, the same
// constant shape. A plain buffer: no strides, offset, separators, broadcasting or non-global scope.
bool fitsBuffer(const relax::TensorStructInfo &sinfo, const ir::Buffer &buffer) {
  if (!sinfo.shape || sinfo.dtype != buffer.dtype || sinfo.shape->size() != buffer.shape.size() ||
      !staticShape(buffer.shape) || !buffer.strides.empty() || buffer.elemOffset || !buffer.axisSeparators.empty() ||
      buffer.autoBroadcast || buffer.scope() != "global")
    return false;
  for (size_t i = 0; i < buffer.shape.size(); ++i) {
    const auto *dim = (*sinfo.shape)[i].as<ir::IntImm>();
    if (!dim || dim->value != buffer.shape[i].as<ir::IntImm>()->value) return false;
  }
  return true;
}

// The callee when the binding is an R.call_tir fuse-ops may fuse: tensor arguments (variables
// or constants), no tir_vars, and one result (a call of several outputs, R.split's, is left alone) of
// constant shapes matching the callee's buffers, a callee of pattern other than Opaque.
const ir::PrimFunc *fusibleCallee(const ir::IRModule &module, const relax::Binding &binding) {
  if (!binding.call || binding.call->kind != relax::CallKind::CallTIR || !binding.call->tupleOutSinfo.empty() ||
      !binding.call->tirVars.isNone())
    return nullptr;
  const relax::Call &call = *binding.call;
  ir::FunctionRef function = module.lookup(call.callee);
  const auto *callee = function ? function->as<ir::PrimFunc>() : nullptr;
  if (!callee || callee->params.size() != call.args.size() + 1 || primFuncPattern(*callee) == OpPattern::Opaque)
    return nullptr;
  for (size_t i = 0; i < call.args.size(); ++i) {
    const relax::Arg &arg = call.args[i];
    if (!arg.var && !arg.constant) return nullptr;
    relax::StructInfo sinfo = arg.sinfo();
    if (!sinfo.isTensor() || !fitsBuffer(sinfo.tensor, *callee->bufferOf(callee->params[i]))) return nullptr;
  }
  if (!fitsBuffer(call.outSinfo, *callee->bufferOf(callee->params.back()))) return nullptr;
  return callee;
}

// The groups of one dataflow block: indices of bindings, each group in binding order.
class Grouping {
public:
  Grouping(const ir::IRModule &module, const relax::BindingBlock &block, const Users &users) {
    size_t count = block.bindings.size();
    callees_.assign(count, nullptr);
    patterns_.assign(count, OpPattern::Opaque);
    consumer_.assign(count, -1);
    groupOf_.resize(count);
    members_.resize(count);
    std::unordered_map<const relax::Binding *, size_t> indexOf;
    for (size_t i = 0; i < count; ++i) {
      indexOf[&block.bindings[i]] = i;
      groupOf_[i] = i;
      members_[i] = {i};
      if ((callees_[i] = fusibleCallee(module, block.bindings[i]))) patterns_[i] = primFuncPattern(*callees_[i]);
    }
    for (size_t i = 0; i < count; ++i) {
      const relax::Var &var = *block.bindings[i].var;
      auto used = users.find(&var);
      if (!callees_[i] || !var.dataflow || used == users.end()) continue;
      const std::vector<const relax::Binding *> &uses = used->second;
      bool oneUser = std::all_of(uses.begin(), uses.end(), [&](const relax::Binding *user) { return user == uses[0]; });
      auto consumer = indexOf.find(uses[0]);
      if (oneUser && consumer != indexOf.end() && callees_[consumer->second]) consumer_[i] = int(consumer->second);
    }
    // Phase 0: a reduction that can take elementwise consumers grows its chain, up to a cast that
    // widens (left to the consumer's side: the groups then pass the narrower tensor).
    for (size_t i = 0; i < count; ++i) {
      if (consumer_[i] < 0) continue;
      size_t c = size_t(consumer_[i]);
      if (holds(groupOf_[i], OpPattern::OutEWiseFusable) && patterns_[c] <= OpPattern::Broadcast &&
          members_[groupOf_[c]].size() == 1 && !isWideningCast(*callees_[c]))
        merge(groupOf_[i], groupOf_[c]);
    }
    // Phase 1: a producer joins its consumer's group by its group's pattern, as TVM's edges go:
    // an elementwise group when the consumer is injective or a CommReduce (the consumer's group
    // may hold a convolution), but a convolution's chain only into an elementwise consumer (TVM's
    // kOutEWiseFusable path); an injective one when the consumer's whole group is injective.
    for (size_t i = 0; i < count; ++i) {
      if (consumer_[i] < 0 || groupOf_[i] == groupOf_[size_t(consumer_[i])]) continue;
      size_t c = size_t(consumer_[i]);
      OpPattern producer = maxPattern(groupOf_[i]);
      bool joins = producer <= OpPattern::Broadcast
                       ? patterns_[c] <= OpPattern::Injective || patterns_[c] == OpPattern::CommReduce
                   : producer == OpPattern::OutEWiseFusable ? patterns_[c] <= OpPattern::Broadcast && !isWideningCast(*callees_[c])
                                                             : producer == OpPattern::Injective &&
                                                                   maxPattern(groupOf_[c]) <= OpPattern::Injective;
      if (joins && reductions(groupOf_[i]) + reductions(groupOf_[c]) <= 1) merge(groupOf_[i], groupOf_[c]);
    }
  }

  // The groups of more than one binding.
  std::vector<std::vector<size_t>> fusedGroups() const {
    std::vector<std::vector<size_t>> groups;
    for (size_t g = 0; g < members_.size(); ++g)
      if (members_[g].size() > 1) groups.push_back(members_[g]);
    return groups;
  }
  const ir::PrimFunc *callee(size_t index) const { return callees_[index]; }

private:
  bool holds(size_t group, OpPattern pattern) const {
    const std::vector<size_t> &members = members_[group];
    return std::any_of(members.begin(), members.end(), [&](size_t m) { return patterns_[m] == pattern; });
  }
  size_t reductions(size_t group) const {
    return size_t(std::count_if(members_[group].begin(), members_[group].end(), [&](size_t m) {
      return patterns_[m] == OpPattern::CommReduce || patterns_[m] == OpPattern::OutEWiseFusable;
    }));
  }
  OpPattern maxPattern(size_t group) const {
    OpPattern kind = OpPattern::ElemWise;
    for (size_t m : members_[group]) kind = std::max(kind, patterns_[m]);
    return kind;
  }
  // Moves the members of `from` into `into` (the consumer's group, whose last binding stays last).
  void merge(size_t from, size_t into) {
    for (size_t m : members_[from]) groupOf_[m] = into;
    members_[into].insert(members_[into].end(), members_[from].begin(), members_[from].end());
    std::sort(members_[into].begin(), members_[into].end());
    members_[from].clear();
  }

  std::vector<const ir::PrimFunc *> callees_;
  std::vector<OpPattern> patterns_;
  std::vector<int> consumer_;  // the binding that alone uses the value, or -1
  std::vector<size_t> groupOf_;
  std::vector<std::vector<size_t>> members_;  // by group id (the id of one of its bindings)
};

// ---- FuseTIR --------------------------------------------------------------------------------

// TVM's BlockNameDeduplicator (db6d2059): the first "T_add" keeps its name, the next ones are
// "T_add_1", "T_add_2".
class BlockNames {
public:
  std::string unique(const std::string &name) {
    std::string candidate = name;
    auto it = count_.find(name);
    while (count_.count(candidate)) candidate = name + "_" + std::to_string(++it->second);
    count_[candidate] = 0;
    return candidate;
  }

private:
  std::unordered_map<std::string, int> count_;
};

// A callee's root body inside the fused function: its buffers replaced by the fused function's,
// fresh loop and block variables (TVM's RenewDefs: a callee used twice defines no variable
// twice), block names made unique.
class CalleeBodyCopier : public ir::StmtExprMutator {
public:
  CalleeBodyCopier(const std::unordered_map<const ir::Buffer *, BufferRef> &buffers, BlockNames &blockNames)
      : buffers_(buffers), blockNames_(blockNames) {}

  Expr visitVar(const ir::Var &op) override {
    auto it = vars_.find(&op);
    return it == vars_.end() ? Expr(&op) : it->second;
  }
  Expr visitBufferLoad(const ir::BufferLoad &op) override {
    Expr visited = StmtExprMutator::visitBufferLoad(op);
    const auto *load = visited.as<ir::BufferLoad>();
    return ir::make<ir::BufferLoad>(replaced(load->buffer), load->indices, load->loc());
  }
  Stmt visitBufferStore(const ir::BufferStore &op) override {
    Stmt visited = StmtExprMutator::visitBufferStore(op);
    auto *copy = ir::copyNode(*visited.as<ir::BufferStore>());
    copy->buffer = replaced(copy->buffer);
    return Stmt(copy);
  }
  Stmt visitFor(const ir::For &op) override {
    ir::VarRef fresh = renew(op.loopVar);
    auto *copy = ir::copyNode(*StmtExprMutator::visitFor(op).as<ir::For>());
    copy->loopVar = fresh;
    return Stmt(copy);
  }
  Stmt visitBlock(const ir::Block &op) override {
    std::vector<ir::VarRef> fresh;
    for (const ir::IterVarRef &iv : op.iterVars) fresh.push_back(renew(iv->var));
    auto *copy = ir::copyNode(*StmtExprMutator::visitBlock(op).as<ir::Block>());
    for (size_t i = 0; i < fresh.size(); ++i) {
      auto *iv = ir::copyNode(*copy->iterVars[i]);
      iv->var = fresh[i];
      copy->iterVars[i] = ir::IterVarRef(iv);
    }
    copy->reads = replacedRegions(copy->reads);
    copy->writes = replacedRegions(copy->writes);
    copy->name = blockNames_.unique(copy->name);
    return Stmt(copy);
  }

private:
  ir::VarRef renew(const ir::VarRef &var) {
    ir::VarRef fresh(ir::copyNode(*var));
    vars_[var.get()] = fresh;
    return fresh;
  }
  // The regions over the fused function's buffers; a region equal to an earlier one (two
  // arguments that are one input) is dropped. (TVM keeps only the first region of each buffer,
  // which understates what a block reads when the regions differ; vtac keeps both.)
  std::vector<ir::BufferRegion> replacedRegions(const std::vector<ir::BufferRegion> &regions) const {
    std::vector<ir::BufferRegion> result;
    for (ir::BufferRegion region : regions) {
      region.buffer = replaced(region.buffer);
      bool seen = std::any_of(result.begin(), result.end(), [&](const ir::BufferRegion &earlier) {
        return earlier.buffer == region.buffer && sameRegion(earlier.region, region.region);
      });
      if (!seen) result.push_back(std::move(region));
    }
    return result;
  }
  static bool sameRegion(const std::vector<ir::Range> &a, const std::vector<ir::Range> &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!ir::structuralEqual(a[i].min, b[i].min) || !ir::structuralEqual(a[i].extent, b[i].extent)) return false;
    return true;
  }
  BufferRef replaced(const BufferRef &buffer) const {
    auto it = buffers_.find(buffer.get());
    return it == buffers_.end() ? buffer : it->second;
  }

  const std::unordered_map<const ir::Buffer *, BufferRef> &buffers_;
  BlockNames &blockNames_;
  std::unordered_map<const ir::Var *, Expr> vars_;
};

struct FusedCall {
  ir::PrimFuncRef func;
  std::string nameHint;
  std::vector<relax::Arg> args;
};

// One prim_func computing the group's bindings (TVM's FusedTIRConstructor).
class FusedFunctionBuilder {
public:
  FusedCall build(const std::vector<const relax::Binding *> &bindings,
                  const std::vector<const ir::PrimFunc *> &callees) {
    std::string name = "fused";
    for (size_t m = 0; m < bindings.size(); ++m) {
      const relax::Call &call = *bindings[m]->call;
      const ir::PrimFunc &callee = *callees[m];
      std::unordered_map<const ir::Buffer *, BufferRef> buffers;
      for (size_t i = 0; i < call.args.size(); ++i) {
        BufferRef param = callee.bufferOf(callee.params[i]);
        buffers[param.get()] = argumentBuffer(call.args[i], *param);
      }
      const ir::Block &root = *callee.body.as<ir::BlockRealize>()->block;
      // The callee's own intermediates (pad_temp) keep their names, made unique only if taken, and
      // get a data variable of their own (a callee fused twice allocates twice).
      for (const BufferRef &alloc : root.allocBuffers) {
        auto *fresh = ir::copyNode(*alloc);
        fresh->name = uniqueName(alloc->name, false);
        fresh->data = ir::VarRef(ir::copyNode(*alloc->data));
        buffers[alloc.get()] = BufferRef(fresh);
        allocs_.push_back(BufferRef(fresh));
      }
      const ir::Buffer &output = *callee.bufferOf(callee.params.back());
      BufferRef result = ir::makeBuffer(uniqueName(output.name + "_intermediate", true), output.dtype, output.shape);
      buffers[&output] = result;
      allocs_.push_back(result);
      intermediates_[bindings[m]->var.get()] = result;
      bodies_.push_back(CalleeBodyCopier(buffers, blockNames_).visitStmt(root.body));
      name += "_" + call.callee;
    }
    BufferRef output = allocs_.back();
    allocs_.pop_back();
    params_.push_back(output);

    auto root = ir::make<ir::Block>("root", std::vector<ir::IterVarRef>{}, std::vector<ir::BufferRegion>{},
                                    std::vector<ir::BufferRegion>{}, ir::seq(bodies_), nullptr, allocs_);
    std::vector<ir::VarRef> params;
    std::vector<std::pair<ir::VarRef, BufferRef>> bufferMap;
    for (const BufferRef &buffer : params_) {
      ir::VarRef handle = ir::make<ir::Var>(buffer->name, ir::DataType::handle());
      params.push_back(handle);
      bufferMap.emplace_back(handle, buffer);
    }
    ir::AttrMap attrs;
    attrs.set("tir.noalias", true);
    Stmt body = ir::make<ir::BlockRealize>(std::vector<Expr>{}, nullptr, root);
    auto *func = new ir::PrimFunc(params, bufferMap, body, attrs);
    func->isPrivate = true;
    return FusedCall{ir::PrimFuncRef(func), name, args_};
  }

private:
  // The fused function's buffer for an argument: an earlier member's intermediate, or the
  // parameter of an external input (one per variable or constant, in order of first use). A
  // buffer keeps the shape its callee declares (equal to the Relax value's): TVM's FuseTIR gives
  // the Relax shape (int64 sizes), which in a prim_func of int32 loops mixes index types that
  // tensorize's offset checks cannot see through.
  BufferRef argumentBuffer(const relax::Arg &arg, const ir::Buffer &calleeBuffer) {
    if (arg.var) {
      auto intermediate = intermediates_.find(arg.var.get());
      if (intermediate != intermediates_.end()) return intermediate->second;
    }
    const void *key = arg.var ? static_cast<const void *>(arg.var.get()) : arg.constant.get();
    auto known = inputs_.find(key);
    if (known != inputs_.end()) return known->second;
    std::string name = arg.var ? arg.var->name : "param_" + std::to_string(constants_++);
    BufferRef buffer = ir::makeBuffer(uniqueName(name, false), calleeBuffer.dtype, calleeBuffer.shape);
    inputs_[key] = buffer;
    params_.push_back(buffer);
    args_.push_back(arg);
    return buffer;
  }
  // TVM appends "_1" to an intermediate's name while it is taken (and again: "_1_2"); other
  // names get "_1", "_2", ... so that no two buffers print alike.
  std::string uniqueName(const std::string &base, bool cumulative) {
    std::string name = base;
    for (unsigned suffix = 1; names_.count(name); ++suffix)
      name = (cumulative ? name : base) + "_" + std::to_string(suffix);
    names_.insert(name);
    return name;
  }

  std::unordered_map<const relax::Var *, BufferRef> intermediates_;
  std::unordered_map<const void *, BufferRef> inputs_;
  std::vector<BufferRef> params_, allocs_;
  std::vector<relax::Arg> args_;
  std::vector<Stmt> bodies_;
  std::set<std::string> names_;
  BlockNames blockNames_;
  unsigned constants_ = 0;
};

// The prim_funcs any Relax function of the module calls by name.
std::set<std::string> calledFunctions(const ir::IRModule &module) {
  std::set<std::string> called;
  for (const ir::IRModule::Entry &entry : module.functions())
    if (const ir::RelaxFunction *func = ir::asRelaxFunction(entry.function))
      relax::forEachBinding(func->blocks, [&](const relax::Binding &binding) {
        if (binding.call) called.insert(binding.call->callee);
      });
  return called;
}

}  // namespace

llvm::Error fuseOps(ir::IRModule &module, PassContext &) {
  std::set<std::string> fusedCallees;
  std::vector<ir::IRModule::Entry> entries = module.functions();
  for (const ir::IRModule::Entry &entry : entries) {
    const ir::RelaxFunction *func = ir::asRelaxFunction(entry.function);
    if (!func) continue;
    Users users;
    collectUses(func->blocks, nullptr, users);
    for (const relax::Arg &result : func->results) collectArgUses(result, nullptr, users);

    std::vector<relax::BindingBlock> blocks = func->blocks;
    bool changed = false;
    for (relax::BindingBlock &block : blocks) {
      if (!block.dataflow) continue;
      // Indices refer to the function's own block (the users map points into it).
      const relax::BindingBlock &original = func->blocks[size_t(&block - blocks.data())];
      Grouping grouping(module, original, users);
      std::vector<bool> removed(block.bindings.size(), false);
      for (const std::vector<size_t> &group : grouping.fusedGroups()) {
        std::vector<const relax::Binding *> bindings;
        std::vector<const ir::PrimFunc *> callees;
        for (size_t index : group) {
          bindings.push_back(&original.bindings[index]);
          callees.push_back(grouping.callee(index));
          fusedCallees.insert(original.bindings[index].call->callee);
          removed[index] = true;
        }
        FusedCall fused = FusedFunctionBuilder().build(bindings, callees);
        relax::Binding &last = block.bindings[group.back()];
        relax::Call call;
        call.kind = relax::CallKind::CallTIR;
        call.callee = addPrimFunc(module, fused.func, fused.nameHint);
        call.calleeLoc = last.call->calleeLoc;
        call.args = std::move(fused.args);
        call.outSinfo = last.call->outSinfo;
        last.call = std::move(call);
        removed[group.back()] = false;
        changed = true;
      }
      std::vector<relax::Binding> kept;
      for (size_t i = 0; i < block.bindings.size(); ++i)
        if (!removed[i]) kept.push_back(std::move(block.bindings[i]));
      block.bindings = std::move(kept);
    }
    if (!changed) continue;
    auto *copy = ir::copyNode(*func);
    copy->blocks = std::move(blocks);
    module.add(entry.name->name, ir::FunctionRef(copy));
  }
  if (fusedCallees.empty()) return llvm::Error::success();

  // TVM drops the functions fusion left uncalled; a public one may be an entry and stays.
  std::set<std::string> called = calledFunctions(module);
  ir::IRModule pruned;
  pruned.loc = module.loc;
  pruned.attrs = module.attrs;
  pruned.vdevices = module.vdevices;
  for (const ir::IRModule::Entry &entry : module.functions()) {
    const auto *prim = entry.function->as<ir::PrimFunc>();
    if (prim && prim->isPrivate && fusedCallees.count(entry.name->name) && !called.count(entry.name->name)) continue;
    pruned.add(entry.name->name, entry.function);
  }
  module = std::move(pruned);
  return llvm::Error::success();
}

}  // namespace vtac::passes
