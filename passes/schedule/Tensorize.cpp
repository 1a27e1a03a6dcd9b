// tensorize(block_or_loop, tensor_intrin, preserve_unit_iters=True): a loop is blockized first;
// the body of the (outer) block must then match the description of the registered intrinsic:
// the same loop extents, the same block iterators (an iterator of extent 1 may be absent on
// either side: blockize drops unit inner iterators, TVM issue #16566), the same statements and
// operators, and each buffer access at the same index relative to the block's region of that
// buffer (the description's relative to its root block's region). The body is replaced by the
// implementation's, whose buffers become match_buffers of the block's regions (fresh stride and
// elem_offset variables per site; `access_ptr`s take the elem_offset). Each region's element
// offset must be provably a multiple of the implementation buffer's offset_factor. The inserted
// statements are located at the tensorize step, each with a note at its line in the
// implementation, so a later pass's diagnostic names the step that put the code there. The
// implementation root block's annotations are added to the block's.
#include "BufferUtils.h"

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Printer.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Substitute.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// Moves every statement and call of an intrinsic's implementation (what passes report errors
// at) to the tensorize step's location, as
// an expansion of its own location (see ir::expansionLoc): one registry entry per distinct
// implementation location.
class LocateAtStep : public StmtExprMutator {
public:
  LocateAtStep(SourceLoc step, std::string note) : step_(step), note_(std::move(note)) {}

  Stmt visitStmt(const Stmt &stmt) override {
    Stmt visited = StmtExprMutator::visitStmt(stmt);
    if (!visited->loc().isKnown()) return visited;
    return withLoc(visited, expansion(visited->loc()));
  }

  Expr visitCall(const Call &op) override {
    Expr visited = StmtExprMutator::visitCall(op);
    if (!visited->loc().isKnown()) return visited;
    Call *copy = copyNode(*visited.as<Call>());
    copy->setLoc(expansion(visited->loc()));
    return Expr(copy);
  }

private:
  SourceLoc expansion(const SourceLoc &origin) {
    auto key = std::make_tuple(origin.file, origin.line, origin.column);
    auto it = expansions_.find(key);
    if (it == expansions_.end()) it = expansions_.emplace(key, expansionLoc(step_, origin, note_)).first;
    return it->second;
  }

  SourceLoc step_;
  std::string note_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, SourceLoc> expansions_;
};

// Region mins of a block's accessed buffers (writes first, as a buffer may be both).
std::map<const Buffer *, std::vector<Expr>> regionMins(const Block &block) {
  std::map<const Buffer *, std::vector<Expr>> mins;
  for (const auto *regions : {&block.writes, &block.reads})
    for (const BufferRegion &region : *regions) {
      std::vector<Expr> &dims = mins[region.buffer.get()];
      if (!dims.empty()) continue;
      for (const Range &range : region.region) dims.push_back(range.min);
    }
  return mins;
}

std::vector<IterVarRef> nonUnitIters(const std::vector<IterVarRef> &iters, std::vector<size_t> &positions) {
  std::vector<IterVarRef> kept;
  for (size_t i = 0; i < iters.size(); ++i)
    if (!isOne(iters[i]->dom.extent)) {
      kept.push_back(iters[i]);
      positions.push_back(i);
    }
  return kept;
}

// The description matched against the block's body; `why` says where it first differs.
// Extents and indices are compared by the analyzer under the block's iterator ranges, as TVM's
// comparator proves them equal (`(v1_o * 8 + v1_i) // 8 - v1_o` is the description's `vi // 8`
// when both iterators lie in [0, 8); an int64 extent 16 is the description's int32 16).
class DescMatcher {
public:
  DescMatcher(const Block &descRoot, const Block &target) : descMins_(regionMins(descRoot)), targetMins_(regionMins(target)) {
    bindIters(target);
  }

