// transform_layout(block, buffer, index_map, pad_value=None, assume_injective_transform=False):
// re-shapes a buffer the block reads or writes (`("read", k)`, `("write", k)` or its name) by
// an index map `lambda i, j: (...)` (TVM's TransformLayout): every load and store of the buffer
// in the function indexes the new shape through the map (simplified), the allocation or the
// parameter takes the new shape, and the regions of the blocks using it are re-inferred.
// The new shape is the range of each result over the old shape's points, which are enumerated
// (constant shapes of at most 2^24 elements): a map that is not injective is an error; one
// whose range is larger than the buffer pads it, which is an error unless
// assume_injective_transform=True (the padding is then never accessed). pad_value (filling the
// padding) is not supported and is an error when padding happens; without padding it is unused.
#include "BlockUtils.h"
#include "BufferUtils.h"
#include "Primitive.h"

#include <set>

#include "vtac/ir/Arith.h"
#include "vtac/ir/Diagnostic.h"
#include "vtac/ir/Mutator.h"
#include "vtac/ir/Visitor.h"

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

  int64_t evaluate(const TraceValue &e, const std::vector<int64_t> &point) const {
    switch (e.kind) {
    case TraceValue::Kind::Int: return e.intValue;
    case TraceValue::Kind::Name: return sampled_.at(e.text);
    case TraceValue::Kind::Param: return point[param(e.text)];
    default: break;
    }
    int64_t a = evaluate(e.items[0], point), b = evaluate(e.items[1], point);
    if (e.text == "+") return a + b;
    if (e.text == "-") return a - b;
    if (e.text == "*") return a * b;
    if (b == 0) return 0;  // division by zero is rejected before evaluation
    int64_t quotient = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
    return e.text == "//" ? quotient : a - quotient * b;
  }

  Expr build(const TraceValue &e, const std::vector<Expr> &indices, DataType dtype) const {
    switch (e.kind) {
    case TraceValue::Kind::Int: return intImm(e.intValue, dtype);
    case TraceValue::Kind::Name: return intImm(sampled_.at(e.text), dtype);
    case TraceValue::Kind::Param: return indices[param(e.text)];
    default: break;
    }
    Expr a = build(e.items[0], indices, dtype), b = build(e.items[1], indices, dtype);
    NodeKind kind = e.text == "+"   ? NodeKind::Add
                    : e.text == "-" ? NodeKind::Sub
                    : e.text == "*" ? NodeKind::Mul
                    : e.text == "//" ? NodeKind::FloorDiv
                                     : NodeKind::FloorMod;
    return makeBinary(kind, a, b);
  }

  // The divisor of a // or % that is zero, if any.
  bool dividesByZero(const TraceValue &e) const {
    if (e.kind != TraceValue::Kind::Operation) return false;
    if ((e.text == "//" || e.text == "%") && evaluate(e.items[1], {}) == 0 && isConstant(e.items[1])) return true;
    return dividesByZero(e.items[0]) || dividesByZero(e.items[1]);
  }

