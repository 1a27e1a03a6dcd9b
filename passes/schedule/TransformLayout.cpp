// transform_layout(block, buffer, index_map, pad_value=None, assume_injective_transform=False):
// re-shapes a buffer the block reads or writes (`("read", k)`, `("write", k)` or its name) by
// an index map `lambda i, j: (...)` (TVM's TransformLayout): every load and store of the buffer
// in the function indexes the new shape through the map (simplified under the loop and block
// ranges), the allocation or the parameter takes the new shape, and the regions of the blocks
// using it are re-inferred. The new shape is the range of each result over the old shape's
// points, which are enumerated (constant shapes of at most 2^24 elements; a larger one takes
// each result's bounds, and the map must have an affine inverse, which shows it injective): a
// map that is not injective is an error. A lambda's `*indices` parameter stands for the
// dimensions the named ones leave, as in TVM's IndexMap.from_func. A map whose range is larger
// than the buffer pads it: the padding is filled with pad_value (a constant of the buffer's kind,
// or a lambda over the new indices giving one value of the buffer's dtype) as LayoutPadding.h
// describes, or left unused with assume_injective_transform=True; without either it is an error. Filling needs the map's
// inverse (AffineInverse.h: each result a split `(x // c) % d` of a fused sum of indices plus a
// constant, TVM's DetectIterMap with padding); other padded maps are an error with a pad_value.
#include "AffineInverse.h"
#include "RegionRelax.h"
#include "BufferUtils.h"
#include "LayoutPadding.h"

#include <set>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"
#include "vtac/passes/schedule/Primitives.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// The index map evaluated on points or built on indices.
class IndexMapEvaluator {
public:
  explicit IndexMapEvaluator(const IndexMap &map) : lambda_(map.lambda), sampled_(map.sampled) {}
  size_t numParams() const { return lambda_.items.size() - 1; }
  const std::vector<TraceValue> &results() const { return lambda_.items.back().items; }

  // The value of e at a point; nullopt when a step of it overflows dtype, the type the map's
  // expressions compute in.
  std::optional<int64_t> evaluate(const TraceValue &e, const std::vector<int64_t> &point, DataType dtype) const {
    switch (e.kind) {
    case TraceValue::Kind::Int: return e.intValue;
    case TraceValue::Kind::Name: return sampled_.at(e.text);
    case TraceValue::Kind::Param: return point[param(e.text)];
    default: break;
    }
    std::optional<int64_t> a = evaluate(e.items[0], point, dtype), b = evaluate(e.items[1], point, dtype);
    if (!a || !b) return std::nullopt;
    NodeKind kind = operatorKind(e.text);
    bool divides = kind == NodeKind::FloorDiv || kind == NodeKind::FloorMod;
    if (divides && *b == 0) return 0;  // a constant zero divisor is rejected before evaluation
    std::optional<int64_t> value = exactIntArith(kind, *a, *b);
    return value && fitsIntType(*value, dtype) ? value : std::nullopt;
  }

  Expr build(const TraceValue &e, const std::vector<Expr> &indices, DataType dtype) const {
    switch (e.kind) {
    case TraceValue::Kind::Int: return intImm(e.intValue, e.dtype.empty() ? dtype : *DataType::parse(e.dtype));
    case TraceValue::Kind::Float: return floatImm(e.floatValue, *DataType::parse(e.dtype));
    case TraceValue::Kind::Name: return intImm(sampled_.at(e.text), dtype);
    case TraceValue::Kind::Param: return indices[param(e.text)];
    default: break;
    }
    Expr a = build(e.items[0], indices, dtype), b = build(e.items[1], indices, dtype);
    return makeBinary(operatorKind(e.text), a, b);
  }

  // The divisor of a // or % that is zero, if any.
  bool dividesByZero(const TraceValue &e) const {
    if (e.kind != TraceValue::Kind::Operation) return false;
    if ((e.text == "//" || e.text == "%") && isConstant(e.items[1]) && evaluate(e.items[1], {}, DataType::int64()) == int64_t(0)) return true;
    return dividesByZero(e.items[0]) || dividesByZero(e.items[1]);
  }