  bool stmt(const Stmt &desc, const Stmt &target) {
    if (desc->kind() != target->kind()) return mismatch("a " + std::string(nodeKindName(target->kind())) +
                                                        " where the description has a " + nodeKindName(desc->kind()));
    if (const auto *d = desc.as<For>()) {
      const auto *t = target.as<For>();
      if (!analyzer_.canProveEqual(d->extent, t->extent))
        return mismatch("the loop '" + t->loopVar->name + "' has extent " + printExpr(t->extent) + ", the description " +
                        printExpr(d->extent));
      vars_[d->loopVar.get()] = t->loopVar;
      analyzer_.bind(t->loopVar, Range{t->min, t->extent});
      return stmt(d->body, t->body);
    }
    if (const auto *d = desc.as<BlockRealize>()) return realize(*d, *target.as<BlockRealize>());
    if (const auto *d = desc.as<BufferStore>()) {
      const auto *t = target.as<BufferStore>();
      return access(d->buffer, d->indices, t->buffer, t->indices) && expr(d->value, t->value);
    }
    if (const auto *d = desc.as<SeqStmt>()) {
      const auto *t = target.as<SeqStmt>();
      if (d->stmts.size() != t->stmts.size()) return mismatch("a different number of statements");
      for (size_t i = 0; i < d->stmts.size(); ++i)
        if (!stmt(d->stmts[i], t->stmts[i])) return false;
      return true;
    }
    if (const auto *d = desc.as<Evaluate>()) return expr(d->value, target.as<Evaluate>()->value);
    return mismatch(std::string("a ") + nodeKindName(desc->kind()) + " in the description, which tensorize cannot match");
  }

  std::map<const Buffer *, BufferRef> buffers;  // description buffer -> block buffer
  std::string why;

private:
  bool mismatch(std::string reason) {
    if (why.empty()) why = std::move(reason);
    return false;
  }

  void bindIters(const Block &block) {
    for (const IterVarRef &iter : block.iterVars) analyzer_.bind(iter->var, iter->dom);
  }

  bool realize(const BlockRealize &d, const BlockRealize &t) {
    const Block &db = *d.block, &tb = *t.block;
    std::vector<size_t> dPos, tPos;
    std::vector<IterVarRef> dIters = nonUnitIters(db.iterVars, dPos), tIters = nonUnitIters(tb.iterVars, tPos);
    bindIters(tb);
    if (dIters.size() != tIters.size())
      return mismatch("the block '" + tb.name + "' has " + std::to_string(tIters.size()) +
                      " non-unit iterators, the description " + std::to_string(dIters.size()));
    for (size_t i = 0; i < db.iterVars.size(); ++i)
      if (isOne(db.iterVars[i]->dom.extent)) vars_[db.iterVars[i]->var.get()] = intImm(0, db.iterVars[i]->var->dtype);
    for (size_t i = 0; i < dIters.size(); ++i) {
      if (dIters[i]->iterType != tIters[i]->iterType || !analyzer_.canProveEqual(dIters[i]->dom.extent, tIters[i]->dom.extent))
        return mismatch("the iterator '" + tIters[i]->var->name + "' of block '" + tb.name +
                        "' differs in kind or extent from the description's '" + dIters[i]->var->name + "'");
      vars_[dIters[i]->var.get()] = tIters[i]->var;
      if (!expr(d.iterValues[dPos[i]], t.iterValues[tPos[i]])) return false;
    }
    if (bool(db.init) != bool(tb.init)) return mismatch("the block '" + tb.name + "' and the description differ in T.init");
    if (db.init && !stmt(db.init, tb.init)) return false;
    return stmt(db.body, tb.body);
  }

