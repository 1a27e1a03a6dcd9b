// The primitives and their signatures (names, order and defaults of TVM's tir.Schedule methods,
// which are also what the trace prints), and the decoding of a step's arguments into the call of
// a typed primitive (Primitives.h).
#include "Primitive.h"

#include "vtac/ir/Diagnostic.h"

namespace vtac::passes::schedule {

namespace {

using ir::TraceValue;
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

const std::vector<PrimitiveSpec> &allPrimitives() {
  static const std::vector<PrimitiveSpec> primitives = {
      {"get_block", {required("name"), optional("func_name", TraceValue::none())}, Results::One, decodeGetBlock},
      {"get_loops", {required("block")}, Results::List, decodeBlockQuery<LoopRV, getLoops>},
      {"get_child_blocks", {{"block_or_loop", std::nullopt, false, false, true}}, Results::List, applyGetChildBlocks},
      {"get_producers", {required("block")}, Results::List, decodeBlockQuery<BlockRV, getProducers>},
      {"get_consumers", {required("block")}, Results::List, decodeBlockQuery<BlockRV, getConsumers>},
      {"split",
       {required("loop"), required("factors"), optional("preserve_unit_iters", TraceValue::ofBool(true)),
        optional("disable_predication", TraceValue::ofBool(false))},
       Results::List, decodeSplit},
      {"fuse", {variadic("loops"), optional("preserve_unit_iters", TraceValue::ofBool(true))}, Results::One, decodeFuse},
      {"merge", {variadic("loops")}, Results::One, decodeMerge},
      {"reorder", {variadic("ordered_loops")}, Results::None, decodeReorder},
      {"add_unit_loop", {required("block_or_loop")}, Results::One, applyAddUnitLoop},
      {"parallel", {required("loop")}, Results::None, decodeLoopStep<parallel>},
      {"vectorize", {required("loop")}, Results::None, decodeLoopStep<vectorize>},
      {"unroll", {required("loop")}, Results::None, decodeLoopStep<unroll>},
      {"bind", {required("loop"), required("thread_axis")}, Results::None, decodeBind},
      {"annotate", {required("block_or_loop"), required("ann_key"), required("ann_val")}, Results::None, applyAnnotate},
      {"unannotate", {required("block_or_loop"), required("ann_key")}, Results::None, applyUnannotate},
      {"set_scope", {required("block"), required("buffer_index"), required("storage_scope")}, Results::None, decodeSetScope},
      {"unsafe_set_dtype", {required("block"), required("buffer_index"), required("dtype")}, Results::None,
       decodeUnsafeSetDType},
      {"compute_inline", {required("block")}, Results::None, decodeBlockStep<computeInline>},
      {"reverse_compute_inline", {required("block")}, Results::None, decodeBlockStep<reverseComputeInline>},
      {"cache_read",
       {required("block"), required("read_buffer_index"), required("storage_scope"),
        {"consumer_blocks", TraceValue::ofList({}), false, true}},
       Results::One, applyCacheRead},
      {"cache_write",
       {required("block"), required("write_buffer_index"), required("storage_scope"),
        {"consumer_blocks", TraceValue::ofList({}), false, true}},
       Results::One, applyCacheWrite},
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
       applyBlockize},
      {"tensorize",
       {required("block_or_loop"), required("tensor_intrin"), optional("preserve_unit_iters", TraceValue::ofBool(true))},
       Results::None, applyTensorize},
      {"rfactor", {required("loop"), optional("factor_axis", TraceValue::ofInt(0))}, Results::One, applyRFactor},
      {"transform_layout",
       {required("block"), required("buffer"), required("index_map"), optional("pad_value", TraceValue::none()),
        optional("assume_injective_transform", TraceValue::ofBool(false))},
       Results::None, applyTransformLayout},
      {"set_axis_separator", {required("block"), required("buffer"), required("axis_separators")}, Results::None,
       applySetAxisSeparator},
      {"storage_align",
       {required("block"), required("buffer_index"), required("axis"), required("factor"), required("offset")},
       Results::None, applyStorageAlign},
      {"sample_categorical",
       {required("candidates"), required("probs"), optional("decision", TraceValue::none())},
       Results::One, applySampleCategorical},
      {"sample_perfect_tile",
       {required("loop"), required("n"), optional("max_innermost_factor", TraceValue::ofInt(16)),
        optional("decision", TraceValue::none())},
       Results::List, applySamplePerfectTile},
      {"sample_compute_location", {required("block"), optional("decision", TraceValue::none())}, Results::One,
       applySampleComputeLocation},
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