  const std::string &paramName(size_t i) const { return lambda_.items[i].text; }
  size_t param(const std::string &name) const {
    for (size_t i = 0; i + 1 < lambda_.items.size(); ++i)
      if (lambda_.items[i].text == name) return i;
    return 0;
  }
  // The first typed float constant in e (`T.float32(0.5)`), which only a pad value may hold.
  static const TraceValue *floatIn(const TraceValue &e) {
    if (e.kind == TraceValue::Kind::Float) return &e;
    for (const TraceValue &item : e.items)
      if (const TraceValue *found = floatIn(item)) return found;
    return nullptr;
  }
  static bool isConstant(const TraceValue &e) {
    if (e.kind == TraceValue::Kind::Param) return false;
    return std::all_of(e.items.begin(), e.items.end(), isConstant);
  }

private:
  static NodeKind operatorKind(const std::string &op) {
    return op == "+"    ? NodeKind::Add
           : op == "-"  ? NodeKind::Sub
           : op == "*"  ? NodeKind::Mul
           : op == "//" ? NodeKind::FloorDiv
                        : NodeKind::FloorMod;
  }

  TraceValue lambda_;
  std::map<std::string, int64_t> sampled_;
};

class LayoutRewriter : public StmtExprMutator {
public:
  LayoutRewriter(const Buffer *old, BufferRef replacement, const IndexMapEvaluator &map)
      : old_(old), replacement_(std::move(replacement)), map_(map) {}

  Expr visitBufferLoad(const BufferLoad &op) override {
    Expr visited = StmtExprMutator::visitBufferLoad(op);
    const auto *load = visited.as<BufferLoad>();
    if (load->buffer.get() != old_) return visited;
    return make<BufferLoad>(replacement_, mapped(load->indices), load->loc());
  }
  Stmt visitBufferStore(const BufferStore &op) override {
    Stmt visited = StmtExprMutator::visitBufferStore(op);
    const auto *store = visited.as<BufferStore>();
    if (store->buffer.get() != old_) return visited;
    auto *copy = copyNode(*store);
    copy->buffer = replacement_;
    copy->indices = mapped(store->indices);
    return Stmt(copy);
  }

  // The ranges of loops and block iterators, under which mapped indices simplify (TVM's
  // IterMapSimplify with context): `(v0 * 4 + v1) // 4` is v0 when v1 < 4. Unit ranges are
  // left out, as TVM simplifies only non-trivial iterators (a unit `vi` stays `vi`, not 0).
  Stmt visitFor(const For &op) override {
    bindNonTrivial(op.loopVar, Range{op.min, op.extent});
    return StmtExprMutator::visitFor(op);
  }
  Stmt visitBlock(const Block &op) override {
    for (const IterVarRef &iv : op.iterVars)
      if (iv->dom.defined()) bindNonTrivial(iv->var, iv->dom);
    return StmtExprMutator::visitBlock(op);
  }

private:
  void bindNonTrivial(const VarRef &var, const Range &range) {
    if (!isOne(range.extent)) analyzer_.bind(var, range);
  }
  std::vector<Expr> mapped(const std::vector<Expr> &indices) {
    std::vector<Expr> result;
    DataType dtype = indices.empty() ? DataType::int32() : indices[0]->dtype;
    for (const TraceValue &e : map_.results()) result.push_back(analyzer_.simplify(map_.build(e, indices, dtype)));
    return result;
  }

  const Buffer *old_;
  BufferRef replacement_;
  const IndexMapEvaluator &map_;
  arith::Analyzer analyzer_;
};