  bool access(const BufferRef &d, const std::vector<Expr> &dIdx, const BufferRef &t, const std::vector<Expr> &tIdx) {
    auto [it, fresh] = buffers.try_emplace(d.get(), t);
    if (!fresh && it->second != t)
      return mismatch("the description's '" + d->name + "' is both '" + it->second->name + "' and '" + t->name + "'");
    if (d->dtype != t->dtype || d->scope() != t->scope())
      return mismatch("buffer '" + t->name + "' (" + t->dtype.str() + ", scope \"" + t->scope() +
                      "\") does not match the description's '" + d->name + "' (" + d->dtype.str() + ", scope \"" +
                      d->scope() + "\")");
    if (dIdx.size() > tIdx.size() || !descMins_.count(d.get()) || !targetMins_.count(t.get()))
      return mismatch("the accesses of buffer '" + t->name + "' differ in rank or region");
    // A block buffer of higher rank matches on its trailing dimensions; the leading ones stay at
    // the region's start (as TVM's match_buffer of a sub-region with leading unit extents).
    size_t leading = tIdx.size() - dIdx.size();
    VarMap map(vars_.begin(), vars_.end());
    for (size_t i = 0; i < tIdx.size(); ++i) {
      Expr want = i < leading ? intImm(0, tIdx[i]->dtype) : simplify(substitute(subExpr(dIdx[i - leading], descMins_[d.get()][i - leading]), map));
      Expr got = simplify(subExpr(tIdx[i], targetMins_[t.get()][i]));
      if (!analyzer_.canProveEqual(want, got))
        return mismatch("index " + std::to_string(i) + " of buffer '" + t->name + "' is " + printExpr(got) +
                        " relative to its region, the description's is " + printExpr(want));
    }
    return true;
  }

  // Integer arithmetic without loads matches what the analyzer proves equal to it: TVM simplifies
  // the description first (`vi % 8` is `vi` for vi in [0, 8)).
  bool provedEqual(const Expr &d, const Expr &t) {
    if (!d->dtype.isIntOrUInt() || !t->dtype.isIntOrUInt()) return false;
    bool loads = false;
    preOrderVisit(d, [&](const Node &node) { loads |= node.kind() == NodeKind::BufferLoad; });
    if (loads) return false;
    VarMap map(vars_.begin(), vars_.end());
    return analyzer_.canProveEqual(substitute(d, map), t);
  }

  bool expr(const Expr &d, const Expr &t) {
    if (provedEqual(d, t)) return true;
    if (const auto *var = d.as<Var>()) {
      auto it = vars_.find(var);
      if (it == vars_.end() || !structuralEqual(it->second, t))
        return mismatch("'" + printExpr(t) + "' where the description has '" + var->name + "'");
      return true;
    }
    if (d->kind() != t->kind() || d->dtype != t->dtype)
      return mismatch("'" + printExpr(t) + "' where the description has '" + printExpr(d) + "'");
    if (const auto *load = d.as<BufferLoad>()) {
      const auto *other = t.as<BufferLoad>();
      return access(load->buffer, load->indices, other->buffer, other->indices);
    }
    if (const auto *binary = d.as<BinaryExpr>()) {
      const auto *other = t.as<BinaryExpr>();
      return expr(binary->a, other->a) && expr(binary->b, other->b);
    }
    if (const auto *cast = d.as<Cast>()) return expr(cast->value, t.as<Cast>()->value);
    if (const auto *call = d.as<Call>()) {
      const auto *other = t.as<Call>();
      if (call->op != other->op || call->args.size() != other->args.size())
        return mismatch("'" + printExpr(t) + "' where the description has '" + printExpr(d) + "'");
      for (size_t i = 0; i < call->args.size(); ++i)
        if (!expr(call->args[i], other->args[i])) return false;
      return true;
    }
    if (structuralEqual(d, t)) return true;
    return mismatch("'" + printExpr(t) + "' where the description has '" + printExpr(d) + "'");
  }

  std::map<const Var *, Expr> vars_;  // description variable -> block expression
  std::map<const Buffer *, std::vector<Expr>> descMins_, targetMins_;
  arith::Analyzer analyzer_;
};

// `tvm_access_ptr(t, data, offset, ...)` of a re-based buffer adds its elem_offset.
class AccessPtrOffsets : public StmtExprMutator {
public:
  explicit AccessPtrOffsets(const std::map<const Var *, Expr> &offsets) : offsets_(offsets) {}
  Expr visitCall(const Call &op) override {
    Expr visited = StmtExprMutator::visitCall(op);
    const auto *call = visited.as<Call>();
    if (call->op != "tir.tvm_access_ptr" || call->args.size() < 3) return visited;
    auto it = offsets_.find(call->args[1].as<Var>());
    if (it == offsets_.end()) return visited;
    Call *copy = copyNode(*call);
    copy->args[2] = addExpr(it->second, call->args[2]);
    return Expr(copy);
  }

private:
  const std::map<const Var *, Expr> &offsets_;
};

