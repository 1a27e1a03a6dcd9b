// The primitives and their signatures (names, order and defaults of TVM's tir.Schedule methods,
// which are also what the trace prints), and the decoding of a step's arguments into the call of
// a typed primitive (Primitives.h).
#include "BufferUtils.h"
#include "Primitive.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

namespace {

using ir::DataType;
using ir::SourceLoc;
using ir::TraceStep;
using ir::TraceValue;
using ir::diagnosticError;
using Results = PrimitiveSpec::Results;

ParamSpec required(const char *name) { return {name, std::nullopt}; }
ParamSpec optional(const char *name, TraceValue value) { return {name, std::move(value)}; }
ParamSpec variadic(const char *name) { return {name, std::nullopt, true}; }

llvm::Expected<std::vector<RV>> noResults(llvm::Error error) {
  if (error) return error;
  return std::vector<RV>{};
}

template <class Result>
llvm::Expected<std::vector<RV>> oneResult(llvm::Expected<Result> result) {
  if (!result) return result.takeError();
  return std::vector<RV>{*result};
}

template <class Result>
llvm::Expected<std::vector<RV>> listResult(llvm::Expected<std::vector<Result>> results) {
  if (!results) return results.takeError();
  return std::vector<RV>(results->begin(), results->end());
}

llvm::Expected<std::vector<RV>> decodeGetBlock(Schedule &sch, StepArgs &args) {
  llvm::Expected<std::string> name = args.string("name");
  if (!name) return name.takeError();
  // Without func_name, the default function, which the recorded trace then names.
  if (args.value("func_name").kind == TraceValue::Kind::None) {
    llvm::Expected<std::string> fallback = sch.defaultFunction(args.stepLoc());
    if (!fallback) return fallback.takeError();
    args.setValue("func_name", TraceValue::ofString(*fallback));
  }
  llvm::Expected<std::string> funcName = args.string("func_name");
  if (!funcName) return funcName.takeError();
  return oneResult(getBlock(sch, {*name, args.at("name")}, {*funcName, args.at("func_name")}));
}

// get_loops, get_producers, get_consumers.
template <class Result, llvm::Expected<std::vector<Result>> (*primitive)(Schedule &, const Located<BlockRV> &)>
llvm::Expected<std::vector<RV>> decodeBlockQuery(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  return listResult(primitive(sch, {*block, args.at("block")}));
}

// A buffer index, given as the index or (as TVM's Python API takes it) as the name of a buffer
// the block writes (reads), which the recorded trace prints as the index.
llvm::Expected<Located<int64_t>> decodeBufferIndex(Schedule &sch, StepArgs &args, const char *param,
                                                   const Located<BlockRV> &block, bool isWrite) {
  llvm::Expected<StmtPath> path = sch.findBlock(block.value, block.at);
  if (!path) return path.takeError();
  llvm::Expected<int64_t> index = args.bufferIndex(param, *path->back().as<ir::BlockRealize>()->block, isWrite);
  if (!index) return index.takeError();
  return Located<int64_t>{*index, args.at(param)};
}

// set_scope, unsafe_set_dtype: a block, the index of a buffer it writes, and a string.
template <llvm::Error (*primitive)(Schedule &, const Located<BlockRV> &, const Located<int64_t> &,
                                   const Located<std::string> &)>
llvm::Expected<std::vector<RV>> decodeWrittenBufferStep(Schedule &sch, StepArgs &args, const char *stringParam) {
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  llvm::Expected<std::string> text = args.string(stringParam);
  if (!text) return text.takeError();
  Located<BlockRV> located{*block, args.at("block")};
  llvm::Expected<Located<int64_t>> index = decodeBufferIndex(sch, args, "buffer_index", located, /*isWrite=*/true);
  if (!index) return index.takeError();
  return noResults(primitive(sch, located, *index, {*text, args.at(stringParam)}));
}

llvm::Expected<std::vector<RV>> decodeSetScope(Schedule &sch, StepArgs &args) {
  return decodeWrittenBufferStep<setScope>(sch, args, "storage_scope");
}

llvm::Expected<std::vector<RV>> decodeUnsafeSetDType(Schedule &sch, StepArgs &args) {
  return decodeWrittenBufferStep<unsafeSetDType>(sch, args, "dtype");
}

llvm::Expected<std::vector<RV>> decodeDecomposeReduction(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  llvm::Expected<LoopRV> loop = args.loop("loop");
  if (!loop) return loop.takeError();
  return oneResult(decomposeReduction(sch, {*block, args.at("block")}, {*loop, args.at("loop")}));
}

// parallel, vectorize, unroll.
template <llvm::Error (*primitive)(Schedule &, const Located<LoopRV> &)>
llvm::Expected<std::vector<RV>> decodeLoopStep(Schedule &sch, StepArgs &args) {
  llvm::Expected<LoopRV> loop = args.loop("loop");
  if (!loop) return loop.takeError();
  return noResults(primitive(sch, {*loop, args.at("loop")}));
}

llvm::Expected<std::vector<RV>> decodeBind(Schedule &sch, StepArgs &args) {
  llvm::Expected<std::string> thread = args.string("thread_axis");
  if (!thread) return thread.takeError();
  llvm::Expected<LoopRV> loop = args.loop("loop");
  if (!loop) return loop.takeError();
  return noResults(bind(sch, {*loop, args.at("loop")}, {*thread, args.at("thread_axis")}));
}

// A factor of split: an integer, a sampled value, or None (written, or sample_perfect_tile's None RV).
llvm::Expected<SplitFactor> decodeSplitFactor(StepArgs &args, const TraceValue &item) {
  if (item.kind == TraceValue::Kind::None) return std::nullopt;
  if (item.kind == TraceValue::Kind::Int) return item.intValue;
  if (item.kind != TraceValue::Kind::Name)
    return ir::diagnosticError(item.loc, "split: a factor is an integer, a sampled value or None");
  llvm::Expected<RV> rv = args.resolve(item);
  if (!rv) return rv.takeError();
  if (std::holds_alternative<NoneRV>(*rv)) return std::nullopt;
  if (const auto *sampled = std::get_if<int64_t>(&*rv)) return *sampled;
  return ir::diagnosticError(item.loc, "split: the factor " + ir::describeTraceName(item.text) + " is not a sampled value");
}

llvm::Expected<std::vector<RV>> decodeSplit(Schedule &sch, StepArgs &args) {
  llvm::Expected<LoopRV> loop = args.loop("loop");
  if (!loop) return loop.takeError();
  llvm::Expected<bool> preserveUnitIters = args.boolean("preserve_unit_iters");
  if (!preserveUnitIters) return preserveUnitIters.takeError();
  llvm::Expected<bool> disablePredication = args.boolean("disable_predication");
  if (!disablePredication) return disablePredication.takeError();
  // Anything but a list holds no factors, which split reports as too few.
  const TraceValue &list = args.value("factors");
  std::vector<Located<SplitFactor>> factors;
  if (list.kind == TraceValue::Kind::List)
    for (const TraceValue &item : list.items) {
      llvm::Expected<SplitFactor> factor = decodeSplitFactor(args, item);
      if (!factor) return factor.takeError();
      factors.push_back({*factor, item.loc});
    }
  return listResult(
      split(sch, {*loop, args.at("loop")}, {factors, args.at("factors")}, *preserveUnitIters, *disablePredication));
}

llvm::Expected<std::vector<RV>> decodeFuse(Schedule &sch, StepArgs &args) {
  llvm::Expected<std::vector<Located<LoopRV>>> loops = args.loops("loops");
  if (!loops) return loops.takeError();
  llvm::Expected<bool> preserveUnitIters = args.boolean("preserve_unit_iters");
  if (!preserveUnitIters) return preserveUnitIters.takeError();
  return oneResult(fuse(sch, *loops, *preserveUnitIters, args.stepLoc()));
}

llvm::Expected<std::vector<RV>> decodeMerge(Schedule &sch, StepArgs &args) {
  llvm::Expected<std::vector<Located<LoopRV>>> loops = args.loops("loops");
  if (!loops) return loops.takeError();
  return oneResult(merge(sch, *loops, args.stepLoc()));
}

llvm::Expected<std::vector<RV>> decodeReorder(Schedule &sch, StepArgs &args) {
  llvm::Expected<std::vector<Located<LoopRV>>> loops = args.loops("ordered_loops");
  if (!loops) return loops.takeError();
  return noResults(reorder(sch, *loops, args.stepLoc()));
}

// compute_inline, reverse_compute_inline.
template <llvm::Error (*primitive)(Schedule &, const Located<BlockRV> &)>
llvm::Expected<std::vector<RV>> decodeBlockStep(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  return noResults(primitive(sch, {*block, args.at("block")}));
}

// compute_at, reverse_compute_at.
template <llvm::Error (*primitive)(Schedule &, const Located<BlockRV> &, const Located<ComputeLocation> &, bool,
                                   const Located<int64_t> &)>
llvm::Expected<std::vector<RV>> decodeComputeAtStep(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  llvm::Expected<ComputeLocation> loop = args.computeLocation("loop");
  if (!loop) return loop.takeError();
  llvm::Expected<bool> preserveUnitLoops = args.boolean("preserve_unit_loops");
  if (!preserveUnitLoops) return preserveUnitLoops.takeError();
  llvm::Expected<int64_t> index = args.integer("index");
  if (!index) return index.takeError();
  return noResults(primitive(sch, {*block, args.at("block")}, {*loop, args.at("loop")}, *preserveUnitLoops,
                             {*index, args.at("index")}));
}

// A block or a loop (get_child_blocks, add_unit_loop, annotate, unannotate, tensorize).
llvm::Expected<Located<BlockOrLoop>> decodeBlockOrLoop(StepArgs &args, const char *param) {
  llvm::Expected<RV> rv = args.blockOrLoop(param);
  if (!rv) return rv.takeError();
  if (const auto *block = std::get_if<BlockRV>(&*rv)) return Located<BlockOrLoop>{*block, args.at(param)};
  return Located<BlockOrLoop>{std::get<LoopRV>(*rv), args.at(param)};
}

llvm::Expected<std::vector<RV>> decodeGetChildBlocks(Schedule &sch, StepArgs &args) {
  llvm::Expected<Located<BlockOrLoop>> parent = decodeBlockOrLoop(args, "block_or_loop");
  if (!parent) return parent.takeError();
  return listResult(getChildBlocks(sch, *parent));
}

llvm::Expected<std::vector<RV>> decodeAddUnitLoop(Schedule &sch, StepArgs &args) {
  llvm::Expected<Located<BlockOrLoop>> target = decodeBlockOrLoop(args, "block_or_loop");
  if (!target) return target.takeError();
  return oneResult(addUnitLoop(sch, *target));
}

// An annotation value: ints, floats, strings, bools, lists and dicts of them, or a sampled value.
llvm::Expected<ir::AttrValue> decodeAttrValue(StepArgs &args, const TraceValue &value) {
  switch (value.kind) {
  case TraceValue::Kind::None: return ir::AttrValue();
  case TraceValue::Kind::Bool: return ir::AttrValue(value.boolValue);
  case TraceValue::Kind::Int: return ir::AttrValue(value.intValue);
  case TraceValue::Kind::Float: return ir::AttrValue(value.floatValue);
  case TraceValue::Kind::String: return ir::AttrValue(value.text);
  case TraceValue::Kind::Name: {
    llvm::Expected<RV> rv = args.resolve(value);
    if (!rv) return rv.takeError();
    if (const auto *sampled = std::get_if<int64_t>(&*rv)) return ir::AttrValue(*sampled);
    return ir::diagnosticError(value.loc, "an annotation value cannot be a block or a loop");
  }
  case TraceValue::Kind::List: {
    ir::AttrValue::Array items;
    for (const TraceValue &item : value.items) {
      llvm::Expected<ir::AttrValue> converted = decodeAttrValue(args, item);
      if (!converted) return converted.takeError();
      items.push_back(std::move(*converted));
    }
    return ir::AttrValue(std::move(items));
  }
  case TraceValue::Kind::Dict: {
    ir::AttrMap map;
    for (size_t i = 0; i + 1 < value.items.size(); i += 2) {
      llvm::Expected<ir::AttrValue> converted = decodeAttrValue(args, value.items[i + 1]);
      if (!converted) return converted.takeError();
      map.set(value.items[i].text, std::move(*converted));
    }
    return ir::AttrValue(std::move(map));
  }
  case TraceValue::Kind::Lambda:
  case TraceValue::Kind::Param:
  case TraceValue::Kind::Operation: break;
  }
  return ir::diagnosticError(value.loc, "an annotation value cannot be an index map (lambda)");
}

llvm::Expected<std::vector<RV>> decodeAnnotate(Schedule &sch, StepArgs &args) {
  llvm::Expected<std::string> key = args.string("ann_key");
  if (!key) return key.takeError();
  llvm::Expected<ir::AttrValue> value = decodeAttrValue(args, args.value("ann_val"));
  if (!value) return value.takeError();
  llvm::Expected<Located<BlockOrLoop>> target = decodeBlockOrLoop(args, "block_or_loop");
  if (!target) return target.takeError();
  return noResults(annotate(sch, *target, *key, *value));
}

llvm::Expected<std::vector<RV>> decodeUnannotate(Schedule &sch, StepArgs &args) {
  llvm::Expected<std::string> key = args.string("ann_key");
  if (!key) return key.takeError();
  llvm::Expected<Located<BlockOrLoop>> target = decodeBlockOrLoop(args, "block_or_loop");
  if (!target) return target.takeError();
  return noResults(unannotate(sch, *target, {*key, args.at("ann_key")}));
}

llvm::Expected<std::vector<RV>> decodeStorageAlign(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  std::vector<Located<int64_t>> values;
  for (const char *param : {"buffer_index", "axis", "factor", "offset"}) {
    llvm::Expected<int64_t> value = args.integer(param);
    if (!value) return value.takeError();
    values.push_back({*value, args.at(param)});
  }
  return noResults(storageAlign(sch, {*block, args.at("block")}, values[0], values[1], values[2], values[3]));
}

// cache_read, cache_write: the consumer blocks (None: all of them) are looked up first, as TVM's
// Python API looks up the blocks given by name in that order.
template <llvm::Expected<BlockRV> (*primitive)(Schedule &, const Located<BlockRV> &, const Located<int64_t> &,
                                               const Located<std::string> &, const Located<std::vector<BlockRV>> &,
                                               ir::SourceLoc)>
llvm::Expected<std::vector<RV>> decodeCacheStep(Schedule &sch, StepArgs &args, const char *indexParam, bool isWrite) {
  Located<std::vector<BlockRV>> consumers{{}, args.at("consumer_blocks")};
  if (args.value("consumer_blocks").kind != TraceValue::Kind::None) {
    llvm::Expected<std::vector<BlockRV>> blocks = args.blockList("consumer_blocks");
    if (!blocks) return blocks.takeError();
    consumers.value = std::move(*blocks);
  }
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  llvm::Expected<std::string> scope = args.string("storage_scope");
  if (!scope) return scope.takeError();
  Located<BlockRV> located{*block, args.at("block")};
  llvm::Expected<Located<int64_t>> index = decodeBufferIndex(sch, args, indexParam, located, isWrite);
  if (!index) return index.takeError();
  return oneResult(primitive(sch, located, *index, {*scope, args.at("storage_scope")}, consumers, args.stepLoc()));
}

llvm::Expected<std::vector<RV>> decodeCacheRead(Schedule &sch, StepArgs &args) {
  return decodeCacheStep<cacheRead>(sch, args, "read_buffer_index", /*isWrite=*/false);
}

llvm::Expected<std::vector<RV>> decodeCacheWrite(Schedule &sch, StepArgs &args) {
  return decodeCacheStep<cacheWrite>(sch, args, "write_buffer_index", /*isWrite=*/true);
}

llvm::Expected<std::vector<RV>> decodeBlockize(Schedule &sch, StepArgs &args) {
  llvm::Expected<bool> preserveUnitIters = args.boolean("preserve_unit_iters");
  if (!preserveUnitIters) return preserveUnitIters.takeError();
  Located<BlockizeTarget> target{std::vector<BlockRV>{}, args.at("target")};
  if (args.value("target").kind == TraceValue::Kind::List) {
    llvm::Expected<std::vector<BlockRV>> blocks = args.blockList("target");
    if (!blocks) return blocks.takeError();
    target.value = std::move(*blocks);
  } else {
    llvm::Expected<LoopRV> loop = args.loop("target");
    if (!loop) return loop.takeError();
    target.value = *loop;
  }
  return oneResult(blockize(sch, target, *preserveUnitIters));
}

llvm::Expected<std::vector<RV>> decodeTensorize(Schedule &sch, StepArgs &args) {
  llvm::Expected<Located<BlockOrLoop>> target = decodeBlockOrLoop(args, "block_or_loop");
  if (!target) return target.takeError();
  llvm::Expected<std::string> intrinsic = args.string("tensor_intrin");
  if (!intrinsic) return intrinsic.takeError();
  llvm::Expected<bool> preserveUnitIters = args.boolean("preserve_unit_iters");
  if (!preserveUnitIters) return preserveUnitIters.takeError();
  return noResults(
      tensorize(sch, *target, {*intrinsic, args.at("tensor_intrin")}, *preserveUnitIters, args.stepLoc()));
}

llvm::Expected<std::vector<RV>> decodeRFactor(Schedule &sch, StepArgs &args) {
  llvm::Expected<LoopRV> loop = args.loop("loop");
  if (!loop) return loop.takeError();
  llvm::Expected<int64_t> factorAxis = args.integer("factor_axis");
  if (!factorAxis) return factorAxis.takeError();
  return oneResult(rfactor(sch, {*loop, args.at("loop")}, {*factorAxis, args.at("factor_axis")}));
}

// The buffer argument of transform_layout and set_axis_separator: ("read" | "write", index) or,
// as TVM's Python API takes it, the name of a buffer the block writes (else reads), which the
// recorded trace prints as that tuple. Returns the buffer too, whose shape the index map's
// decoding needs.
struct DecodedBuffer {
  Located<BufferAccess> access;
  ir::BufferRef buffer;
};
llvm::Expected<DecodedBuffer> decodeBufferAccess(Schedule &sch, StepArgs &args, const Located<BlockRV> &block,
                                                 const std::string &primitive) {
  llvm::Expected<StmtPath> path = sch.findBlock(block.value, block.at);
  if (!path) return path.takeError();
  const ir::Block &accessing = *path->back().as<ir::BlockRealize>()->block;
  const TraceValue &which = args.value("buffer");
  ir::SourceLoc at = args.at("buffer");
  if (which.kind == TraceValue::Kind::List && which.items.size() == 2 &&
      which.items[0].kind == TraceValue::Kind::String && which.items[1].kind == TraceValue::Kind::Int &&
      (which.items[0].text == "read" || which.items[0].text == "write")) {
    BufferAccess access{which.items[1].intValue, which.items[0].text == "write"};
    llvm::Expected<ir::BufferRef> buffer = accessedBuffer(accessing, access.index, access.isWrite, at);
    if (!buffer) return buffer.takeError();
    return DecodedBuffer{{access, at}, *buffer};
  }
  if (which.kind != TraceValue::Kind::String)
    return ir::diagnosticError(at, primitive + ": the buffer is (\"read\", index), (\"write\", index) or a buffer name");
  for (bool writes : {true, false}) {
    const std::vector<ir::BufferRegion> &regions = writes ? accessing.writes : accessing.reads;
    for (size_t i = 0; i < regions.size(); ++i) {
      if (regions[i].buffer->name != which.text) continue;
      TraceValue tuple =
          TraceValue::ofList({TraceValue::ofString(writes ? "write" : "read"), TraceValue::ofInt(int64_t(i))}, which.loc);
      tuple.isTuple = true;
      ir::BufferRef buffer = regions[i].buffer;
      args.setValue("buffer", tuple);
      return DecodedBuffer{{{int64_t(i), writes}, at}, buffer};
    }
  }
  return ir::diagnosticError(at, primitive + ": the block '" + accessing.name + "' does not access a buffer '" +
                                     which.text + "'");
}

llvm::Expected<std::vector<RV>> decodeSetAxisSeparator(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  Located<BlockRV> located{*block, args.at("block")};
  llvm::Expected<DecodedBuffer> buffer = decodeBufferAccess(sch, args, located, "set_axis_separator");
  if (!buffer) return buffer.takeError();
  const TraceValue &list = args.value("axis_separators");
  const char *notIntegers = "set_axis_separator: axis_separators is a list of integers";
  if (list.kind != TraceValue::Kind::List) return ir::diagnosticError(args.at("axis_separators"), notIntegers);
  std::vector<Located<int64_t>> separators;
  for (const TraceValue &item : list.items) {
    if (item.kind != TraceValue::Kind::Int) return ir::diagnosticError(item.loc, notIntegers);
    separators.push_back({item.intValue, item.loc});
  }
  return noResults(setAxisSeparator(sch, located, buffer->access, separators));
}

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


// The index map `lambda` (argument `param` as written, a Lambda) with its `*indices` expanded over
// `ndim` dimensions, which the recorded trace then prints, and the sampled values it names.
llvm::Expected<Located<IndexMap>> decodeIndexMap(StepArgs &args, const char *param, const TraceValue &lambda,
                                                 size_t ndim, const std::string &shaped) {
  llvm::Expected<TraceValue> expanded = withVariadicExpanded(lambda, ndim, shaped, args.at(param));
  if (!expanded) return expanded.takeError();
  args.setValue(param, std::move(*expanded));
  Located<IndexMap> map{{args.value(param), {}}, args.at(param)};
  if (llvm::Error error = collectSampled(args, map.value.lambda, map.value.sampled)) return error;
  return map;
}

llvm::Expected<std::vector<RV>> decodeTransformLayout(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  llvm::Expected<bool> assumeInjective = args.boolean("assume_injective_transform");
  if (!assumeInjective) return assumeInjective.takeError();
  Located<BlockRV> located{*block, args.at("block")};
  llvm::Expected<DecodedBuffer> buffer = decodeBufferAccess(sch, args, located, "transform_layout");
  if (!buffer) return buffer.takeError();
  const ir::BufferRef &transformed = buffer->buffer;

  if (args.value("index_map").kind != TraceValue::Kind::Lambda)
    return ir::diagnosticError(args.at("index_map"), "transform_layout: the index map is a `lambda`");
  auto [withoutSeparator, separators] = withoutSeparators(args.value("index_map"));
  llvm::Expected<Located<IndexMap>> indexMap =
      decodeIndexMap(args, "index_map", withoutSeparator, transformed->rank(), "'" + transformed->name + "'");
  if (!indexMap) return indexMap.takeError();
  size_t newRank = indexMap->value.lambda.items.back().items.size();

  const TraceValue &pad = args.value("pad_value");
  Located<PadValue> padValue{std::monostate(), args.at("pad_value")};
  if (pad.kind == TraceValue::Kind::Int) {
    padValue.value = pad.intValue;
  } else if (pad.kind == TraceValue::Kind::Float) {
    padValue.value = pad.floatValue;
  } else if (pad.kind == TraceValue::Kind::Lambda) {
    llvm::Expected<Located<IndexMap>> padMap =
        decodeIndexMap(args, "pad_value", pad, newRank, "the transformed '" + transformed->name + "'");
    if (!padMap) return padMap.takeError();
    padValue.value = std::move(padMap->value);
  } else if (pad.kind != TraceValue::Kind::None) {
    return ir::diagnosticError(padValue.at, "transform_layout: pad_value is None, a number or a `lambda` over the new indices");
  }
  if (llvm::Error error =
          transformLayout(sch, located, buffer->access, *indexMap, padValue, *assumeInjective, separators))
    return error;
  recordPadValueAsTvm(args, newRank, transformed->dtype);
  if (!separators.empty()) sch.recordAfterCurrentStep(setAxisSeparatorStep(args, separators));
  return std::vector<RV>{};
}

// sample_categorical's and sample_compute_location's decision: None or an index.
llvm::Expected<Located<std::optional<int64_t>>> decodeIntegerDecision(StepArgs &args) {
  Located<std::optional<int64_t>> decision{std::nullopt, args.at("decision")};
  if (args.value("decision").kind == TraceValue::Kind::None) return decision;
  llvm::Expected<int64_t> given = args.integer("decision");
  if (!given) return given.takeError();
  decision.value = *given;
  return decision;
}

// The decision a sample_* step took, which the recorded step holds.
void recordDecision(StepArgs &args, TraceValue decision) {
  decision.loc = args.value("decision").loc;
  args.setValue("decision", std::move(decision));
}

llvm::Expected<std::vector<RV>> decodeSampleCategorical(Schedule &sch, StepArgs &args) {
  const TraceValue &candidateList = args.value("candidates"), &probList = args.value("probs");
  if (candidateList.kind != TraceValue::Kind::List)
    return ir::diagnosticError(args.at("candidates"), "sample_categorical: candidates must be a non-empty list of integers");
  Located<std::vector<int64_t>> candidates{{}, args.at("candidates")};
  for (const TraceValue &item : candidateList.items) {
    if (item.kind != TraceValue::Kind::Int)
      return ir::diagnosticError(item.loc.isKnown() ? item.loc : candidates.at,
                                 "sample_categorical: candidates must be integers");
    candidates.value.push_back(item.intValue);
  }
  Located<std::vector<Located<double>>> probs{{}, args.at("probs")};
  if (probList.kind != TraceValue::Kind::List)
    return ir::diagnosticError(probs.at, "sample_categorical: probs must be a list of " +
                                             std::to_string(candidates.value.size()) + " numbers, one per candidate");
  for (const TraceValue &item : probList.items) {
    ir::SourceLoc at = item.loc.isKnown() ? item.loc : probs.at;
    if (item.kind != TraceValue::Kind::Float && item.kind != TraceValue::Kind::Int)
      return ir::diagnosticError(at, "sample_categorical: probs must be non-negative numbers");
    probs.value.push_back({item.kind == TraceValue::Kind::Float ? item.floatValue : double(item.intValue), at});
  }
  llvm::Expected<Located<std::optional<int64_t>>> decision = decodeIntegerDecision(args);
  if (!decision) return decision.takeError();
  llvm::Expected<int64_t> sampled = sampleCategorical(sch, candidates, probs, *decision);
  if (!sampled) return sampled.takeError();
  recordDecision(args, TraceValue::ofInt(*decision->value));
  return std::vector<RV>{*sampled};
}

llvm::Expected<std::vector<RV>> decodeSamplePerfectTile(Schedule &sch, StepArgs &args) {
  llvm::Expected<LoopRV> loop = args.loop("loop");
  if (!loop) return loop.takeError();
  llvm::Expected<int64_t> n = args.integer("n");
  if (!n) return n.takeError();
  llvm::Expected<int64_t> maxInnermost = args.integer("max_innermost_factor");
  if (!maxInnermost) return maxInnermost.takeError();
  const TraceValue &given = args.value("decision");
  Located<std::optional<std::vector<int64_t>>> decision{std::nullopt, args.at("decision")};
  if (given.kind != TraceValue::Kind::None) {
    if (given.kind != TraceValue::Kind::List)
      return ir::diagnosticError(decision.at, "sample_perfect_tile: decision must be a list of " + std::to_string(*n) +
                                                  " factors");
    decision.value.emplace();
    for (const TraceValue &item : given.items) {
      if (item.kind != TraceValue::Kind::Int)
        return ir::diagnosticError(decision.at, "sample_perfect_tile: decision must hold positive integers");
      decision.value->push_back(item.intValue);
    }
  }
  llvm::Expected<std::vector<SplitFactor>> factors =
      samplePerfectTile(sch, {*loop, args.at("loop")}, {*n, args.at("n")}, *maxInnermost, decision);
  if (!factors) return factors.takeError();
  std::vector<TraceValue> recorded;
  for (int64_t factor : *decision.value) recorded.push_back(TraceValue::ofInt(factor));
  recordDecision(args, TraceValue::ofList(std::move(recorded)));
  std::vector<RV> results;
  for (const SplitFactor &factor : *factors) results.push_back(factor ? RV(*factor) : RV(NoneRV{}));
  return results;
}

llvm::Expected<std::vector<RV>> decodeSampleComputeLocation(Schedule &sch, StepArgs &args) {
  llvm::Expected<BlockRV> block = args.block("block");
  if (!block) return block.takeError();
  llvm::Expected<Located<std::optional<int64_t>>> decision = decodeIntegerDecision(args);
  if (!decision) return decision.takeError();
  llvm::Expected<ComputeLocation> location = sampleComputeLocation(sch, {*block, args.at("block")}, *decision);
  if (!location) return location.takeError();
  recordDecision(args, TraceValue::ofInt(*decision->value));
  return std::vector<RV>{std::visit([](const auto &chosen) { return RV(chosen); }, *location)};
}

const std::vector<PrimitiveSpec> &allPrimitives() {
  static const std::vector<PrimitiveSpec> primitives = {
      {"get_block", {required("name"), optional("func_name", TraceValue::none())}, Results::One, decodeGetBlock},
      {"get_loops", {required("block")}, Results::List, decodeBlockQuery<LoopRV, getLoops>},
      {"get_child_blocks", {{"block_or_loop", std::nullopt, false, false, true}}, Results::List, decodeGetChildBlocks},
      {"get_producers", {required("block")}, Results::List, decodeBlockQuery<BlockRV, getProducers>},
      {"get_consumers", {required("block")}, Results::List, decodeBlockQuery<BlockRV, getConsumers>},
      {"split",
       {required("loop"), required("factors"), optional("preserve_unit_iters", TraceValue::ofBool(true)),
        optional("disable_predication", TraceValue::ofBool(false))},
       Results::List, decodeSplit},
      {"fuse", {variadic("loops"), optional("preserve_unit_iters", TraceValue::ofBool(true))}, Results::One, decodeFuse},
      {"merge", {variadic("loops")}, Results::One, decodeMerge},
      {"reorder", {variadic("ordered_loops")}, Results::None, decodeReorder},
      {"add_unit_loop", {required("block_or_loop")}, Results::One, decodeAddUnitLoop},
      {"parallel", {required("loop")}, Results::None, decodeLoopStep<parallel>},
      {"vectorize", {required("loop")}, Results::None, decodeLoopStep<vectorize>},
      {"unroll", {required("loop")}, Results::None, decodeLoopStep<unroll>},
      {"bind", {required("loop"), required("thread_axis")}, Results::None, decodeBind},
      {"annotate", {required("block_or_loop"), required("ann_key"), required("ann_val")}, Results::None, decodeAnnotate},
      {"unannotate", {required("block_or_loop"), required("ann_key")}, Results::None, decodeUnannotate},
      {"set_scope", {required("block"), required("buffer_index"), required("storage_scope")}, Results::None, decodeSetScope},
      {"unsafe_set_dtype", {required("block"), required("buffer_index"), required("dtype")}, Results::None,
       decodeUnsafeSetDType},
      {"compute_inline", {required("block")}, Results::None, decodeBlockStep<computeInline>},
      {"reverse_compute_inline", {required("block")}, Results::None, decodeBlockStep<reverseComputeInline>},
      {"cache_read",
       {required("block"), required("read_buffer_index"), required("storage_scope"),
        {"consumer_blocks", TraceValue::ofList({}), false, true}},
       Results::One, decodeCacheRead},
      {"cache_write",
       {required("block"), required("write_buffer_index"), required("storage_scope"),
        {"consumer_blocks", TraceValue::ofList({}), false, true}},
       Results::One, decodeCacheWrite},
      {"compute_at",
       {required("block"), required("loop"), optional("preserve_unit_loops", TraceValue::ofBool(false)),
        optional("index", TraceValue::ofInt(-1))},
       Results::None, decodeComputeAtStep<computeAt>},
      {"reverse_compute_at",
       {required("block"), required("loop"), optional("preserve_unit_loops", TraceValue::ofBool(false)),
        optional("index", TraceValue::ofInt(-1))},
       Results::None, decodeComputeAtStep<reverseComputeAt>},
      {"decompose_reduction", {required("block"), required("loop")}, Results::One, decodeDecomposeReduction},
      {"blockize", {required("target"), optional("preserve_unit_iters", TraceValue::ofBool(true))}, Results::One,
       decodeBlockize},
      {"tensorize",
       {required("block_or_loop"), required("tensor_intrin"), optional("preserve_unit_iters", TraceValue::ofBool(true))},
       Results::None, decodeTensorize},
      {"rfactor", {required("loop"), optional("factor_axis", TraceValue::ofInt(0))}, Results::One, decodeRFactor},
      {"transform_layout",
       {required("block"), required("buffer"), required("index_map"), optional("pad_value", TraceValue::none()),
        optional("assume_injective_transform", TraceValue::ofBool(false))},
       Results::None, decodeTransformLayout},
      {"set_axis_separator", {required("block"), required("buffer"), required("axis_separators")}, Results::None,
       decodeSetAxisSeparator},
      {"storage_align",
       {required("block"), required("buffer_index"), required("axis"), required("factor"), required("offset")},
       Results::None, decodeStorageAlign},
      {"sample_categorical",
       {required("candidates"), required("probs"), optional("decision", TraceValue::none())},
       Results::One, decodeSampleCategorical},
      {"sample_perfect_tile",
       {required("loop"), required("n"), optional("max_innermost_factor", TraceValue::ofInt(16)),
        optional("decision", TraceValue::none())},
       Results::List, decodeSamplePerfectTile},
      {"sample_compute_location", {required("block"), optional("decision", TraceValue::none())}, Results::One,
       decodeSampleComputeLocation},
  };
  return primitives;
}

}  // namespace

const PrimitiveSpec *findPrimitive(const std::string &name) {
  for (const PrimitiveSpec &spec : allPrimitives())
    if (name == spec.name) return &spec;
  return nullptr;
}

}  // namespace vtac::passes::schedule