// The map as expressions of its parameters, each over [0, its old extent), and the axes of the
// new layout, named as TVM's inverse map names its inputs (a passed-through parameter's name, or
// `axis<k>`).
struct SymbolicMap {
  std::vector<AffineInput> inputs;
  std::vector<Expr> outputs;
  std::vector<VarRef> axes;
};
SymbolicMap symbolicMap(const IndexMapEvaluator &map, const std::vector<int64_t> &shape, DataType dtype) {
  SymbolicMap symbolic;
  std::vector<Expr> params;
  for (size_t p = 0; p < shape.size(); ++p) {
    VarRef param = makeVar(map.paramName(p), dtype);
    params.push_back(param);
    symbolic.inputs.push_back({param, shape[p]});
  }
  for (size_t k = 0; k < map.results().size(); ++k) {
    const TraceValue &e = map.results()[k];
    symbolic.outputs.push_back(map.build(e, params, dtype));
    symbolic.axes.push_back(makeVar(e.kind == TraceValue::Kind::Param ? e.text : "axis" + std::to_string(k), dtype));
  }
  return symbolic;
}

// The padded layout of the map over the old shape: the old indices and the padding condition
// at the new axes from the shared affine inverse, simplified as TVM's NonSurjectiveInverse
// simplifies them (the padding under the new shape's ranges); an error saying why the map has no
// inverse.
llvm::Expected<PaddedLayout> paddedLayout(const IndexMapEvaluator &map, const std::vector<int64_t> &shape,
                                          const std::vector<Expr> &newShape, DataType dtype) {
  auto [inputs, outputs, axes] = symbolicMap(map, shape, dtype);
  PaddedLayout layout;
  layout.axes = axes;
  std::vector<Expr> axisValues(axes.begin(), axes.end());
  llvm::Expected<AffineMapInverse> inverse = inverseAffineMap(outputs, inputs, axisValues);
  if (!inverse) return inverse.takeError();
  arith::Analyzer unbound, overNewShape;
  for (const AffineInput &input : inputs) layout.inverse.push_back(unbound.simplify(inverse->inverse.at(input.var.get())));
  for (size_t k = 0; k < layout.axes.size(); ++k) overNewShape.bind(layout.axes[k], Range{intImm(0, dtype), newShape[k]});
  layout.padding = inverse->padding ? inverse->padding : intImm(0, DataType::boolTy());
  // TVM simplifies the predicate up to 10 times: one pass can leave a division the next removes.
  for (int round = 0; round < 10; ++round) {
    Expr simpler = overNewShape.simplify(layout.padding);
    if (structuralEqual(simpler, layout.padding)) break;
    layout.padding = simpler;
  }
  return layout;
}

// Each result's lowest and highest value over the old shape's points, and whether the map takes
// distinct points to distinct results.
struct Image {
  std::vector<int64_t> lowest, highest;
  bool injective = true;
};

// A result that leaves dtype, the type the map computes in, at some index.
llvm::Error overflowError(const IndexMapEvaluator &map, size_t r, DataType dtype, const std::string &bufferDesc) {
  return diagnosticError(map.results()[r].loc, "transform_layout: result " + std::to_string(r) + " of the index map overflows " +
                                                   dtype.str() + " for some index of " + bufferDesc);
}

// Buffers of at most this many elements have every point mapped; the image is then exact.
constexpr int64_t kMaxEnumerated = int64_t(1) << 24;

llvm::Expected<Image> enumeratedImage(const IndexMapEvaluator &map, const std::vector<int64_t> &shape, int64_t total,
                                      DataType dtype, const std::string &bufferDesc) {
  size_t numResults = map.results().size();
  Image image{std::vector<int64_t>(numResults, INT64_MAX), std::vector<int64_t>(numResults, INT64_MIN)};
  std::vector<std::vector<int64_t>> results;
  std::vector<int64_t> point(shape.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    for (size_t d = shape.size(), rest = size_t(n); d-- > 0; rest /= size_t(shape[d])) point[d] = int64_t(rest % size_t(shape[d]));
    std::vector<int64_t> result;
    for (size_t r = 0; r < numResults; ++r) {
      std::optional<int64_t> value = map.evaluate(map.results()[r], point, dtype);
      if (!value) return overflowError(map, r, dtype, bufferDesc);
      result.push_back(*value);
      image.lowest[r] = std::min(image.lowest[r], result.back());
      image.highest[r] = std::max(image.highest[r], result.back());
    }
    results.push_back(std::move(result));
  }
  std::sort(results.begin(), results.end());
  image.injective = std::adjacent_find(results.begin(), results.end()) == results.end();
  return image;
}