// The widest integer type of the block's region starts (int64 for a workload with int64
// shapes): the implementation's index variables take it, as TVM normalizes the implementation to
// the block's index type.
DataType regionIndexType(const Block &block) {
  DataType widest = DataType::int32();
  for (const auto *regions : {&block.writes, &block.reads})
    for (const BufferRegion &region : *regions)
      for (const Range &range : region.region)
        if (range.min->dtype.isInt() && range.min->dtype.bits() > widest.bits()) widest = range.min->dtype;
  return widest;
}

// `dtype` widened to `indexType` when it is a narrower integer type.
DataType widened(DataType dtype, DataType indexType) {
  return dtype.isInt() && dtype.bits() < indexType.bits() ? indexType : dtype;
}

// Operators whose operands a widened index variable left of different types are rebuilt with
// TVM's type matching: `elem_offset // 256` of an int64 offset divides by an int64 256.
class MatchOperandTypes : public StmtExprMutator {
public:
  Expr visitBinary(const BinaryExpr &op) override {
    Expr visited = StmtExprMutator::visitBinary(op);
    const auto *binary = visited.as<BinaryExpr>();
    if (!binary || binary->a->dtype == binary->b->dtype) return visited;
    return makeBinary(binary->kind(), binary->a, binary->b, binary->loc());
  }
};

// The element offset of `region` in `buffer` (compact row-major unless strided).
Expr elementOffset(const Buffer &buffer, const std::vector<Range> &region) {
  Expr offset = intImm(0, region.empty() ? DataType::int32() : region[0].min->dtype);
  Expr stride = intImm(1, offset->dtype);
  for (size_t d = region.size(); d-- > 0;) {
    Expr dimStride = buffer.strides.empty() ? stride : buffer.strides[d];
    offset = addExpr(offset, mulExpr(region[d].min, dimStride));
    stride = mulExpr(stride, buffer.shape[d]);
  }
  return simplify(offset);
}

bool provablyMultiple(const Expr &offset, int64_t factor) {
  std::vector<VarRef> vars;
  preOrderVisit(offset, [&](const Node &node) {
    if (const auto *var = node.as<Var>())
      if (std::none_of(vars.begin(), vars.end(), [&](const VarRef &v) { return v.get() == var; })) vars.push_back(VarRef(var));
  });
  std::optional<LinearEquation> linear = detectLinearEquation(offset, vars);
  std::optional<int64_t> base = linear ? asConstInt(linear->base) : std::nullopt;
  if (!base || *base % factor != 0) return false;
  return std::all_of(linear->coeffs.begin(), linear->coeffs.end(), [&](int64_t c) { return c % factor == 0; });
}

}  // namespace

