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
#include "Primitive.h"

#include <set>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/StructuralEqual.h"
#include "vtac/ir/Visitor.h"
#include "vtac/ir/arith/Analyzer.h"

namespace vtac::passes::schedule {

using namespace ir;

namespace {

// The index map with its sampled values resolved: evaluated on points or built on indices.
class IndexMap {
public:
  IndexMap(const TraceValue &lambda, std::map<std::string, int64_t> sampled)
      : lambda_(lambda), sampled_(std::move(sampled)) {}
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

  const TraceValue &lambda_;
  std::map<std::string, int64_t> sampled_;
};

class LayoutRewriter : public StmtExprMutator {
public:
  LayoutRewriter(const Buffer *old, BufferRef replacement, const IndexMap &map)
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
  const IndexMap &map_;
  arith::Analyzer analyzer_;
};

// The index map without TVM's AXIS_SEPARATOR results, and the separators' positions (the number
// of results before each), which TVM's Python API hands to a set_axis_separator step.
std::pair<TraceValue, std::vector<int64_t>> withoutSeparators(const TraceValue &lambda) {
  TraceValue stripped = lambda;
  std::vector<TraceValue> &results = stripped.items.back().items;
  std::vector<TraceValue> kept;
  std::vector<int64_t> separators;
  for (TraceValue &result : results) {
    if (result.kind == TraceValue::Kind::String) separators.push_back(int64_t(kept.size()));
    else kept.push_back(std::move(result));
  }
  results = std::move(kept);
  return {stripped, separators};
}

// The set_axis_separator step TVM's Python API records after a transform_layout with separators.
TraceStep setAxisSeparatorStep(const StepArgs &args, const std::vector<int64_t> &separators) {
  TraceStep step;
  step.primitive = "set_axis_separator";
  std::vector<TraceValue> list;
  for (int64_t separator : separators) list.push_back(TraceValue::ofInt(separator));
  step.arguments = {{"block", args.value("block")}, {"buffer", args.value("buffer")}, {"axis_separators", TraceValue::ofList(list)}};
  return step;
}

// TVM's IndexMap.from_func for a lambda with a variadic parameter `*indices`: it stands for the
// parameters `indices_0, indices_1, ...` that the `ndim` dimensions of `shaped` leave beyond the
// named ones, and `*indices` among the results for the same indices in order. The trace records
// the lambda so expanded, as TVM prints it.
llvm::Expected<TraceValue> withVariadicExpanded(const TraceValue &lambda, size_t ndim, const std::string &shaped,
                                                SourceLoc at) {
  auto params = llvm::ArrayRef(lambda.items).drop_back();
  const TraceValue *variadic = nullptr;
  for (const TraceValue &param : params)
    if (param.starred) variadic = &param;
  if (!variadic) return lambda;
  size_t named = params.size() - 1;
  if (named > ndim)
    return diagnosticError(at, "transform_layout: the lambda names " + std::to_string(named) + " indices besides *" +
                                   variadic->text + " but " + shaped + " has " + std::to_string(ndim) + " dimensions");
  std::vector<TraceValue> indices;
  for (size_t i = 0; i < ndim - named; ++i) {
    TraceValue index = *variadic;
    index.starred = false;
    index.text += "_" + std::to_string(i);
    for (const TraceValue &param : params)
      if (param.text == index.text)
        return diagnosticError(param.loc, "transform_layout: the parameter '" + param.text + "' is also an index *" +
                                              variadic->text + " stands for");
    indices.push_back(std::move(index));
  }
  // Each starred item, a parameter or a result, becomes the indices.
  auto expand = [&](const std::vector<TraceValue> &items) {
    std::vector<TraceValue> out;
    for (const TraceValue &item : items) {
      if (!item.starred) {
        out.push_back(item);
        continue;
      }
      for (TraceValue index : indices) {
        index.loc = item.loc;
        out.push_back(std::move(index));
      }
    }
    return out;
  };
  TraceValue expanded = lambda;
  expanded.items = expand(params.vec());
  TraceValue results = lambda.items.back();
  results.items = expand(results.items);
  expanded.items.push_back(std::move(results));
  return expanded;
}

// The names and sampled values of the RVs the index map uses.
llvm::Error collectSampled(StepArgs &args, const TraceValue &e, std::map<std::string, int64_t> &sampled) {
  if (e.kind == TraceValue::Kind::Name) {
    llvm::Expected<RV> rv = args.resolve(e);
    if (!rv) return rv.takeError();
    const auto *value = std::get_if<int64_t>(&*rv);
    if (!value) return diagnosticError(e.loc, "transform_layout: '" + e.text + "' in the index map is not a sampled integer");
    sampled[e.text] = *value;
  }
  for (const TraceValue &item : e.items)
    if (llvm::Error error = collectSampled(args, item, sampled)) return error;
  return llvm::Error::success();
}

// The map as expressions of its parameters, each over [0, its old extent), and the axes of the
// new layout, named as TVM's inverse map names its inputs (a passed-through parameter's name, or
// `axis<k>`).
struct SymbolicMap {
  std::vector<AffineInput> inputs;
  std::vector<Expr> outputs;
  std::vector<VarRef> axes;
};
SymbolicMap symbolicMap(const IndexMap &map, const std::vector<int64_t> &shape, DataType dtype) {
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
llvm::Expected<PaddedLayout> paddedLayout(const IndexMap &map, const std::vector<int64_t> &shape,
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
llvm::Error overflowError(const IndexMap &map, size_t r, DataType dtype, const std::string &bufferDesc) {
  return diagnosticError(map.results()[r].loc, "transform_layout: result " + std::to_string(r) + " of the index map overflows " +
                                                   dtype.str() + " for some index of " + bufferDesc);
}

// Buffers of at most this many elements have every point mapped; the image is then exact.
constexpr int64_t kMaxEnumerated = int64_t(1) << 24;

llvm::Expected<Image> enumeratedImage(const IndexMap &map, const std::vector<int64_t> &shape, int64_t total,
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
llvm::Expected<Image> affineImage(const IndexMap &map, const std::vector<int64_t> &shape, DataType dtype, SourceLoc at,
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
llvm::Expected<NewShape> newShapeOf(const IndexMap &map, const Image &image, int64_t oldElements, DataType indexType,
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
using PadValue = std::function<Expr(const std::vector<Expr> &)>;
llvm::Expected<PadValue> padValueOf(StepArgs &args, const Buffer &buffer, size_t newRank, DataType indexType) {
  const TraceValue &pad = args.value("pad_value");
  SourceLoc at = args.at("pad_value");
  DataType dtype = buffer.dtype;
  auto mismatch = [&](const std::string &given) {
    return diagnosticError(at, "transform_layout: pad_value is " + given + " but '" + buffer.name + "' holds " +
                                   dtype.str());
  };
  if (pad.kind == TraceValue::Kind::Int) {
    if (!dtype.isIntOrUInt()) return mismatch("an integer");
    int64_t value = pad.intValue;
    return PadValue([value, dtype](const std::vector<Expr> &) { return intImm(value, dtype); });
  }
  if (pad.kind == TraceValue::Kind::Float) {
    if (!dtype.isFloat()) return mismatch("a float");
    double value = pad.floatValue;
    return PadValue([value, dtype](const std::vector<Expr> &) { return floatImm(value, dtype); });
  }
  if (pad.kind != TraceValue::Kind::Lambda)
    return diagnosticError(at, "transform_layout: pad_value is None, a number or a `lambda` over the new indices");
  llvm::Expected<TraceValue> expanded = withVariadicExpanded(pad, newRank, "the transformed '" + buffer.name + "'", at);
  if (!expanded) return expanded.takeError();
  args.setValue("pad_value", std::move(*expanded));
  const TraceValue &lambda = args.value("pad_value");
  std::map<std::string, int64_t> sampled;
  if (llvm::Error error = collectSampled(args, lambda, sampled)) return error;
  auto map = std::make_shared<IndexMap>(lambda, std::move(sampled));
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
  return PadValue([map, dtype](const std::vector<Expr> &indices) {
    return simplify(map->build(map->results()[0], indices, dtype));
  });
}

// TVM records a constant pad_value as the index map `lambda indices_0, ...: (value,)` over the
// new indices, the value a constant of the buffer's dtype, printed as TVM prints it (`0` for
// int32, `T.int8(0)`, `T.float32(0.5)`).
void recordPadValueAsTvm(StepArgs &args, size_t newRank, DataType dtype) {
  TraceValue pad = args.value("pad_value");
  if (pad.kind != TraceValue::Kind::Int && pad.kind != TraceValue::Kind::Float) return;
  pad.dtype = dtype.str();
  TraceValue lambda = TraceValue::none(pad.loc);
  lambda.kind = TraceValue::Kind::Lambda;
  for (size_t i = 0; i < newRank; ++i) {
    TraceValue param = TraceValue::ofString("indices_" + std::to_string(i), pad.loc);
    param.kind = TraceValue::Kind::Param;
    lambda.items.push_back(std::move(param));
  }
  lambda.items.push_back(TraceValue::ofList({pad}, pad.loc));
  args.setValue("pad_value", lambda);
}

}  // namespace

llvm::Expected<std::vector<RV>> applyTransformLayout(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> blockRV = args.block("block");
  if (!blockRV) return blockRV.takeError();
  llvm::Expected<bool> assumeInjective = args.boolean("assume_injective_transform");
  if (!assumeInjective) return assumeInjective.takeError();
  llvm::Expected<StmtPath> blockPath = sch.findBlock(*blockRV, args.at("block"));
  if (!blockPath) return blockPath.takeError();
  const Block &block = *blockPath->back().as<BlockRealize>()->block;
  auto fail = [](SourceLoc at, const std::string &why) { return diagnosticError(at, "transform_layout: " + why); };

  llvm::Expected<BufferRef> named = bufferArgument(block, args, "buffer", "transform_layout");
  if (!named) return named.takeError();
  const BufferRef buffer = *named;

  if (args.value("index_map").kind != TraceValue::Kind::Lambda) return fail(args.at("index_map"), "the index map is a `lambda`");
  auto [withoutSeparator, separators] = withoutSeparators(args.value("index_map"));
  llvm::Expected<TraceValue> expanded = withVariadicExpanded(withoutSeparator, buffer->rank(), "'" + buffer->name + "'", args.at("index_map"));
  if (!expanded) return expanded.takeError();
  args.setValue("index_map", std::move(*expanded));
  const TraceValue &lambda = args.value("index_map");
  std::map<std::string, int64_t> sampled;
  if (llvm::Error error = collectSampled(args, lambda, sampled)) return error;
  IndexMap map(lambda, std::move(sampled));
  const std::string bufferDesc = "'" + buffer->name + "'";
  if (map.numParams() != buffer->rank())
    return fail(args.at("index_map"), "the index map takes " + std::to_string(map.numParams()) + " indices but " +
                                          bufferDesc + " has " + std::to_string(buffer->rank()) + " dimensions");
  for (const TraceValue &result : map.results()) {
    if (map.dividesByZero(result)) return fail(result.loc, "the index map divides by zero");
    if (const TraceValue *number = IndexMap::floatIn(result)) return fail(number->loc, "the index map's results are integers");
  }
  DataType indexType = buffer->shape.empty() ? DataType::int32() : buffer->shape[0]->dtype;
  std::optional<PadValue> padValue;
  if (args.value("pad_value").kind != TraceValue::Kind::None) {
    llvm::Expected<PadValue> checked = padValueOf(args, *buffer, map.results().size(), indexType);
    if (!checked) return checked.takeError();
    padValue = std::move(*checked);
  }

  // The new shape and injectivity, over the points of the old shape.
  std::vector<int64_t> shape;
  int64_t total = 1;
  for (const Expr &extent : buffer->shape) {
    std::optional<int64_t> value = asConstInt(extent);
    if (!value) return fail(args.at("buffer"), bufferDesc + " has a symbolic shape (not supported)");
    shape.push_back(*value);
    std::optional<int64_t> product = exactIntArith(NodeKind::Mul, total, *value);
    if (!product) return fail(args.at("buffer"), bufferDesc + " has more than 2^63 elements");
    total = *product;
  }
  llvm::Expected<Image> image = total <= kMaxEnumerated ? enumeratedImage(map, shape, total, indexType, bufferDesc)
                                                        : affineImage(map, shape, indexType, args.at("index_map"), bufferDesc);
  if (!image) return image.takeError();
  size_t numResults = map.results().size();
  llvm::Expected<NewShape> newLayout = newShapeOf(map, *image, total, indexType, bufferDesc);
  if (!newLayout) return newLayout.takeError();
  const std::vector<Expr> &newShape = newLayout->extents;
  int64_t newTotal = newLayout->elements;
  if (!image->injective) return fail(args.at("index_map"), "the index map is not injective on " + bufferDesc);
  // Padding is filled with the pad value, unless assume_injective_transform says it is unused.
  bool fillsPadding = newTotal != total && !*assumeInjective;
  std::optional<PaddedLayout> padded;
  if (fillsPadding) {
    std::string padding = "the index map pads " + bufferDesc + " from " + std::to_string(total) + " to " +
                          std::to_string(newTotal) + " elements";
    if (!padValue)
      return fail(args.at("index_map"), padding + "; give a pad_value to fill the padding or "
                                                  "assume_injective_transform=True to leave it unused");
    llvm::Expected<PaddedLayout> layout = paddedLayout(map, shape, newShape, indexType);
    if (!layout) return fail(args.at("index_map"), padding + "; filling it needs the map's inverse, but " + llvm::toString(layout.takeError()));
    padded = std::move(*layout);
  }

  // Rewrite: accesses, the buffer's declaration, then the regions of the blocks using it.
  Buffer *copy = copyNode(*buffer);
  copy->shape = newShape;
  copy->strides.clear();
  if (!separators.empty()) copy->axisSeparators = separators;
  BufferRef transformed(copy);
  const PrimFunc &func = *cast<PrimFunc>(sch.module().lookup(blockRV->func));
  std::set<std::string> users;
  bool matched = false;
  preOrderVisit(func.body, [&](const Node &node) {
    if (const auto *b = node.as<Block>(); b && (accessesBuffer(*b, buffer.get(), false) || accessesBuffer(*b, buffer.get(), true)))
      users.insert(b->name);
    if (const auto *b = node.as<Block>())
      for (const MatchBufferRegion &match : b->matchBuffers) matched |= match.source.buffer == buffer;
  });
  if (matched) return fail(args.at("buffer"), bufferDesc + " is the source of a match_buffer (not supported)");
  Stmt body = func.body;
  if (padded) {
    padded->old = buffer.get();
    padded->transformed = transformed;
    padded->padValueAt = *padValue;
    llvm::Expected<PaddedBody> filled = fillPadding(body, *padded, args.at("pad_value"));
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
  sch.setFunction(blockRV->func, PrimFuncRef(newFunc));
  recordPadValueAsTvm(args, numResults, buffer->dtype);
  if (!separators.empty()) sch.recordAfterCurrentStep(setAxisSeparatorStep(args, separators));
  return std::vector<RV>{};
}

}  // namespace vtac::passes::schedule