// A buffer too large to map point by point: each result's bounds over the old ranges (exact for
// the splits of fused indices an affine map is made of), injective as the map has an affine
// inverse (TVM's DetectIterMap); without one it is an error.
llvm::Expected<Image> affineImage(const IndexMapEvaluator &map, const std::vector<int64_t> &shape, DataType dtype, SourceLoc at,
                                  const std::string &bufferDesc) {
  auto [inputs, outputs, axes] = symbolicMap(map, shape, dtype);
  llvm::Expected<AffineMapInverse> inverse = inverseAffineMap(outputs, inputs, std::vector<Expr>(axes.begin(), axes.end()));
  if (!inverse)
    return diagnosticError(at, "transform_layout: " + bufferDesc + " is too large to check the index map on point by point, "
                               "and the map has no affine inverse that shows it injective: " + llvm::toString(inverse.takeError()));
  // The bounds are taken in int64, where an int32 map's steps cannot wrap: the analyzer bounds a
  // + - * that may wrap by its type's whole range, which says nothing of the overflow.
  SymbolicMap wide = symbolicMap(map, shape, DataType::int64());
  arith::Analyzer analyzer;
  for (const AffineInput &input : wide.inputs)
    analyzer.bind(input.var, Range{intImm(0, DataType::int64()), intImm(input.extent, DataType::int64())});
  Image image;
  for (size_t r = 0; r < wide.outputs.size(); ++r) {
    arith::IntBound bound = analyzer.constIntBound(wide.outputs[r]);
    // Bounded inputs give the whole int64 range only when an int64 step may wrap.
    bool wraps = bound.min == arith::IntBound::kNegInf && bound.max == arith::IntBound::kPosInf;
    if (wraps || !fitsIntType(bound.min, dtype) || !fitsIntType(bound.max, dtype)) return overflowError(map, r, dtype, bufferDesc);
    image.lowest.push_back(bound.min);
    image.highest.push_back(bound.max);
  }
  return image;
}

// The transformed buffer's shape: each result's highest value plus one (none for an empty
// buffer), which the buffer's index type must hold, and its number of elements, which int64 must.
struct NewShape {
  std::vector<Expr> extents;
  int64_t elements = 1;
};
llvm::Expected<NewShape> newShapeOf(const IndexMapEvaluator &map, const Image &image, int64_t oldElements, DataType indexType,
                                    const std::string &bufferDesc) {
  NewShape shape;
  for (size_t r = 0; r < map.results().size() && oldElements > 0; ++r) {
    auto fail = [&](const std::string &why) {
      return diagnosticError(map.results()[r].loc, "transform_layout: result " + std::to_string(r) + " of the index map " + why);
    };
    if (image.lowest[r] < 0)
      return fail("is negative (" + std::to_string(image.lowest[r]) + ") for some index of " + bufferDesc);
    std::optional<int64_t> extent = exactIntArith(NodeKind::Add, image.highest[r], 1);
    if (!extent || !fitsIntType(*extent, indexType))
      return fail("reaches " + std::to_string(image.highest[r]) + ", an extent the index type of " + bufferDesc + " (" +
                  indexType.str() + ") cannot hold");
    std::optional<int64_t> elements = exactIntArith(NodeKind::Mul, shape.elements, *extent);
    if (!elements) return fail("makes the transformed " + bufferDesc + " larger than 2^63 elements");
    shape.extents.push_back(intImm(*extent, indexType));
    shape.elements = *elements;
  }
  return shape;
}