llvm::Error tensorize(Schedule &sch, const Located<BlockOrLoop> &target, const Located<std::string> &tensorIntrin,
                      bool preserveUnitIters, SourceLoc stepAt) {
  const std::string &name = tensorIntrin.value;
  const TensorIntrin *intrin = sch.intrinsic(name);
  if (!intrin)
    return diagnosticError(tensorIntrin.at, "no tensor intrinsic '" + name +
                                                "' (register one with tir.TensorIntrin.register in the module or --intrinsics)");
  BlockRV block;
  if (const auto *loop = std::get_if<LoopRV>(&target.value)) {
    llvm::Expected<BlockRV> outer = blockize(sch, {*loop, target.at}, preserveUnitIters);
    if (!outer) return outer.takeError();
    block = *outer;
  } else {
    block = std::get<BlockRV>(target.value);
  }
  llvm::Expected<StmtPath> path = sch.findBlock(block, target.at);
  if (!path) return path.takeError();
  const BlockRealize &realize = *path->back().as<BlockRealize>();
  const Block &outer = *realize.block;
  auto fail = [&](const std::string &why) {
    return diagnosticError(stepAt, "tensorize: the block '" + outer.name + "' does not match '" + name + "': " + why);
  };
  const auto *descRealize = intrin->desc->body.as<BlockRealize>();
  const auto *implRealize = intrin->impl->body.as<BlockRealize>();
  if (!descRealize || !implRealize || intrin->desc->bufferMap.size() != intrin->impl->bufferMap.size())
    return diagnosticError(tensorIntrin.at, "tensor intrinsic '" + name +
                                                "': desc and impl must each be one root block over the same number of buffers");
  if (outer.init) return fail("the block has a T.init (decompose_reduction first)");
  DescMatcher matcher(*descRealize->block, outer);
  if (!matcher.stmt(descRealize->block->body, outer.body)) return fail(matcher.why);

  // The implementation's buffers become match_buffers of the block's regions, their shapes,
  // strides and offsets in the block's index type.
  DataType indexType = regionIndexType(outer);
  std::map<const Buffer *, BufferRef> implBuffers;
  VarMap fresh;
  std::map<const Var *, Expr> elemOffsets;
  std::vector<MatchBufferRegion> matches;
  for (size_t i = 0; i < intrin->impl->bufferMap.size(); ++i) {
    const BufferRef &descBuffer = intrin->desc->bufferMap[i].second;
    const BufferRef &implBuffer = intrin->impl->bufferMap[i].second;
    auto matched = matcher.buffers.find(descBuffer.get());
    if (matched == matcher.buffers.end()) return fail("the description never accesses '" + descBuffer->name + "'");
    const BufferRef &source = matched->second;
    std::vector<Range> region;
    for (const auto *regions : {&outer.writes, &outer.reads})
      for (const BufferRegion &r : *regions)
        if (r.buffer == source && region.empty()) region = r.region;
    Expr offset = elementOffset(*source, region);
    int64_t factor = std::max(implBuffer->offsetFactor, 1);
    if (!provablyMultiple(offset, factor))
      return fail("the offset " + printExpr(offset) + " of '" + source->name + "' is not provably a multiple of offset_factor " +
                  std::to_string(factor));
    Buffer *copy = copyNode(*implBuffer);
    copy->data = make<Var>(implBuffer->data->name, *implBuffer->data->pointer);
    fresh[implBuffer->data.get()] = copy->data;
    auto freshIndexVar = [&](const Var &var) {
      auto it = fresh.find(&var);
      if (it == fresh.end()) it = fresh.emplace(&var, makeVar(var.name, widened(var.dtype, indexType))).first;
      return it->second;
    };
    for (Expr &dim : copy->shape) dim = castExpr(widened(dim->dtype, indexType), dim);
    for (Expr &stride : copy->strides)
      stride = stride.as<Var>() ? freshIndexVar(*stride.as<Var>()) : castExpr(widened(stride->dtype, indexType), stride);
    if (const auto *offsetVar = copy->elemOffset ? copy->elemOffset.as<Var>() : nullptr) {
      copy->elemOffset = freshIndexVar(*offsetVar);
    } else if (!copy->elemOffset) {
      copy->elemOffset = makeVar(implBuffer->name + "_elem_offset", indexType);
      elemOffsets[copy->data.get()] = copy->elemOffset;
    }
    BufferRef bound(copy);
    implBuffers[implBuffer.get()] = bound;
    matches.push_back({bound, BufferRegion{source, region}});
  }
  Stmt body = MatchOperandTypes().visitStmt(replaceBuffers(substitute(implRealize->block->body, fresh), implBuffers));
  body = AccessPtrOffsets(elemOffsets).visitStmt(body);
  body = LocateAtStep(stepAt, "in the implementation of tensor intrinsic '" + name + "', inserted by the tensorize step above").visitStmt(body);
  Block *copy = copyNode(outer);
  copy->body = body;
  copy->matchBuffers = matches;
  // The implementation's root block annotations carry over; on a conflicting key the
  // schedule's own value stays, as TVM keeps it.
  for (const auto &[key, value] : implRealize->block->annotations)
    if (!copy->annotations.contains(key)) copy->annotations.set(key, value);
  BlockRealize *newRealize = copyNode(realize);
  newRealize->block = BlockRef(copy);
  sch.replace(block.func, *path, Stmt(newRealize));
  return llvm::Error::success();
}

}  // namespace vtac::passes::schedule