private:
  size_t param(const std::string &name) const {
    for (size_t i = 0; i + 1 < lambda_.items.size(); ++i)
      if (lambda_.items[i].text == name) return i;
    return 0;
  }
  static bool isConstant(const TraceValue &e) {
    if (e.kind == TraceValue::Kind::Param) return false;
    return std::all_of(e.items.begin(), e.items.end(), isConstant);
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

private:
  std::vector<Expr> mapped(const std::vector<Expr> &indices) const {
    std::vector<Expr> result;
    DataType dtype = indices.empty() ? DataType::int32() : indices[0]->dtype;
    for (const TraceValue &e : map_.results()) result.push_back(simplify(map_.build(e, indices, dtype)));
    return result;
  }

  const Buffer *old_;
  BufferRef replacement_;
  const IndexMap &map_;
};

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

  // The buffer: ("read" | "write", index) or a name the block reads or writes.
  const TraceValue &which = args.value("buffer");
  BufferRef buffer;
  if (which.kind == TraceValue::Kind::List && which.items.size() == 2 &&
      which.items[0].kind == TraceValue::Kind::String && which.items[1].kind == TraceValue::Kind::Int &&
      (which.items[0].text == "read" || which.items[0].text == "write")) {
    llvm::Expected<BufferRef> accessed =
        accessedBuffer(block, which.items[1].intValue, which.items[0].text == "write", args.at("buffer"));
    if (!accessed) return accessed.takeError();
    buffer = *accessed;
  } else if (which.kind == TraceValue::Kind::String) {
    const std::string name = which.text;
    const SourceLoc at = which.loc;
    // The trace records the name as TVM's Python API does: ("read" | "write", index).
    for (const char *kind : {"write", "read"})
      for (size_t i = 0; i < (kind[0] == 'w' ? block.writes : block.reads).size() && !buffer; ++i)
        if ((kind[0] == 'w' ? block.writes : block.reads)[i].buffer->name == name) {
          buffer = (kind[0] == 'w' ? block.writes : block.reads)[i].buffer;
          TraceValue tuple = TraceValue::ofList({TraceValue::ofString(kind), TraceValue::ofInt(int64_t(i))}, at);
          tuple.isTuple = true;
          args.setValue("buffer", tuple);
        }
    if (!buffer) return fail(args.at("buffer"), "the block '" + block.name + "' does not access a buffer '" + name + "'");
  } else {
    return fail(args.at("buffer"), "the buffer is (\"read\", index), (\"write\", index) or a buffer name");
  }

  const TraceValue &lambda = args.value("index_map");
  if (lambda.kind != TraceValue::Kind::Lambda) return fail(args.at("index_map"), "the index map is a `lambda`");
  std::map<std::string, int64_t> sampled;
  if (llvm::Error error = collectSampled(args, lambda, sampled)) return error;
  IndexMap map(lambda, std::move(sampled));
  const std::string bufferDesc = "'" + buffer->name + "'";
  if (map.numParams() != buffer->rank())
    return fail(args.at("index_map"), "the index map takes " + std::to_string(map.numParams()) + " indices but " +
                                          bufferDesc + " has " + std::to_string(buffer->rank()) + " dimensions");
  for (const TraceValue &result : map.results())
    if (map.dividesByZero(result)) return fail(result.loc, "the index map divides by zero");

  // The new shape and injectivity, over every point of the old shape.
  std::vector<int64_t> shape;
  int64_t total = 1;
  for (const Expr &extent : buffer->shape) {
    std::optional<int64_t> value = asConstInt(extent);
    if (!value) return fail(args.at("buffer"), bufferDesc + " has a symbolic shape (not supported)");
    shape.push_back(*value);
    total *= *value;
  }
  if (total > (int64_t(1) << 24)) return fail(args.at("buffer"), bufferDesc + " is too large to check the index map on");
  size_t numResults = map.results().size();
  std::vector<int64_t> lowest(numResults, INT64_MAX), highest(numResults, INT64_MIN);
  std::vector<std::vector<int64_t>> images;
  std::vector<int64_t> point(shape.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    for (size_t d = shape.size(), rest = size_t(n); d-- > 0; rest /= size_t(shape[d])) point[d] = int64_t(rest % size_t(shape[d]));
    std::vector<int64_t> image;
    for (size_t r = 0; r < numResults; ++r) {
      image.push_back(map.evaluate(map.results()[r], point));
      lowest[r] = std::min(lowest[r], image.back());
      highest[r] = std::max(highest[r], image.back());
    }
    images.push_back(std::move(image));
  }
  std::vector<Expr> newShape;
  int64_t newTotal = 1;
  DataType indexType = buffer->shape.empty() ? DataType::int32() : buffer->shape[0]->dtype;
  for (size_t r = 0; r < numResults && total > 0; ++r) {
    if (lowest[r] < 0)
      return fail(map.results()[r].loc, "result " + std::to_string(r) + " of the index map is negative (" +
                                            std::to_string(lowest[r]) + ") for some index of " + bufferDesc);
    newShape.push_back(intImm(highest[r] + 1, indexType));
    newTotal *= highest[r] + 1;
  }
  std::sort(images.begin(), images.end());
  if (std::adjacent_find(images.begin(), images.end()) != images.end())
    return fail(args.at("index_map"), "the index map is not injective on " + bufferDesc);
  if (newTotal != total) {
    std::string padding = "the index map pads " + bufferDesc + " from " + std::to_string(total) + " to " +
                          std::to_string(newTotal) + " elements";
    if (args.value("pad_value").kind != TraceValue::Kind::None)
      return fail(args.at("pad_value"), padding + "; pad_value is not supported");
    if (!*assumeInjective)
      return fail(args.at("index_map"), padding + "; give assume_injective_transform=True to leave the padding unused");
  }

  // Rewrite: accesses, the buffer's declaration, then the regions of the blocks using it.
  Buffer *copy = copyNode(*buffer);
  copy->shape = newShape;
  copy->strides.clear();
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
  Stmt body = LayoutRewriter(buffer.get(), transformed, map).visitStmt(func.body);
  body = replaceBuffers(body, {{buffer.get(), transformed}});
  PrimFunc *newFunc = copyNode(func);
  for (auto &[param, bound] : newFunc->bufferMap)
    if (bound == buffer) bound = transformed;
  newFunc->body = body;
  newFunc->body = reinferRegions(body, users, functionBuffers(*newFunc));
  sch.setFunction(blockRV->func, PrimFuncRef(newFunc));
  return std::vector<RV>{};
}

}  // namespace vtac::passes::schedule