// The pad value at given indices of the new shape, checked as TVM checks it: a constant of the
// buffer's kind (an integer for integer buffers, a float for float ones) takes the buffer's
// dtype; a lambda over the new indices gives one result of the index dtype, which must be the
// buffer's.
using PadValueAt = std::function<Expr(const std::vector<Expr> &)>;
llvm::Expected<PadValueAt> padValueOf(const Located<PadValue> &pad, const Buffer &buffer, size_t newRank,
                                      DataType indexType) {
  SourceLoc at = pad.at;
  DataType dtype = buffer.dtype;
  auto mismatch = [&](const std::string &given) {
    return diagnosticError(at, "transform_layout: pad_value is " + given + " but '" + buffer.name + "' holds " +
                                   dtype.str());
  };
  if (const auto *value = std::get_if<int64_t>(&pad.value)) {
    if (!dtype.isIntOrUInt()) return mismatch("an integer");
    return PadValueAt([value = *value, dtype](const std::vector<Expr> &) { return intImm(value, dtype); });
  }
  if (const auto *value = std::get_if<double>(&pad.value)) {
    if (!dtype.isFloat()) return mismatch("a float");
    return PadValueAt([value = *value, dtype](const std::vector<Expr> &) { return floatImm(value, dtype); });
  }
  auto map = std::make_shared<IndexMapEvaluator>(std::get<IndexMap>(pad.value));
  if (map->results().size() != 1)
    return diagnosticError(at, "transform_layout: the pad_value lambda has " + std::to_string(map->results().size()) +
                                   " results; it gives one value");
  if (map->numParams() != newRank)
    return diagnosticError(at, "transform_layout: the pad_value lambda takes " + std::to_string(map->numParams()) +
                                   " indices but the transformed '" + buffer.name + "' has " + std::to_string(newRank) +
                                   " dimensions");
  const TraceValue &result = map->results()[0];
  if (map->dividesByZero(result)) return diagnosticError(at, "transform_layout: the pad_value lambda divides by zero");
  // A Python integer alone is an int32 (TVM converts it so); expressions of the indices have
  // their dtype; a typed constant its own.
  bool untypedInteger = result.kind == TraceValue::Kind::Int && result.dtype.empty();
  std::vector<Expr> probe;
  for (size_t i = 0; i < newRank; ++i) probe.push_back(makeVar("indices_" + std::to_string(i), indexType));
  DataType given = untypedInteger ? DataType::int32() : map->build(result, probe, indexType)->dtype;
  if (given != dtype) return mismatch("a lambda giving " + given.str());
  return PadValueAt([map, dtype](const std::vector<Expr> &indices) {
    return simplify(map->build(map->results()[0], indices, dtype));
  });
}

}  // namespace

llvm::Error transformLayout(Schedule &sch, const Located<BlockRV> &blockRV, const Located<BufferAccess> &access,
                            const Located<IndexMap> &indexMap, const Located<PadValue> &padValueArg,
                            bool assumeInjective, const std::vector<int64_t> &separators) {
  llvm::Expected<StmtPath> blockPath = sch.findBlock(blockRV.value, blockRV.at);
  if (!blockPath) return blockPath.takeError();
  const Block &block = *blockPath->back().as<BlockRealize>()->block;
  auto fail = [](SourceLoc at, const std::string &why) { return diagnosticError(at, "transform_layout: " + why); };
  llvm::Expected<BufferRef> accessed = accessedBuffer(block, access.value.index, access.value.isWrite, access.at);
  if (!accessed) return accessed.takeError();
  const BufferRef buffer = *accessed;

  IndexMapEvaluator map(indexMap.value);
  const std::string bufferDesc = "'" + buffer->name + "'";
  if (map.numParams() != buffer->rank())
    return fail(indexMap.at, "the index map takes " + std::to_string(map.numParams()) + " indices but " + bufferDesc +
                                 " has " + std::to_string(buffer->rank()) + " dimensions");
  for (const TraceValue &result : map.results()) {
    if (map.dividesByZero(result)) return fail(result.loc, "the index map divides by zero");
    if (const TraceValue *number = IndexMapEvaluator::floatIn(result))
      return fail(number->loc, "the index map's results are integers");
  }
  DataType indexType = buffer->shape.empty() ? DataType::int32() : buffer->shape[0]->dtype;
  std::optional<PadValueAt> padValue;
  if (!std::holds_alternative<std::monostate>(padValueArg.value)) {
    llvm::Expected<PadValueAt> checked = padValueOf(padValueArg, *buffer, map.results().size(), indexType);
    if (!checked) return checked.takeError();
    padValue = std::move(*checked);
  }

  // The new shape and injectivity, over the points of the old shape.
  std::vector<int64_t> shape;
  int64_t total = 1;
  for (const Expr &extent : buffer->shape) {
    std::optional<int64_t> value = asConstInt(extent);
    if (!value) return fail(access.at, bufferDesc + " has a symbolic shape (not supported)");
    shape.push_back(*value);
    std::optional<int64_t> product = exactIntArith(NodeKind::Mul, total, *value);
    if (!product) return fail(access.at, bufferDesc + " has more than 2^63 elements");
    total = *product;
  }
  llvm::Expected<Image> image = total <= kMaxEnumerated ? enumeratedImage(map, shape, total, indexType, bufferDesc)
                                                        : affineImage(map, shape, indexType, indexMap.at, bufferDesc);
  if (!image) return image.takeError();
  llvm::Expected<NewShape> newLayout = newShapeOf(map, *image, total, indexType, bufferDesc);
  if (!newLayout) return newLayout.takeError();
  const std::vector<Expr> &newShape = newLayout->extents;
  int64_t newTotal = newLayout->elements;
  if (!image->injective) return fail(indexMap.at, "the index map is not injective on " + bufferDesc);
  // Padding is filled with the pad value, unless assume_injective_transform says it is unused.
  bool fillsPadding = newTotal != total && !assumeInjective;
  std::optional<PaddedLayout> padded;
  if (fillsPadding) {
    std::string padding = "the index map pads " + bufferDesc + " from " + std::to_string(total) + " to " +
                          std::to_string(newTotal) + " elements";
    if (!padValue)
      return fail(indexMap.at, padding + "; give a pad_value to fill the padding or "
                                         "assume_injective_transform=True to leave it unused");
    llvm::Expected<PaddedLayout> layout = paddedLayout(map, shape, newShape, indexType);
    if (!layout)
      return fail(indexMap.at, padding + "; filling it needs the map's inverse, but " + llvm::toString(layout.takeError()));
    padded = std::move(*layout);
  }

  // Rewrite: accesses, the buffer's declaration, then the regions of the blocks using it.
  Buffer *copy = copyNode(*buffer);
  copy->shape = newShape;
  copy->strides.clear();
  if (!separators.empty()) copy->axisSeparators = separators;
  BufferRef transformed(copy);
  const PrimFunc &func = *cast<PrimFunc>(sch.module().lookup(blockRV.value.func));
  std::set<std::string> users;
  bool matched = false;
  preOrderVisit(func.body, [&](const Node &node) {
    if (const auto *b = node.as<Block>(); b && (accessesBuffer(*b, buffer.get(), false) || accessesBuffer(*b, buffer.get(), true)))
      users.insert(b->name);
    if (const auto *b = node.as<Block>())
      for (const MatchBufferRegion &match : b->matchBuffers) matched |= match.source.buffer == buffer;
  });
  if (matched) return fail(access.at, bufferDesc + " is the source of a match_buffer (not supported)");
  Stmt body = func.body;
  if (padded) {
    padded->old = buffer.get();
    padded->transformed = transformed;
    padded->padValueAt = *padValue;
    llvm::Expected<PaddedBody> filled = fillPadding(body, *padded, padValueArg.at);
    if (!filled) return filled.takeError();
    body = filled->body;
    users.insert(filled->addedBlocks.begin(), filled->addedBlocks.end());
  }
  body = LayoutRewriter(buffer.get(), transformed, map).visitStmt(body);
  body = replaceBuffers(body, {{buffer.get(), transformed}});
  PrimFunc *newFunc = copyNode(func);
  for (auto &[param, bound] : newFunc->bufferMap)
    if (bound == buffer) bound = transformed;
  newFunc->body = body;
  newFunc->body = reinferRegions(body, users, functionBuffers(*newFunc));
  sch.setFunction(blockRV.value.func, PrimFuncRef(newFunc));
  return llvm::Error::success();
}

}  // namespace vtac::passes::schedule
